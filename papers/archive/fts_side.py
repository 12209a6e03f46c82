"""SQLite: build a deferred import's full-text index in a second process, as it writes.

A bulk import defers the FTS5 index (papers.search.index.defer) and builds it when it
ends. Rebuilding it there tokenizes every paper on the writer's core while the other
core idles (68 s of a 351 s full-archive import). `SideIndex` has a spawned helper
build the same index meanwhile, in a scratch database beside the main one: after each
commit the writer sends it the ids of the papers the commit inserted or changed; the
helper reads those rows (WAL lets it read while the writer writes) and indexes them in
an ordinary FTS5 table with the same columns, tokenizer and prefixes.

When the import ends the writer, in the transaction that ends the deferral (so with the
write lock held), re-indexes in the scratch table every paper whose text differs from
what the helper indexed (staff edits while the triggers were paused, papers deleted),
then copies the index's shadow tables (_data, _idx, _docsize) over the main database's
external-content table: B-tree bytes, no tokenizing. If the helper fails in any way
the writer rebuilds the index as before, so the side index can only make it faster.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue as queue_module
import re
import sqlite3
import time
from pathlib import Path

from django.db import transaction

FTS_TABLE = "papers_paper_fts"
SHADOW_TABLES = ("data", "idx", "docsize")  # the index proper; _config stays as it is
TEXT = ("title", "abstract", "author_names")
CHUNK = 900  # ids per IN (...)
SIDE_SUFFIX = "-fts-build-"  # <database>-fts-build-<pid>: the scratch database


def side_ddl(main_ddl: str) -> str:
    """The main FTS table's CREATE statement without its external content: the same
    columns, tokenizer and prefix indexes, storing its own copy of the text (which a
    re-indexed row's delete needs)."""
    ddl = re.sub(r"\bcontent(_rowid)?\s*=\s*'[^']*'\s*(,\s*)?", "", main_ddl)
    return re.sub(r",\s*\)\s*$", ")", ddl.strip())


class SideIndex:
    """The writer's end. `start()` returns None where a helper cannot see the import's
    commits (an in-memory database, or an import inside a caller's transaction)."""

    def __init__(self, main_path: str, ddl: str):
        self.main_path = main_path
        self.path = f"{main_path}{SIDE_SUFFIX}{os.getpid()}"
        context = multiprocessing.get_context("spawn")  # a fresh, small interpreter
        self.inbox = context.Queue()  # never blocks the writer: the helper may lag
        self.outbox = context.Queue()
        self.process = context.Process(
            target=_work,
            args=(main_path, self.path, side_ddl(ddl), self.inbox, self.outbox, os.getpid()),
            name="import-fts",
            daemon=True,
        )
        self.failed: str | None = None

    @classmethod
    def start(cls, connection) -> SideIndex | None:
        if connection.vendor != "sqlite" or connection.in_atomic_block:
            return None
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA database_list")
            main_path = next((row[2] for row in cursor.fetchall() if row[1] == "main"), "")
            cursor.execute("SELECT sql FROM sqlite_master WHERE name = %s", [FTS_TABLE])
            row = cursor.fetchone()
            cursor.execute("SELECT MAX(id) FROM papers_paper")
            top = cursor.fetchone()[0] or 0
        if not main_path or row is None:
            return None
        _remove_stale(main_path)
        side = cls(main_path, row[0])
        side.process.start()
        if top:  # the papers there before the deferral began (or before a killed import)
            side.inbox.put(("range", 0, top))
        return side

    def send(self, added: list[int], changed: list[int]) -> None:
        """Papers a commit inserted (`added`) and changed (`changed`): index them."""
        if added or changed:
            self.inbox.put(("ids", added, changed))

    def finish(self, connection, end_deferral) -> bool:
        """Wait for the helper, then in one transaction correct its index, copy it into
        the main database and `end_deferral()`. False (nothing copied, the deferral
        still on) if the helper failed."""
        try:
            self._wait()
        except Exception as exc:  # the rebuild covers any failure of the side index
            self.failed = str(exc) or type(exc).__name__
            return False
        with connection.cursor() as cursor:
            cursor.execute("ATTACH DATABASE %s AS fts_side", [self.path])
        try:
            with transaction.atomic(using=connection.alias):
                self.corrected = correct_and_copy(connection, "fts_side")
                end_deferral()
        finally:
            with connection.cursor() as cursor:
                cursor.execute("DETACH DATABASE fts_side")
        # This connection's FTS5 table may have cached the structure it replaced.
        connection.close()
        return True

    def _wait(self, timeout: float = 3600.0) -> None:
        self.inbox.put(("finish",))
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.outbox.get(timeout=1)
                break
            except queue_module.Empty:
                if not self.process.is_alive():
                    raise RuntimeError(f"stopped (exit {self.process.exitcode})") from None
                if time.monotonic() > deadline:
                    raise RuntimeError("did not finish in time") from None
        if message[0] != "done":
            raise RuntimeError(message[1])
        self.process.join()

    def close(self) -> None:
        """Stop the helper if it still runs and remove the scratch database."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        for queue in (self.inbox, self.outbox):
            queue.close()
            queue.cancel_join_thread()
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(self.path + suffix).unlink(missing_ok=True)


def correct_and_copy(connection, schema: str) -> int:
    """Re-index in `schema`'s FTS table the papers whose text differs from what it
    indexed (staff edits while the triggers stood aside, papers deleted: usually none),
    then copy its index over the main database's. Returns how many were re-indexed."""
    side = f"{schema}.{FTS_TABLE}"
    text = ", ".join(TEXT)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT p.id FROM papers_paper p LEFT JOIN {side}_content s ON s.id = p.id "
            "WHERE s.id IS NULL OR s.c0 IS NOT p.title OR s.c1 IS NOT p.abstract "
            "OR s.c2 IS NOT p.author_names "
            f"UNION ALL SELECT s.id FROM {side}_content s "
            "WHERE NOT EXISTS (SELECT 1 FROM papers_paper p WHERE p.id = s.id)"
        )
        stale = [row[0] for row in cursor.fetchall()]
        for start in range(0, len(stale), CHUNK):
            part = stale[start : start + CHUNK]
            marks = ", ".join(["%s"] * len(part))
            cursor.execute(f"DELETE FROM {side} WHERE rowid IN ({marks})", part)
            cursor.execute(
                f"INSERT INTO {side} (rowid, {text}) "
                f"SELECT id, {text} FROM papers_paper WHERE id IN ({marks})",
                part,
            )
        for name in SHADOW_TABLES:
            cursor.execute(f"DELETE FROM {FTS_TABLE}_{name}")
            cursor.execute(f"INSERT INTO {FTS_TABLE}_{name} SELECT * FROM {side}_{name}")
    return len(stale)


def _remove_stale(main_path: str) -> None:
    """Scratch databases of imports that were killed (their pid is gone)."""
    for path in Path(main_path).parent.glob(Path(main_path).name + SIDE_SUFFIX + "*"):
        pid = path.name.rsplit("-", 1)[-1].split(".")[0]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            path.unlink(missing_ok=True)
        except PermissionError:
            pass


def _work(main_path: str, side_path: str, ddl: str, inbox, outbox, parent: int) -> None:
    """The helper: index the rows it is told about, in order, until "finish"."""
    with contextlib.suppress(OSError):
        os.nice(5)  # the parser, which the writer waits for, comes first on this core
    try:
        side = sqlite3.connect(side_path, isolation_level=None)
        side.execute("PRAGMA journal_mode = OFF")  # scratch: a crash discards it
        side.execute("PRAGMA synchronous = OFF")
        side.execute(ddl)
        main = sqlite3.connect(main_path, isolation_level=None, timeout=60)
        main.execute("PRAGMA query_only = 1")
        insert = f"INSERT INTO {FTS_TABLE} (rowid, {', '.join(TEXT)}) VALUES (?, ?, ?, ?)"
        select = f"SELECT id, {', '.join(TEXT)} FROM papers_paper WHERE "
        while True:
            try:
                message = inbox.get(timeout=5)
            except queue_module.Empty:
                if os.getppid() != parent:
                    return  # the writer is gone
                continue
            if message[0] == "finish":
                break
            side.execute("BEGIN")
            if message[0] == "range":
                low, high = message[1], message[2]
                while low < high:
                    rows = main.execute(
                        select + "id > ? AND id <= ? ORDER BY id LIMIT 5000", (low, high)
                    ).fetchall()
                    if not rows:
                        break
                    side.executemany(insert, rows)
                    low = rows[-1][0]
            else:
                _, added, changed = message
                for start in range(0, len(changed), CHUNK):
                    part = changed[start : start + CHUNK]
                    side.execute(
                        f"DELETE FROM {FTS_TABLE} WHERE rowid IN ({', '.join('?' * len(part))})",
                        part,
                    )
                ids = added + changed
                for start in range(0, len(ids), CHUNK):
                    part = ids[start : start + CHUNK]
                    rows = main.execute(
                        select + f"id IN ({', '.join('?' * len(part))})", part
                    ).fetchall()
                    side.executemany(insert, rows)
            side.execute("COMMIT")
        side.close()
        main.close()
        outbox.put(("done",))
    except BaseException as exc:  # reported; the writer then rebuilds the index itself
        outbox.put(("failed", f"{type(exc).__name__}: {exc}"))
