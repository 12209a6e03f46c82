"""Read and parse an archive file in a second process while the first one writes.

An import is two kinds of work: reading and parsing records (gzip, JSON, normalising
text) and writing them. `parsed()` yields the same ordered stream of events however it
runs: in this process, or (`workers=1`, the default for the command) in a forked child
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
import signal
import traceback
from collections.abc import Iterator
from pathlib import Path

from papers.archive.kinds import PARSERS
from papers.archive.normalise import RecordError
from papers.archive.readers import KINDS, ArchiveFileError, ArchiveReader, detect_kind, unparseable

KIND, OK, BAD = "kind", "ok", "bad"
_END, _FILE_ERROR, _CRASH = "end", "file-error", "crash"
CHUNK_EVENTS = 200  # events per message between the processes
QUEUE_CHUNKS = 24  # how far (in chunks) the parser may run ahead of the writer


def events(path: Path, kind: str | None, reader: ArchiveReader) -> Iterator[tuple]:
    """The file's records as events, in order (raises ArchiveFileError)."""
    for item in reader.items():
        bad = unparseable(item.data)
        if bad is not None:
            yield BAD, item.number, item.line, "(line)", bad.reason, bad.raw
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


def parsed(path: Path, kind: str | None, position: Position, workers: int) -> Iterator[tuple]:
    """`events()`, parsed here (workers=0) or in a forked child (workers=1)."""
    if kind is not None:
        yield (KIND, kind)
    if workers < 1 or "fork" not in multiprocessing.get_all_start_methods():
        reader = ArchiveReader(path)
        for event in events(path, kind, reader):
            position.offset = reader.offset
            yield event
        return
    context = multiprocessing.get_context("fork")
    channel = context.Queue(maxsize=QUEUE_CHUNKS)
    child = context.Process(
        target=_produce, args=(path, kind, channel, os.getpid()), name="import-parser"
    )
    child.start()
    try:
        while True:
            try:
                tag, payload, offset = channel.get(timeout=5)
            except queue_module.Empty:
                if not child.is_alive():
                    raise RuntimeError(
                        f"the parser of {path} stopped without a word (exit {child.exitcode})"
                    ) from None
                continue
            position.offset = offset
            if tag == OK:
                yield from payload
            elif tag == _END:
                return
            elif tag == _FILE_ERROR:
                raise ArchiveFileError(*payload)
            else:
                raise RuntimeError(f"the parser of {path} failed:\n{payload}")
    finally:
        if child.is_alive():
            child.kill()  # the writer stopped early (--strict, an error): parsing ahead is moot
        child.join()
        channel.close()


def _die_with(parent: int) -> None:
    """Have the kernel kill this child when the writer dies (Linux). A child outliving a
    writer killed with SIGKILL would keep the writer's inherited database socket open,
    and with it the killed transaction and its locks, until the child ended."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere send() notices the orphaning (a parent pid that changed)
    if os.getppid() != parent:  # the writer died before prctl
        os._exit(0)


def _produce(path: Path, kind: str | None, channel, parent: int) -> None:
    """The child: parse the file and send its events in chunks, then an end mark."""
    _die_with(parent)

    def send(message) -> None:
        while True:
            try:
                channel.put(message, timeout=1)
                return
            except queue_module.Full:
                if os.getppid() != parent:  # the writer was killed: nobody will read this
                    os._exit(0)

    reader = ArchiveReader(path)
    chunk: list[tuple] = []
    try:
        for event in events(path, kind, reader):
            chunk.append(event)
            if len(chunk) >= CHUNK_EVENTS:
                send((OK, chunk, reader.offset))
                chunk = []
        send((OK, chunk, reader.offset))
        send((_END, None, reader.offset))
    except ArchiveFileError as exc:
        send((OK, chunk, reader.offset))
        send((_FILE_ERROR, (exc.path, exc.reason), reader.offset))
    except BaseException:  # any failure is reported to the writer
        send((_CRASH, traceback.format_exc(), reader.offset))
    channel.close()
    channel.join_thread()  # everything sent reaches the pipe before the child exits
