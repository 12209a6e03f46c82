"""Django's SQLite operations, with the bulk writes papers.db asks of every engine."""

from __future__ import annotations

import os
from collections.abc import Sequence

from django.db.backends.sqlite3 import operations


class DatabaseOperations(operations.DatabaseOperations):
    # A JSON value goes as its text.
    json_placeholder = "%s"

    def content_stamp(self, tables: Sequence[str]) -> str | None:
        """A value that changes whenever the database's content does (codewithpapers.cache):
        the size and time of the database and WAL files and the WAL index's header, which
        counts every committed write (any table's); no query. None for a database in
        memory."""
        name = str(self.connection.settings_dict["NAME"])
        if self.connection.is_in_memory_db() or not name:
            return None
        parts = []
        for suffix in ("", "-wal"):
            try:
                found = os.stat(name + suffix)
                parts.append(f"{found.st_mtime_ns}.{found.st_size}")
            except OSError:
                parts.append("-")
        try:
            # The WAL index's header: its change counter moves with every commit, even
            # two within one tick of the file clock.
            with open(name + "-shm", "rb") as index:
                parts.append(index.read(48).hex())
        except OSError:
            parts.append("-")
        return "sqlite." + ".".join(parts)

    def reserve_ids(self, table: str, pk: str, count: int) -> list[int]:
        """`count` ids for rows about to be inserted. The transaction that inserts them
        holds the write lock (BEGIN IMMEDIATE), so no other writer can take them."""
        quote = self.quote_name
        with self.connection.cursor() as cursor:
            cursor.execute(f"SELECT MAX({quote(pk)}) FROM {quote(table)}")
            top = cursor.fetchone()[0] or 0
            # AUTOINCREMENT never reuses an id, even one whose row was deleted.
            cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
            row = cursor.fetchone()
        start = max(top, row[0] if row else 0) + 1
        return list(range(start, start + count))

    def insert_rows(
        self,
        table: str,
        columns: Sequence[str],
        placeholders: Sequence[str],
        rows: list[tuple],
        *,
        ignore_conflicts: bool,
    ) -> None:
        """One INSERT run over every row (sqlite3 loops in C)."""
        quote = self.quote_name
        sql = (
            f"INSERT INTO {quote(table)} ({', '.join(map(quote, columns))}) "
            f"VALUES ({', '.join(placeholders)})"
        )
        if ignore_conflicts:
            sql += " ON CONFLICT DO NOTHING"
        with self.connection.cursor() as cursor:
            cursor.executemany(sql, rows)
