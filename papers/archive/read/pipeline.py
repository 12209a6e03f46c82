"""Read and parse archive files in a second process while the first one writes.

An import is two kinds of work: reading and parsing records (gzip, JSON, normalising
text) and writing them. `Parser` yields the same ordered stream of events however it
runs: in this process, or (`workers=1`, the default for the command) in one forked child
that sends them in chunks through a bounded queue, so the machine's second core parses
the next batches while this one writes. Order is kept, so record numbers, error lines
and last-wins semantics are those of a single process; a file error is raised at the
point of the stream where the reader met it.

Events: (KIND, kind) once the file's kind is known; (OK, parsed record); (BAD, number,
line, field, reason, raw). Each comes with the reader's byte offset (for progress).
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
import traceback
from collections.abc import Iterator
from pathlib import Path

from papers.archive.children import die_with
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers import PARSERS as ARCHIVE_PARSERS
from papers.archive.read.readers import (
    KINDS,
    ArchiveFileError,
    ArchiveReader,
    detect_kind,
    unparseable,
)
from papers.arxiv.snapshot import parse_snapshot

# Every kind's parser: the archive's own, and arXiv's metadata snapshot (papers.arxiv,
# which reads into the archive's shapes, so the archive's parsers cannot import it).
PARSERS = {**ARCHIVE_PARSERS, "arxiv": parse_snapshot}
KIND, OK, BAD = "kind", "ok", "bad"
_END, _FILE_ERROR, _CRASH = "end", "file-error", "crash"
CHUNK_EVENTS = 200  # events per message between the processes
QUEUE_CHUNKS = 24  # how far (in chunks) the parser may run ahead of the writer


def events(path: Path, kind: str | None, reader: ArchiveReader) -> Iterator[tuple]:
    """The file's records as events, in order (raises ArchiveFileError)."""
    for item in reader.items():
        bad = unparseable(item.data)
        if bad is not None:
            yield BAD, item.number, item.line, bad.field, bad.reason, bad.raw
            continue
        if kind is None:
            kind = detect_kind(item.data)
            if kind is None:
                keys = ", ".join(list(item.data)[:8]) if isinstance(item.data, dict) else ""
                raise ArchiveFileError(
                    path,
                    "cannot tell which archive file this is from its first record"
                    + (f" (keys: {keys})" if keys else "")
                    + f"; name it with --kind ({', '.join(KINDS)})",
                )
            yield (KIND, kind)
        try:
            parsed = PARSERS[kind](item.data)
        except RecordError as exc:
            yield BAD, item.number, item.line, exc.field, exc.reason, item.data
            continue
        yield OK, parsed


class Position:
    """How far into the file the reader is (bytes), for the progress display."""

    def __init__(self) -> None:
        self.offset = 0


class Parser:
    """Parses an import's files in order, here (workers=0) or in one forked child
    (workers=1) started before the writer has grown: a child forked later would start
    with a copy of the writer's memory (its page cache, the names it remembers), which
    it copies for real as it allocates. Use as a context manager; `parsed(i, …)` gives
    file i's events, and the files must be asked for in order."""

    def __init__(self, paths: list[Path], kind: str | None, workers: int):
        self.paths = paths
        self.kind = kind
        self.workers = workers if "fork" in multiprocessing.get_all_start_methods() else 0
        self.child = None

    def __enter__(self) -> Parser:
        if self.workers >= 1:
            context = multiprocessing.get_context("fork")
            self.channel = context.Queue(maxsize=QUEUE_CHUNKS)
            self.skip = context.RawValue("i", -1)  # files up to this one: stop parsing
            self.child = context.Process(
                target=_produce,
                args=(self.paths, self.kind, self.channel, self.skip, os.getpid()),
                name="import-parser",
            )
            self.child.start()
        return self

    def __exit__(self, *exc_info) -> None:
        if self.child is not None:
            if self.child.is_alive():
                self.child.kill()  # the writer stopped early: parsing ahead is moot
            self.child.join()
            self.channel.close()

    def parsed(self, index: int, position: Position) -> Iterator[tuple]:
        path, kind = self.paths[index], self.kind
        if kind is not None:
            yield (KIND, kind)
        if self.child is None:
            reader = ArchiveReader(path)
            for event in events(path, kind, reader):
                position.offset = reader.offset
                yield event
            return
        finished = False
        try:
            while True:
                try:
                    number, tag, payload, offset = self.channel.get(timeout=5)
                except queue_module.Empty:
                    if not self.child.is_alive():
                        raise RuntimeError(
                            f"the parser of {path} stopped without a word "
                            f"(exit {self.child.exitcode})"
                        ) from None
                    continue
                if tag == _CRASH:
                    raise RuntimeError(f"the parser of {path} failed:\n{payload}")
                if number < index:
                    continue  # the rest of a file the writer stopped early
                position.offset = offset
                if tag == OK:
                    yield from payload
                elif tag == _END:
                    finished = True
                    return
                else:
                    finished = True
                    raise ArchiveFileError(*payload)
        finally:
            if not finished:  # --strict stopped this file: the child may skip its rest
                self.skip.value = index


def _produce(paths: list[Path], kind: str | None, channel, skip, parent: int) -> None:
    """The child: parse the files in order and send their events in chunks, each file
    closed by an end mark (or its file error)."""
    die_with(parent)

    def send(message) -> None:
        while True:
            try:
                channel.put(message, timeout=1)
                return
            except queue_module.Full:
                if os.getppid() != parent:  # the writer was killed: nobody will read this
                    os._exit(0)

    for index, path in enumerate(paths):
        reader = ArchiveReader(path)
        chunk: list[tuple] = []
        try:
            for event in events(path, kind, reader):
                chunk.append(event)
                if len(chunk) >= CHUNK_EVENTS:
                    send((index, OK, chunk, reader.offset))
                    chunk = []
                    if skip.value >= index:
                        break
            send((index, OK, chunk, reader.offset))
            send((index, _END, None, reader.offset))
        except ArchiveFileError as exc:
            send((index, OK, chunk, reader.offset))
            send((index, _FILE_ERROR, (exc.path, exc.reason), reader.offset))
        except BaseException:  # any failure is reported to the writer
            send((index, _CRASH, traceback.format_exc(), reader.offset))
            break
    channel.close()
    channel.join_thread()  # everything sent reaches the pipe before the child exits
