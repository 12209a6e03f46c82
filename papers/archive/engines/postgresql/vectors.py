"""PostgreSQL: compute papers' search vectors on a second connection, ahead of the writer.

The papers table's trigger computes each paper's search vector (`to_tsvector` of title,
abstract and authors, migration 0007) in the backend of the connection that inserts it,
and while it does the writer waits (a sixth or so of a full import without this).
`ahead()` runs the stream of parsed records through a thread that holds its
own connection: for each chunk of papers it asks that connection for the vectors of the
text the writer is about to insert (`papers_search_vector()`, the trigger's own
function) and hands the chunk on with them, so the server computes batch N+1's vectors
on the second core while the writer writes batch N. The writer inserts the vector with
the row, and its session (`cwp.search_vectors_given = on`, set by the importer) has the
trigger keep it.

Each paper carries the text its vector was computed from, and the loader gives the
vector only for a row whose title, abstract and author names are exactly that text (two
records of one paper merged in a batch, say, are not): any other row's vector is left to
the trigger, as is every vector when the second connection cannot be had or fails. So
the vectors are the trigger's whatever happens here; only the time differs.

The thread reads the stream up to QUEUE_CHUNKS chunks ahead, in order (a chunk is CHUNK
papers, or OTHERS records of another kind); an error the stream raises (a file that cannot
be read) reaches the writer at the same point of it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator

import psycopg
from django.db import DatabaseError, connection, connections

from papers.archive.read.parsers import PaperIn
from papers.archive.read.pipeline import OK

CHUNK = 500  # papers per round trip to the second connection
# Records of other kinds (code links, evaluation tables, execution records) need no
# vector: they travel in chunks this small, so that the records read ahead stay few
# whatever they weigh (an execution record holds its samples, an evaluation table its
# whole tree; 8 chunks of 2,000 of them once held ~150 MB).
OTHERS = 64
QUEUE_CHUNKS = 8  # how far (in chunks) the thread may read ahead of the writer
# The texts go as binary text[] parameters bound by the server (%b, a plain psycopg
# cursor), not as array literals that Django's client-side binding quotes into the SQL:
# a quarter of this process's CPU, and the server skips parsing the literals. This
# thread holds the GIL while it quotes, so the writer's Python would pay for it too.
VECTORS_SQL = (
    "SELECT papers_search_vector(t, a, n)::text "
    "FROM unnest(%b::text[], %b::text[], %b::text[]) WITH ORDINALITY AS u(t, a, n, i) "
    "ORDER BY i"
)
_EVENTS, _ERROR, _END = "events", "error", "end"


def search_text(paper: PaperIn, title_default: str, abstract_default: str) -> tuple[str, str, str]:
    """The (title, abstract, author names) a new paper's row will hold, as the loader
    writes them (papers.archive.write.papers.PaperWriter.write)."""
    title = paper.fields.get("title")
    abstract = paper.fields.get("abstract")
    return (
        title_default if title is None else title,
        abstract_default if abstract is None else abstract,
        ", ".join(paper.authors) if paper.authors else "",
    )


def ahead(events: Iterator[tuple], defaults: dict, wanted: Callable[[], bool]) -> Iterator[tuple]:
    """`events` (papers.archive.read.pipeline) with each paper's `search` set to (title,
    abstract, author names, vector) where the second connection computed it; `wanted()`
    says before each chunk whether to compute its vectors at all."""
    worker = _Ahead(events, defaults["title"], defaults["abstract"], wanted)
    worker.thread.start()
    try:
        while True:
            tag, payload = worker.out.get()
            if tag == _EVENTS:
                yield from payload
            elif tag == _ERROR:
                raise payload
            else:
                return
    finally:
        worker.stop.set()  # the writer stopped early (--strict, an error): so does the thread
        worker.thread.join()


class _Ahead:
    def __init__(self, events, title_default: str, abstract_default: str, wanted):
        self.events = events
        self.wanted = wanted
        self.defaults = (title_default, abstract_default)
        self.out: queue.Queue = queue.Queue(maxsize=QUEUE_CHUNKS)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="import-vectors", daemon=True)
        self.connection = None
        self.unavailable = False

    def _put(self, message: tuple) -> bool:
        while not self.stop.is_set():
            try:
                self.out.put(message, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        chunk: list[tuple] = []
        papers: list[PaperIn] = []
        try:
            for event in self.events:
                if self.stop.is_set():
                    return
                chunk.append(event)
                if event[0] == OK and isinstance(event[1], PaperIn):
                    papers.append(event[1])
                if len(papers) >= CHUNK or len(chunk) - len(papers) >= OTHERS:
                    self._vectors(papers)
                    if not self._put((_EVENTS, chunk)):
                        return
                    chunk, papers = [], []
            self._vectors(papers)
            if self._put((_EVENTS, chunk)):
                self._put((_END, None))
        except BaseException as exc:  # the stream's own error, raised again in the writer
            if self._put((_EVENTS, chunk)):
                self._put((_ERROR, exc))
        finally:
            close = getattr(self.events, "close", None)
            if close is not None:
                close()  # in this thread, which alone ran it (the parser may skip ahead)
            if self.connection is not None:
                self.connection.close()

    def _vectors(self, papers: list[PaperIn]) -> None:
        if not papers or self.unavailable or not self.wanted():
            return
        texts = [search_text(paper, *self.defaults) for paper in papers]
        try:
            if self.connection is None:
                self.connection = connections.create_connection(connection.alias)
                self.connection.ensure_connection()  # autocommit, as Django opens it
            with psycopg.Cursor(self.connection.connection) as cursor:
                cursor.execute(VECTORS_SQL, [list(column) for column in zip(*texts, strict=True)])
                vectors = [row[0] for row in cursor.fetchall()]
        except (DatabaseError, psycopg.Error):
            # No second connection (too many clients, say) or text the server refuses:
            # the trigger computes the rest of this file's vectors, and the writer meets
            # any real error where it always did.
            self.unavailable = True
            return
        for paper, text, vector in zip(papers, texts, vectors, strict=True):
            paper.search = (*text, vector)
