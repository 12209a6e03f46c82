"""Django's PostgreSQL operations, with the bulk writes papers.db asks of every engine."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.backends.postgresql import operations

STAGING = "papers_copy_staging"  # the temporary table rows go through to skip conflicts
# The statistics' counts of rows inserted, updated and deleted in the tables, and their
# files (a TRUNCATE makes new ones): one catalog query.
CONTENT_STAMP = """
    SELECT coalesce(sum(s.n_tup_ins + s.n_tup_upd + s.n_tup_del), 0)::text
           || '.' || coalesce(sum(c.relfilenode::bigint), 0)::text
    FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
    WHERE c.relname = ANY(%s) AND c.relkind = 'r' AND pg_table_is_visible(c.oid)
"""


class DatabaseOperations(operations.DatabaseOperations):
    # A JSON value goes as its text, cast where the statement names it.
    json_placeholder = "%s::jsonb"

    def content_stamp(self, tables: Sequence[str]) -> str | None:
        """A value that changes whenever these tables' content does (codewithpapers.cache):
        published when the writing session commits and idles."""
        with self.connection.cursor() as cursor:
            if self.connection.in_atomic_block:
                # Statistics are read once per transaction unless told to read again.
                cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(CONTENT_STAMP, [list(tables)])
            return f"pg.{cursor.fetchone()[0]}"

    def reserve_ids(self, table: str, pk: str, count: int) -> list[int]:
        """`count` ids for rows about to be inserted, from the table's own sequence."""
        with self.connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [self.quote_name(table), pk, count],
            )
            return [row[0] for row in cursor.fetchall()]

    def insert_rows(
        self,
        table: str,
        columns: Sequence[str],
        placeholders: Sequence[str],
        rows: list[tuple],
        *,
        ignore_conflicts: bool,
    ) -> None:
        """COPY the rows in (the placeholders are a statement's; COPY needs none), through
        a temporary staging table when conflicts must be skipped, since COPY itself
        cannot skip them."""
        quote = self.quote_name
        table = quote(table)
        names = ", ".join(map(quote, columns))
        with self.connection.cursor() as wrapper:
            cursor = wrapper.cursor  # psycopg's own cursor, for its COPY support
            target = table
            if ignore_conflicts:
                target = STAGING
                cursor.execute(f"DROP TABLE IF EXISTS {target}")
                cursor.execute(
                    f"CREATE TEMPORARY TABLE {target} ON COMMIT DROP AS "
                    f"SELECT {names} FROM {table} WITH NO DATA"
                )
            with cursor.copy(f"COPY {target} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            if ignore_conflicts:
                cursor.execute(
                    f"INSERT INTO {table} ({names}) SELECT {names} FROM {target} "
                    "ON CONFLICT DO NOTHING"
                )
                cursor.execute(f"DROP TABLE {target}")
