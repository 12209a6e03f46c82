"""Count each paper's code links before the papers are written.

A paper's row carries its code-link count, whether any link is official and its links
by framework (the listings sort and filter by them; search counts facets from them). An
import of papers then links inserts every paper with no links and, at its end,
`refresh_counts()` would rewrite the row of each paper that has some (over 40% of the
archive's papers), each update a
copy of a 3.5 KB row with its abstract and search vector; and on PostgreSQL those writes
would wait for the GIN index built beside the import's last files (gin_side) and then
maintain it. So an import into a PostgreSQL database with no papers first has a forked
child read the import's links files (`links-between-papers-and-code`, parsed as the
import parses them) and count each paper's distinct repositories, official
ones and frameworks, while the writer starts on the papers. Once the counts arrive, each
new paper's row is inserted with them (the session hands the child to the writer:
papers.archive.write.papers.LinkForecast).

They are a forecast, not the record: `refresh_counts()` still reads every paper the
import wrote at its end and rewrites the rows whose counts differ (papers inserted
before the forecast arrived, records files' samples and links, files that failed
part-way). So the end state is the same with or without it, and the child may fail, be
missing or be slow at no cost but the time. The same child also tells each file's kind
early (`kinds()`), so the importer knows, before the last papers are written, which of
the files still to come will write papers.

On SQLite the counting costs more than the rewrite it spares (two runs each: 233.6 s
on average without it, 240.0 s with it), so SQLite imports do without.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import time
from collections import Counter
from pathlib import Path

from papers.archive.children import die_with
from papers.archive.read.parsers import LinkIn
from papers.archive.read.pipeline import KIND, OK, events
from papers.archive.read.readers import ArchiveReader
from papers.archive.write.papers import pack


class LinkCounts:
    """The forked child that forecasts the counts (None where it failed): the writer's
    LinkForecast (papers.archive.write.papers), packed as it unpacks them."""

    def __init__(self, paths: list[Path], kind: str | None):
        self.child = None
        self._kinds: list[str | None] | None = None
        self._counts: dict[str, int] | None = None
        self.shapes: list[dict[str, int]] = [{}]  # the packed forecasts' frameworks
        self._kinds_waited = False
        if "fork" not in multiprocessing.get_all_start_methods():
            return
        context = multiprocessing.get_context("fork")
        self.reader, writer = context.Pipe(duplex=False)
        self.child = context.Process(
            target=_count,
            args=(list(paths), kind, writer, os.getpid()),
            name="import-link-counts",
            daemon=True,
        )
        self.child.start()
        writer.close()

    def _receive(self) -> None:
        if self.child is None:
            return
        try:
            while self.reader.poll():
                tag, payload = self.reader.recv()
                if tag == "kinds":
                    self._kinds = payload
                else:
                    self._counts, self.shapes = payload
                    self.close()
                    return
        except (EOFError, OSError):  # the child failed: no forecast
            self.close()

    def kinds(self, timeout: float = 10.0) -> list[str | None] | None:
        """Each file's kind (None: unreadable or unknown). The child reads them first,
        from each file's first record: this waits for them (up to `timeout`)."""
        if not self._kinds_waited:
            self._kinds_waited = True  # once: a child that is that slow has failed
            self._wait(lambda: self._kinds is not None, timeout)
        elif self._kinds is None:
            self._receive()
        return self._kinds

    def counts(self) -> dict[str, int] | None:
        """{paper slug: pack(links, official, shape)} over every links file of the
        import (`unpack()` them with `shapes`), or None until the child has sent them.
        The caller may take entries out as it uses them."""
        if self._counts is None:
            self._receive()
        return self._counts

    def wait(self, timeout: float = 60.0) -> dict[str, int] | None:
        """The counts once the child has sent them (None if it failed or took too long)."""
        self._wait(lambda: self._counts is not None, timeout)
        return self._counts

    def _wait(self, done, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not done() and self.child is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.reader.poll(remaining):
                return
            self._receive()

    def close(self) -> None:
        if self.child is not None:
            if self.child.is_alive():
                self.child.kill()
            self.child.join()
            self.reader.close()
            self.child = None


def _kind(path: Path, kind: str | None) -> str | None:
    if kind is not None:
        return kind
    try:
        for event in events(path, None, ArchiveReader(path)):
            if event[0] == KIND:
                return event[1]
    except Exception:  # the writer reports the file's error in its turn
        return None
    return None


def _count(paths: list[Path], kind: str | None, channel, parent: int) -> None:
    die_with(parent)
    kinds = [_kind(path, kind) for path in paths]
    channel.send(("kinds", kinds))
    # (slug, repository url) → the last record's (is_official, framework)
    last: dict[tuple[str, str], tuple[bool, str]] = {}
    for path, file_kind in zip(paths, kinds, strict=True):
        if file_kind != "links":
            continue
        try:
            for event in events(path, file_kind, ArchiveReader(path)):
                if event[0] == OK and isinstance(event[1], LinkIn):
                    link = event[1]
                    last[link.paper.slug, link.repo.url] = (
                        bool(link.fields["is_official"]),
                        link.fields.get("framework") or "",
                    )
        except Exception:
            pass  # what was read of a broken file is still a forecast
    # Paper by paper, in slug order: a Counter of frameworks for every paper with code,
    # all held at once, would outweigh the packed counts many times over.
    shapes: dict[tuple, int] = {(): 0}
    counts = {}
    for slug, group in itertools.groupby(sorted(last.items()), key=lambda item: item[0][0]):
        n, official, frameworks = 0, False, Counter()
        for _, (is_official, framework) in group:
            n += 1
            official = official or is_official
            if framework:
                frameworks[framework] += 1
        index = shapes.setdefault(tuple(sorted(frameworks.items())), len(shapes))
        counts[slug] = pack(n, official, index)
    del last
    channel.send(("counts", (counts, [dict(shape) for shape in shapes])))
    channel.close()
