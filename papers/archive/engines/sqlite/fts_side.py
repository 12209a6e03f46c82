"""SQLite: build a deferred import's full-text index in a second process, as it writes.

A bulk import defers the FTS5 index (papers.search.index.defer) and builds it when it
ends. Rebuilding it there tokenizes every paper on the writer's core while the other
core idles (about a fifth of a full-archive import). `SideIndex` has a spawned helper
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
import os
import queue as queue_module
import re
import select
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

FTS_TABLE = "papers_paper_fts"
SHADOW_TABLES = ("data", "idx", "docsize")  # the index proper; _config stays as it is
TEXT = ("title", "abstract", "author_names")
CHUNK = 900  # ids per IN (...): papers.db.CHUNK, which this helper cannot import
HASH_BYTES = 8 * 1024 * 1024  # the helper's FTS5 pending-terms buffer (its RSS grows by ~this)
COMMIT_ROWS = 20_000  # papers indexed between the helper's commits
SIDE_SUFFIX = "-fts-build-"  # <database>-fts-build-<pid>: the scratch database


def side_ddl(main_ddl: str) -> str:
    """The main FTS table's CREATE statement without its external content: the same
    columns, tokenizer and prefix indexes, storing its own copy of the text (which a
    re-indexed row's delete needs)."""
    ddl = re.sub(r"\bcontent(_rowid)?\s*=\s*'[^']*'\s*(,\s*)?", "", main_ddl)
    return re.sub(r",\s*\)\s*$", ")", ddl.strip())


class SideIndex:
    """The writer's end: the helper runs as `python fts_side.py` (this file, which
    imports nothing but the standard library at its top), fed lines on its stdin:
    `range LOW HIGH`, `ids ADDED;CHANGED` (comma-separated ids), `finish`; it answers
    `done` or `failed REASON` on its stdout. A plain child process keeps it small: no
    copy of the writer (SQLite connections must not cross a fork), no multiprocessing
    resource tracker. `start()` returns None where a helper could not see the import's
    commits (an in-memory database, an import inside a caller's transaction)."""

    def __init__(self, main_path: str, ddl: str):
        self.main_path = main_path
        self.path = f"{main_path}{SIDE_SUFFIX}{os.getpid()}"
        self.failed: str | None = None
        self.corrected = 0
        self.process = subprocess.Popen(
            [sys.executable, __file__, main_path, self.path, side_ddl(ddl)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    @classmethod
    def start(cls, connection) -> SideIndex | None:
        if connection.in_atomic_block:
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
        if top:  # the papers there before the deferral began (or before a killed import)
            side._tell(f"range 0 {top}")
        return side

    def send(self, added: list[int], changed: list[int]) -> None:
        """Papers a commit inserted (`added`) and changed (`changed`): index them."""
        if added or changed:
            self._tell(f"ids {','.join(map(str, added))};{','.join(map(str, changed))}")

    def _tell(self, line: str) -> None:
        if self.failed is None:
            try:
                self.process.stdin.write(line + "\n")
                self.process.stdin.flush()
            except OSError as exc:  # the helper is gone: finish() says so
                self.failed = f"stopped ({exc})"

    def finish(self, connection, end_deferral) -> bool:
        """Wait for the helper, then in one transaction correct its index, copy it into
        the main database and `end_deferral()`. False (nothing copied, the deferral
        still on) if the helper failed."""
        from django.db import transaction

        self._tell("finish")
        answer = self._answer()
        if answer != "done":
            self.failed = answer  # the helper's own reason, else how it ended
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

    def _answer(self, timeout: float = 3600.0) -> str:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            return "did not finish in time"
        line = self.process.stdout.readline().strip()
        if not line:
            return f"stopped (exit {self.process.wait()})"
        return line.removeprefix("failed ")

    def close(self) -> None:
        """Stop the helper if it still runs and remove the scratch database."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
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


def _main(main_path: str, side_path: str, ddl: str) -> None:
    """The helper: index the rows it is told about, in order, until "finish"."""
    with contextlib.suppress(OSError):
        os.nice(5)  # the parser, which the writer waits for, comes first on this core
    lines: queue_module.SimpleQueue[str] = queue_module.SimpleQueue()

    def drain() -> None:  # read stdin as it comes, so the writer never waits on the pipe
        for line in sys.stdin:
            lines.put(line)
        lines.put("")  # end of input: the writer finished or died

    threading.Thread(target=drain, daemon=True).start()
    try:
        helper = _Helper(main_path, side_path, ddl)
        if helper.run(lines):
            print("done", flush=True)
    except BaseException as exc:  # reported; the writer then rebuilds the index itself
        print(f"failed {type(exc).__name__}: {exc}".replace("\n", " "), flush=True)


class _Helper:
    """The helper's two connections: the main database, read only, and the scratch
    database whose FTS table it fills."""

    def __init__(self, main_path: str, side_path: str, ddl: str):
        side = self.side = sqlite3.connect(side_path, isolation_level=None)
        side.execute("PRAGMA journal_mode = OFF")  # scratch: a crash discards it
        side.execute("PRAGMA synchronous = OFF")
        side.execute(ddl)
        # Merge segments 8 at a time, not 4: less CPU for the helper (about a fifth), and
        # searches as fast. The setting stays in the scratch table: the main
        # table's own, copied with nothing else, governs its later writes.
        side.execute(f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}, rank) VALUES ('automerge', 8)")
        # FTS5 writes a new segment whenever its pending terms pass `hashsize` (1 MB by
        # default) and at every commit; larger, rarer segments leave less to merge. With
        # commits every COMMIT_ROWS papers: ~25% less CPU for the helper at 200k papers
        # (16 MB: no faster, 11 MB more memory).
        side.execute(
            f"INSERT INTO {FTS_TABLE} ({FTS_TABLE}, rank) VALUES ('hashsize', {HASH_BYTES})"
        )
        self.main = sqlite3.connect(main_path, isolation_level=None, timeout=60)
        self.main.execute("PRAGMA query_only = 1")
        self.insert = f"INSERT INTO {FTS_TABLE} (rowid, {', '.join(TEXT)}) VALUES (?, ?, ?, ?)"
        self.select = f"SELECT id, {', '.join(TEXT)} FROM papers_paper WHERE "

    def run(self, lines: queue_module.SimpleQueue[str]) -> bool:
        """Follow the writer's messages; True once it asked to finish (and all is
        committed), False if it went away without asking."""
        pending = 0  # papers indexed since the last commit
        self.side.execute("BEGIN")
        while True:
            line = lines.get()
            if not line:
                return False  # the writer is gone without asking for the index
            verb, _, rest = line.strip().partition(" ")
            if verb == "finish":
                break
            if verb == "range":
                pending += self.index_range(*map(int, rest.split()))
            elif verb == "ids":
                added, changed = (
                    [int(i) for i in part.split(",") if i] for part in rest.split(";")
                )
                pending += self.index_ids(added, changed)
            else:
                raise ValueError(f"unknown message {line[:40]!r}")
            if pending >= COMMIT_ROWS:
                self.side.execute("COMMIT")
                self.side.execute("BEGIN")
                pending = 0
        self.side.execute("COMMIT")
        # Merged into one segment, as SQLiteIndex.build() leaves a rebuilt index (why:
        # papers.search.backends.sqlite.OPTIMIZE), while the writer waits to copy it.
        self.side.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('optimize')")
        self.side.close()
        self.main.close()
        return True

    def index_range(self, low: int, high: int) -> int:
        """Index the papers with ids in (low, high]; returns how many."""
        indexed = 0
        while low < high:
            rows = self.main.execute(
                self.select + "id > ? AND id <= ? ORDER BY id LIMIT 5000", (low, high)
            ).fetchall()
            if not rows:
                break
            self.side.executemany(self.insert, rows)
            indexed += len(rows)
            low = rows[-1][0]
        return indexed

    def index_ids(self, added: list[int], changed: list[int]) -> int:
        """Index papers inserted (`added`) and re-index those changed; returns how many."""
        for start in range(0, len(changed), CHUNK):
            part = changed[start : start + CHUNK]
            marks = ", ".join("?" * len(part))
            self.side.execute(f"DELETE FROM {FTS_TABLE} WHERE rowid IN ({marks})", part)
        self.side.executemany(self.insert, self._rows_of(added + changed))
        return len(added) + len(changed)

    def _rows_of(self, ids: list[int]) -> Iterator[tuple]:
        for start in range(0, len(ids), CHUNK):
            part = ids[start : start + CHUNK]
            marks = ", ".join("?" * len(part))
            yield from self.main.execute(self.select + f"id IN ({marks})", part).fetchall()


if __name__ == "__main__":
    _main(*sys.argv[1:4])
