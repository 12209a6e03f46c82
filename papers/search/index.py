"""Keeping the full-text index in step with bulk writes.

PostgreSQL's index is a generated column: nothing to do. SQLite's FTS5 table is
kept by row triggers, which are slow for an archive import; `bulk_writes()` pauses
them for the duration of one batch transaction (the pause row is never visible to
another connection) and indexes the batch's new and changed papers in a few
statements instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.db import connection, transaction


class _Batch:
    def __init__(self):
        self.added: list[int] = []
        self.changed: list[tuple[int, str, str, str]] = []  # id and the OLD title/abstract/names

    def add(self, ids: Sequence[int]) -> None:
        self.added.extend(ids)

    def change(self, old_rows: Sequence[tuple[int, str, str, str]]) -> None:
        self.changed.extend(old_rows)


def needs_old_text() -> bool:
    """Whether changed papers' previous text must be handed to the batch (FTS5's
    external-content 'delete' needs it)."""
    return connection.vendor == "sqlite"


@contextmanager
def bulk_writes() -> Iterator[_Batch]:
    batch = _Batch()
    if connection.vendor != "sqlite":
        yield batch
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO papers_fts_pause (reason) VALUES ('import')")
        yield batch
        if batch.changed:
            cursor.executemany(
                "INSERT INTO papers_paper_fts(papers_paper_fts, rowid, title, abstract, "
                "author_names) VALUES ('delete', %s, %s, %s, %s)",
                batch.changed,
            )
        ids = batch.added + [row[0] for row in batch.changed]
        for start in range(0, len(ids), 900):
            part = ids[start : start + 900]
            cursor.execute(
                "INSERT INTO papers_paper_fts(rowid, title, abstract, author_names) "
                "SELECT id, title, abstract, author_names FROM papers_paper "
                f"WHERE id IN ({', '.join(['%s'] * len(part))})",
                part,
            )
        cursor.execute("DELETE FROM papers_fts_pause")
