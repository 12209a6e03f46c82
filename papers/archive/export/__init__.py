"""Write the database back out as archive files, in the shapes the importer reads.

`export_kind()` is what `manage.py export_archive` runs. Every kind is read in chunks
of rows keyed by id (`WHERE id > last ORDER BY id LIMIT n`), each chunk with the few
queries its rows need, and written as it is read: memory holds one chunk, never a
table. Evaluation tables are written one top-level task tree at a time, as the
archive nests them (the task graph itself, a few thousand edges, is held whole).

Importing every kind into an empty database gives the same database: each kind
carries what its importer reads, and nothing is written twice in ways that could
disagree (tests/archive/test_export_archive.py compares every model). A record staff edited
says so (`"edited_in_admin": true`, a key the dumps do not have), so that it comes back
edited and later imports of the dumps leave it alone (papers.archive.edits).
"""

from __future__ import annotations

import gzip
import json
import os
import queue
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from django.db.models import Model, Prefetch, QuerySet

from papers.archive.export.records import export_record, records_queryset
from papers.archive.read import normalise as n
from papers.archive.read.parsers import RANK_RECORD
from papers.archive.write.identity import dataset_slug
from papers.models import (
    CodeLink,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    MethodCollection,
    Paper,
    PaperAuthor,
    PaperMethod,
    PaperTask,
    Task,
    TaskEdge,
)

CHUNK = 2000
SITE = "https://paperswithcode.com"  # the archive's own URLs, which the importer reads back
FORMATS = (".json", ".json.gz", ".jsonl", ".jsonl.gz")
# Abstracts compress at ~67 MB/s at level 1 and ~20 MB/s at level 5 (for 17% less), and
# gzip's default of 9 is slower still: a dump is written once and often re-read.
GZIP_LEVEL = 1
BLOCK = 1 << 20  # text handed to the output at a time


# --- output -------------------------------------------------------------------------------


class DumpWriter:
    """A JSON array (.json) or JSON Lines (.jsonl), gzipped for .gz, written to a
    temporary name and renamed into place only once complete.

    Rows are encoded into blocks of about a megabyte. A gzipped file is compressed by a
    second thread (zlib releases the GIL), so reading the database and compressing
    share the machine's two cores; at most QUEUED blocks wait between them.
    """

    QUEUED = 8

    def __init__(self, path: Path):
        self.path = path
        name = path.name.lower()
        if not name.endswith(FORMATS):
            raise ValueError(f"{path}: the name must end with one of {', '.join(FORMATS)}")
        self.lines = ".jsonl" in name
        self.partial = path.with_name(path.name + ".partial")
        self.count = 0
        self._gzip = name.endswith(".gz")
        self._block: list[str] = []
        self._size = 0
        self._file: IO[bytes] | None = None
        self._queue: queue.Queue[bytes | None] | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None

    def __enter__(self) -> DumpWriter:
        if self._gzip:
            self._file = gzip.open(self.partial, "wb", compresslevel=GZIP_LEVEL)
            self._queue = queue.Queue(maxsize=self.QUEUED)
            self._thread = threading.Thread(target=self._compress, daemon=True)
            self._thread.start()
        else:
            self._file = open(self.partial, "wb")
        if not self.lines:
            self._add("[")
        return self

    def write(self, item: Any) -> None:
        text = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        if self.lines:
            self._add(text + "\n")
        else:
            self._add(("\n" if not self.count else ",\n") + text)
        self.count += 1

    def _add(self, text: str) -> None:
        self._block.append(text)
        self._size += len(text)
        if self._size >= BLOCK:
            self._flush()

    def _flush(self) -> None:
        data = "".join(self._block).encode()
        self._block, self._size = [], 0
        if self._queue is None:
            self._file.write(data)
            return
        if self._failure is not None:
            raise self._failure
        self._queue.put(data)

    def _compress(self) -> None:
        while (data := self._queue.get()) is not None:
            if self._failure is None:
                try:
                    self._file.write(data)
                except BaseException as exc:  # handed to the writing thread
                    self._failure = exc

    def __exit__(self, exc_type, exc, tb) -> None:
        complete = False
        try:
            if exc_type is None:
                if not self.lines:
                    self._add("\n]\n" if self.count else "]\n")
                self._flush()
            complete = exc_type is None
        finally:
            if self._thread is not None:
                self._queue.put(None)
                self._thread.join()
            self._file.close()
            if complete and self._failure is None:
                os.replace(self.partial, self.path)
            else:
                self.partial.unlink(missing_ok=True)
        if self._failure is not None and exc_type is None:
            raise self._failure


def export_kind(
    kind: str, path: Path | str, *, progress: Callable[[int], None] | None = None
) -> int:
    """Write every row of one archive kind to `path`; returns how many were written."""
    with DumpWriter(Path(path)) as out:
        for item in WRITERS[kind]():
            out.write(item)
            if progress is not None and out.count % CHUNK == 0:
                progress(out.count)
    return out.count


# --- reading in chunks --------------------------------------------------------------------


def chunked(queryset: QuerySet, size: int | None = None) -> Iterator[list]:
    """The queryset's rows by ascending id, CHUNK at a time (keyset paging: each chunk is
    one indexed range query, however deep into the table)."""
    size = size or CHUNK
    last = 0
    while True:
        rows = list(queryset.filter(id__gt=last).order_by("id")[:size])
        if not rows:
            return
        yield rows
        row = rows[-1]
        last = row["id"] if isinstance(row, dict) else row[0] if isinstance(row, tuple) else row.id


def paper_url(slug: str) -> str:
    return f"{SITE}/paper/{slug}"


def _edited(edited: bool) -> dict[str, bool]:
    """The key that says staff edited a record, written only on records they edited."""
    return {"edited_in_admin": True} if edited else {}


def _or_none(value: Any) -> Any:
    return value if value not in ("", None) else None


def _named(slug: str, name: str) -> str:
    """A name that the importer turns back into this slug: the name itself, or the slug
    where they differ (a staff edit, a dataset whose URL slug is not its name's)."""
    return name if n.slug_of(name) == slug else slug


def _lists(
    model: type[Model], target: str, papers: dict[str, int], names: dict[int, str] | None
) -> dict[int, list[tuple[str, int]]]:
    """Each paper's authors/tasks/methods as its record spells them, with their ids, in
    order.

    `papers` is a paper_id range (a chunk of the whole table), which the index reads as
    one range rather than thousands of bound ids. A row without its own spelling takes
    its target's name: from `names` (tasks and methods, a few thousand, held whole) or
    looked up for just those rows (authors, millions).
    """
    lists: dict[int, list[tuple[str, int]]] = defaultdict(list)
    rows = list(
        model.objects.filter(**papers)
        .order_by("paper_id", "position")
        .values_list("paper_id", "name", f"{target}_id")
    )
    if names is None:
        unnamed = {target_id for _, spelled, target_id in rows if not spelled}
        names = dict(
            model._meta.get_field(target)
            .related_model.objects.filter(id__in=unnamed)
            .values_list("id", "name")
        )
    for paper_id, spelled, target_id in rows:
        lists[paper_id].append((spelled or names[target_id], target_id))
    return lists


# --- papers-with-abstracts ----------------------------------------------------------------

PAPER_VALUES = (
    "id", "slug", "arxiv_id", "nips_id", "openreview_id", "title", "abstract",
    "short_abstract", "url_abs", "url_pdf", "proceeding", "conference", "conference_url_abs",
    "conference_url_pdf", "published", "edited_in_admin",
)  # fmt: skip


def paper_rows() -> Iterator[dict]:
    """Every paper, as the papers-with-abstracts dump writes one (methods by name and full
    name: their descriptions are in the methods dump)."""
    task_names = dict(Task.objects.values_list("id", "name"))
    method_names = dict(Method.objects.values_list("id", "name"))
    full_names = dict(Method.objects.values_list("id", "full_name"))
    for chunk in chunked(Paper.objects.values_list(*PAPER_VALUES)):
        within = {"paper_id__gte": chunk[0][0], "paper_id__lte": chunk[-1][0]}
        authors = _lists(PaperAuthor, "author", within, None)
        tasks = _lists(PaperTask, "task", within, task_names)
        methods = _lists(PaperMethod, "method", within, method_names)
        for (
            pk, slug, arxiv, nips, openreview, title, abstract, short_abstract, url_abs,
            url_pdf, proceeding, conference, conference_url_abs, conference_url_pdf, published,
            edited,
        ) in chunk:  # fmt: skip
            row = {
                # A paper known only by its arXiv id has no Papers with Code URL.
                "paper_url": None if n.arxiv_of_slug(slug) == arxiv else paper_url(slug),
                "arxiv_id": arxiv,
                "nips_id": _or_none(nips),
                "openreview_id": _or_none(openreview),
                "title": title,
                "abstract": abstract,
                "short_abstract": _or_none(short_abstract),
                "url_abs": _or_none(url_abs),
                "url_pdf": _or_none(url_pdf),
                "proceeding": _or_none(proceeding),
                "conference": _or_none(conference),
                "authors": [name for name, _ in authors.get(pk, ())],
                "tasks": [name for name, _ in tasks.get(pk, ())],
                "date": published.isoformat() if published else None,
                "methods": [
                    {"name": name, "full_name": full_names[method_id]}
                    for name, method_id in methods.get(pk, ())
                ],
            }
            if conference_url_abs or conference_url_pdf:  # the API's shape has them
                row["conference_url_abs"] = _or_none(conference_url_abs)
                row["conference_url_pdf"] = _or_none(conference_url_pdf)
            yield row | _edited(edited)


# --- links-between-papers-and-code ----------------------------------------------------------


def link_rows() -> Iterator[dict]:
    links = CodeLink.objects.values(
        "id",
        "paper__slug",
        "paper__title",
        "paper__arxiv_id",
        "paper__url_abs",
        "paper__url_pdf",
        "repository__url",
        "is_official",
        "mentioned_in_paper",
        "mentioned_in_github",
        "framework",
        "edited_in_admin",
    )
    for chunk in chunked(links):
        for row in chunk:
            yield {
                "paper_url": paper_url(row["paper__slug"]),
                "paper_title": row["paper__title"],
                "paper_arxiv_id": row["paper__arxiv_id"],
                "paper_url_abs": _or_none(row["paper__url_abs"]),
                "paper_url_pdf": _or_none(row["paper__url_pdf"]),
                "repo_url": row["repository__url"],
                "is_official": row["is_official"],
                "mentioned_in_paper": row["mentioned_in_paper"],
                "mentioned_in_github": row["mentioned_in_github"],
                "framework": _or_none(row["framework"]),
                **_edited(row["edited_in_admin"]),
            }


# --- paper records (the record format) ------------------------------------------------


def record_rows() -> Iterator[dict]:
    """The papers that came from full records, each as its record."""
    for chunk in chunked(Paper.objects.filter(source_rank=RANK_RECORD).values("id")):
        papers = records_queryset(Paper.objects.filter(id__in=[row["id"] for row in chunk]))
        for paper in papers.order_by("id"):
            yield export_record(paper)


# --- methods and datasets -------------------------------------------------------------------


def _is_stub(row: Dataset) -> bool:
    """A dataset only other records mention, never described by a datasets file: it
    comes back from the records and leaderboards that name it."""
    return not row.in_dump and not row.edited_in_admin


def _paper_ref(title: str, url: str) -> dict | None:
    return {"title": title, "url": url} if title or url else None


def method_rows() -> Iterator[dict]:
    methods = Method.objects.prefetch_related(
        Prefetch(
            "methodcollection_set",
            MethodCollection.objects.select_related("collection").order_by("position", "id"),
        )
    )
    for chunk in chunked(methods):
        for m in chunk:
            yield {
                "url": f"{SITE}/method/{m.slug}",
                "name": m.name,
                "full_name": m.full_name,
                "description": m.description,
                "paper": _paper_ref(m.paper_title, m.paper_url),
                "introduced_year": m.introduced_year,
                "source_url": _or_none(m.source_url),
                "source_title": _or_none(m.source_title),
                "code_snippet_url": _or_none(m.code_snippet_url),
                "num_papers": m.num_papers,
                "collections": [
                    {
                        "collection": link.collection.name,
                        "area_id": link.collection.area_id,
                        "area": link.collection.area,
                        **_edited(link.collection.edited_in_admin),
                    }
                    for link in m.methodcollection_set.all()
                ],
                **_edited(m.edited_in_admin),
            }


def dataset_rows() -> Iterator[dict]:
    datasets = Dataset.objects.prefetch_related(Prefetch("tasks", Task.objects.order_by("id")))
    for chunk in chunked(datasets):
        for d in chunk:
            if _is_stub(d):
                continue
            paper = _paper_ref(d.paper_title, d.paper_url)
            if d.paper_year is not None:
                paper = (paper or {}) | {"year": d.paper_year}
            yield {
                "url": f"{SITE}/dataset/{d.slug}",
                "name": d.name,
                "full_name": d.full_name,
                "homepage": _or_none(d.homepage),
                "description": d.description,
                "paper": paper,
                "introduced_date": d.introduced_date.isoformat() if d.introduced_date else None,
                "modalities": d.modalities,
                "languages": d.languages,
                "variants": d.variants,
                "num_papers": d.num_papers,
                "tasks": [
                    {"task": _named(t.slug, t.name), "url": f"{SITE}/task/{t.slug}"}
                    for t in d.tasks.all()
                ],
                **d.extra,
                **_edited(d.edited_in_admin),
            }


# --- evaluation tables ----------------------------------------------------------------------


class _Taxonomy:
    """Tasks, their edges and leaderboards (without rows), held whole: thousands of rows at
    archive scale, whatever the number of papers."""

    def __init__(self):
        self.tasks = {t["id"]: t for t in Task.objects.values().order_by("id")}
        self.children: dict[int, list[int]] = defaultdict(list)
        self.has_parent: set[int] = set()
        for parent, child in TaskEdge.objects.order_by("parent_id", "position", "id").values_list(
            "parent_id", "child_id"
        ):
            self.children[parent].append(child)
            self.has_parent.add(child)
        self.boards: dict[int, list[dict]] = defaultdict(list)  # task id → top-level boards
        self.subboards: dict[int, list[dict]] = defaultdict(list)  # board id → its splits
        for board in Leaderboard.objects.values().order_by("task_id", "position", "id"):
            if board["parent_id"] is None:
                self.boards[board["task_id"]].append(board)
            else:
                self.subboards[board["parent_id"]].append(board)
        self.metrics: dict[int, list[str]] = defaultdict(list)
        for board_id, name in LeaderboardMetric.objects.order_by(
            "leaderboard_id", "position", "id"
        ).values_list("leaderboard_id", "name"):
            self.metrics[board_id].append(name)
        # A board names its dataset, and gives its URL where the name would not lead the
        # importer to it (papers.archive.write.identity).
        self.datasets = {
            pk: {"dataset": name}
            if dataset_slug(name) == slug
            else {"dataset": name, "dataset_url": f"{SITE}/dataset/{slug}"}
            for pk, slug, name in Dataset.objects.filter(leaderboards__isnull=False)
            .distinct()
            .values_list("id", "slug", "name")
        }
        self.written: set[int] = set()


def evaluation_rows() -> Iterator[dict]:
    """One task tree per top-level task, as the evaluation-tables dump nests them.

    A subtask under several parents is written in full once and named (for the edge)
    under the others; tasks only reachable through a cycle start trees of their own.
    """
    tax = _Taxonomy()
    roots = [pk for pk in tax.tasks if pk not in tax.has_parent]
    for pk in [*roots, *tax.tasks]:
        if pk not in tax.written:
            yield _task_tree(tax, pk, _rows_of_tree(tax, pk))


def _rows_of_tree(tax: _Taxonomy, root: int) -> dict[int, list[dict]]:
    """Every leaderboard row of the tasks this tree will write in full: one query."""
    task_ids, stack = set(), [root]
    while stack:
        pk = stack.pop()
        if pk in task_ids or pk in tax.written:
            continue
        task_ids.add(pk)
        stack.extend(tax.children.get(pk, []))
    rows: dict[int, list[dict]] = defaultdict(list)
    for row in (
        LeaderboardRow.objects.filter(leaderboard__task_id__in=task_ids)
        .order_by("leaderboard_id", "position", "id")
        .values(
            "leaderboard_id",
            "model_name",
            "metrics",
            "paper_title",
            "paper_url",
            "paper_date",
            "code_links",
            "model_links",
            "uses_additional_data",
            "edited_in_admin",
        )
    ):
        edited = row.pop("edited_in_admin")
        rows[row.pop("leaderboard_id")].append(row | _edited(edited))
    return rows


def _task_name(task: dict) -> dict:
    """A task's name, and its URL where the name alone would not lead the importer to
    its slug (a subtask qualified by its parent's, a name staff changed)."""
    if n.slug_of(task["name"]) == task["slug"]:
        return {"task": task["name"]}
    return {"task": task["name"], "url": f"{SITE}/task/{task['slug']}"}


def _task_tree(tax: _Taxonomy, pk: int, rows: dict[int, list[dict]]) -> dict:
    """A task in full, or named only if written already."""
    task = tax.tasks[pk]
    if pk in tax.written:
        return _task_name(task)
    tax.written.add(pk)
    return {
        **_task_name(task),
        "description": task["description"],
        "categories": task["categories"],
        "source_link": (
            {"title": task["source_link_title"] or None, "url": task["source_link"]}
            if task["source_link"]
            else None
        ),
        "datasets": [_board(tax, board, rows, set()) for board in tax.boards.get(pk, [])],
        "subtasks": [_task_tree(tax, child, rows) for child in tax.children.get(pk, [])],
        **_edited(task["edited_in_admin"]),
    }


def _board(tax: _Taxonomy, board: dict, rows: dict[int, list[dict]], seen: set[int]) -> dict:
    seen.add(board["id"])
    return {
        **tax.datasets[board["dataset_id"]],
        "description": board["description"],
        "dataset_citations": board["dataset_citations"],
        "dataset_links": board["dataset_links"],
        "sota": {"metrics": tax.metrics.get(board["id"], []), "rows": rows.get(board["id"], [])},
        "subdatasets": [
            _board(tax, sub, rows, seen)
            for sub in tax.subboards.get(board["id"], [])
            if sub["id"] not in seen
        ],
        **_edited(board["edited_in_admin"]),
    }


WRITERS: dict[str, Callable[[], Iterable[dict]]] = {
    "records": record_rows,
    "papers": paper_rows,
    "links": link_rows,
    "evaluation-tables": evaluation_rows,
    "methods": method_rows,
    "datasets": dataset_rows,
}
