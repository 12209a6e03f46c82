"""Source against database: what the database holds of the records some files give.

For each file, read with the importer's own readers and parsers: how many records it
gives and rejects, how many distinct records they are (a record may be given twice), how
many the database holds and which are lost, which distinct records share one row (merged),
which are hidden, which leaderboard rows cannot be ranked, and which of the file's keys
carry values the database does not keep (dropped). Run it after importing the files, on
that database (`manage.py fidelity_report FILE…`, or with `--scratch` in a fresh one).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers import PARSERS, EvaluationIn, LeaderboardIn, TaskIn
from papers.archive.read.readers import ArchiveReader, detect_kind, unparseable
from papers.archive.write.identity import DatasetNames, dataset_slug
from papers.db import chunks, select_rows
from papers.metrics import read_value
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardRow,
    Method,
    Paper,
    Task,
    TaskEdge,
)

# The keys each kind's parser reads; another key with a value is data the import drops.
READ = {
    "papers": {
        "paper_url",
        "id",
        "arxiv_id",
        "title",
        "abstract",
        "short_abstract",
        "authors",
        "date",
        "published",
        "proceeding",
        "conference",
        "conference_url_abs",
        "conference_url_pdf",
        "url_abs",
        "url_pdf",
        "tasks",
        "methods",
        "nips_id",
        "openreview_id",
    },
    "links": {
        "paper_url",
        "paper_title",
        "paper_arxiv_id",
        "paper_url_abs",
        "paper_url_pdf",
        "repo_url",
        "is_official",
        "mentioned_in_paper",
        "mentioned_in_github",
        "framework",
    },
    "methods": {
        "url",
        "id",
        "name",
        "full_name",
        "description",
        "paper",
        "introduced_year",
        "source_url",
        "source_title",
        "code_snippet_url",
        "num_papers",
        "collections",
    },
    # Records and datasets keep the keys they do not model (in `extra`).
    "datasets": None,
    "records": None,
    "evaluation-tables": {
        "task",
        "description",
        "categories",
        "source_link",
        "datasets",
        "subtasks",
        "url",
    },
}
READ_BOARD = {
    "dataset", "subdataset", "dataset_url", "description", "dataset_links",
    "dataset_citations", "sota", "subdatasets",
}  # fmt: skip
READ_ROW = {
    "model_name", "metrics", "paper_title", "paper_url", "paper_date", "code_links",
    "model_links", "uses_additional_data",
}  # fmt: skip
# Keys some sources add that are not Papers with Code's: kept out on purpose.
NOT_ARCHIVE = {
    "area": "a label the crawler's author added (1pha)",
    "task_id": "a label the crawler's author added (1pha)",
    "synonyms": "always empty in the dumps seen",
}
EXAMPLES = 5


@dataclass
class FileReport:
    path: str
    kind: str = ""
    records: int = 0
    rejected: int = 0
    distinct: int = 0
    repeated: int = 0
    found: int = 0
    lost: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)
    not_archive: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        return not (self.lost or self.merged or self.dropped or self.error)

    def lines(self) -> Iterator[str]:
        yield f"{self.path}: {self.kind or 'unknown kind'}"
        if self.error:
            yield f"  NOT READ: {self.error}"
            return
        yield (
            f"  records {self.records:,}, rejected {self.rejected:,}, distinct "
            f"{self.distinct:,} ({self.repeated:,} given again), in the database "
            f"{self.found:,}"
        )
        for label, items in (("lost", self.lost), ("merged", self.merged),
                             ("hidden", self.hidden)):  # fmt: skip
            shown = "; ".join(items[:EXAMPLES]) + (" …" if len(items) > EXAMPLES else "")
            yield f"  {label}: {len(items):,}" + (f" ({shown})" if items else "")
        dropped = ", ".join(f"{key} ({count:,})" for key, count in self.dropped.most_common())
        yield f"  dropped fields: {dropped or 'none'}"
        if self.not_archive:
            kept_out = ", ".join(
                f"{key} ({count:,}: {NOT_ARCHIVE[key.rsplit('.', 1)[-1]]})"
                for key, count in self.not_archive.most_common()
            )
            yield f"  not kept by design: {kept_out}"
        for note in self.notes:
            yield f"  {note}"


def _has_value(value: Any) -> bool:
    return value not in (None, "", [], {})


def _drops(report: FileReport, raw: dict, read: set[str], prefix: str = "") -> None:
    for key, value in raw.items():
        if key in read or not _has_value(value):
            continue
        if key in NOT_ARCHIVE:
            report.not_archive[prefix + key] += 1
        else:
            report.dropped[prefix + key] += 1


def _records(path: Path, kind: str | None, report: FileReport) -> Iterator[tuple[dict, Any]]:
    """(raw, parsed) for each record the importer would take."""
    for item in ArchiveReader(path).items():
        report.records += 1
        if unparseable(item.data) is not None:
            report.rejected += 1
            continue
        if not report.kind:
            report.kind = kind or detect_kind(item.data) or ""
            if not report.kind:
                raise RecordError("(record)", "cannot tell which archive file this is")
        try:
            yield item.data, PARSERS[report.kind](item.data)
        except RecordError:
            report.rejected += 1


def reports(paths: list[Path | str], kind: str | None = None) -> list[FileReport]:
    """A report per file, in order. Files are taken as imported in that order: a board a
    later file gives again is that file's (its rows replaced this one's)."""
    out: list[FileReport] = []
    later: set[int] = set()  # boards given by the files after the one at hand
    for path in reversed(paths):
        report = FileReport(str(path), kind or "")
        out.append(report)
        try:
            items = list(_records(Path(path), kind, report))
        except Exception as exc:  # an unreadable file is a line of the report, not a crash
            report.error = str(exc)
            continue
        if report.kind == "evaluation-tables":
            later |= _evaluations(report, items, later)
            continue
        check = {
            "papers": _papers,
            "records": _papers,
            "links": _links,
            "methods": _methods,
            "datasets": _datasets,
        }[report.kind]
        check(report, items)
    return out[::-1]


# --- papers, records and links -------------------------------------------------------------


def _papers(report: FileReport, items: list[tuple[dict, Any]]) -> None:
    keys: dict[str, Any] = {}
    for raw, parsed in items:
        paper = parsed if report.kind == "papers" else parsed.paper
        key = f"arXiv {paper.fields['arxiv_id']}" if paper.by_arxiv else paper.slug
        report.repeated += key in keys
        keys[key] = paper
        if READ[report.kind] is not None:
            _drops(report, raw, READ[report.kind])
    report.distinct = len(keys)
    slugs = {k: p.slug for k, p in keys.items() if not p.by_arxiv}
    arxivs = {k: p.fields["arxiv_id"] for k, p in keys.items() if p.by_arxiv}
    by_slug = {r["slug"]: r for r in select_rows(Paper, "slug", slugs.values(),
                                                  ["id", "slug", "hidden"])}  # fmt: skip
    by_arxiv = {}
    for row in select_rows(Paper, "arxiv_id", arxivs.values(), ["id", "arxiv_id", "hidden"]):
        by_arxiv.setdefault(row["arxiv_id"], row)
    rows: dict[int, list[str]] = defaultdict(list)
    for key in keys:
        row = by_slug.get(slugs[key]) if key in slugs else by_arxiv.get(arxivs[key])
        if row is None:
            report.lost.append(key)
            continue
        report.found += 1
        rows[row["id"]].append(key)
        if row["hidden"]:
            report.hidden.append(key)
    report.merged = [" + ".join(keys_) for keys_ in rows.values() if len(keys_) > 1]


def _links(report: FileReport, items: list[tuple[dict, Any]]) -> None:
    keys = {}
    for raw, link in items:
        key = (link.paper.slug, link.repo.url)
        report.repeated += key in keys
        keys[key] = link
        _drops(report, raw, READ["links"])
    report.distinct = len(keys)
    papers = {r["slug"]: r["id"] for r in select_rows(
        Paper, "slug", {slug for slug, _ in keys}, ["id", "slug"])}  # fmt: skip
    from papers.models import CodeLink

    stored = set()
    for part in chunks(sorted(set(papers.values()))):
        stored.update(
            CodeLink.objects.filter(paper_id__in=part).values_list(
                "paper__slug", "repository__url"
            )
        )
    for key in keys:
        if key in stored:
            report.found += 1
        else:
            report.lost.append(f"{key[0]} → {key[1]}")


# --- methods and datasets ------------------------------------------------------------------


def _methods(report: FileReport, items: list[tuple[dict, Any]]) -> None:
    keys = {}
    placeholders = 0
    for raw, method in items:
        report.repeated += method.slug in keys
        keys[method.slug] = method
        placeholders += bool(method.fields.get("year_uncertain"))
        _drops(report, raw, READ["methods"])
    report.distinct = len(keys)
    stored = {r["slug"]: r for r in select_rows(Method, "slug", keys, ["slug", "hidden"])}
    for slug, method in keys.items():
        row = stored.get(slug)
        if row is None:
            report.lost.append(slug)
            continue
        report.found += 1
        if row["hidden"]:
            report.hidden.append(f"{method.fields['name']} ({slug})")
    report.notes.append(f"placeholder years (2000, shown as unknown): {placeholders:,}")


def _datasets(report: FileReport, items: list[tuple[dict, Any]]) -> None:
    by_url, by_name = {}, {}
    for _raw, dataset in items:
        if dataset.slug:
            report.repeated += dataset.slug in by_url
            by_url[dataset.slug] = dataset
        else:
            name = dataset.fields["name"]
            report.repeated += name in by_name
            by_name[name] = dataset
    report.distinct = len(by_url) + len(by_name)
    only = ["id", "slug", "name", "hidden"]
    rows: dict[int, list[str]] = defaultdict(list)
    for row in select_rows(Dataset, "slug", by_url, only):
        rows[row["id"]].append(row["slug"])
        if row["hidden"]:
            report.hidden.append(row["name"])
    report.lost += sorted(set(by_url) - {k for keys in rows.values() for k in keys})
    named: dict[str, dict] = {}
    for row in sorted(select_rows(Dataset, "name", by_name, only), key=lambda r: r["id"]):
        best = named.get(row["name"])
        if best is None or row["slug"] == dataset_slug(row["name"]) != best["slug"]:
            named[row["name"]] = row
    for name in by_name:
        row = named.get(name)
        if row is None:
            report.lost.append(name)
            continue
        rows[row["id"]].append(name)
        if row["hidden"]:
            report.hidden.append(name)
    report.found = report.distinct - len(report.lost)
    report.merged = [" + ".join(keys) for keys in rows.values() if len(keys) > 1]
    if by_name:
        report.notes.append(
            f"known by name only: {len(by_name):,} (a name given again is the same dataset)"
        )


# --- evaluation tables ---------------------------------------------------------------------


def _evaluations(
    report: FileReport, items: list[tuple[dict, EvaluationIn]], later: set[int]
) -> set[int]:
    """Returns the boards the file gives."""
    nodes: dict[tuple[str, ...], TaskIn] = {}
    boards: dict[tuple, Any] = {}
    for raw, ev in items:
        for node in ev.tasks:
            if node.path in nodes and not node.reference:
                report.repeated += 1
            if node.path not in nodes or not node.reference:
                nodes[node.path] = node
        for lb in ev.leaderboards:
            boards[(lb.task, lb.dataset)] = lb
        _walk_drops(report, raw, "")
    report.distinct = len(nodes)
    tasks = _task_ids(nodes)
    by_task: dict[int, list[tuple[str, ...]]] = defaultdict(list)
    for path in nodes:
        task_id = tasks.get(path)
        if task_id is None:
            report.lost.append("task " + " / ".join(path))
            continue
        report.found += 1
        by_task[task_id].append(path)
    for paths in by_task.values():
        keys = {nodes[p].content_key for p in paths if not nodes[p].reference}
        if len(keys) > 1:  # one task for nodes that hold different things
            report.merged.append(" + ".join(" / ".join(p) for p in paths))
    return _boards(report, boards, tasks, later)


def _walk_drops(report: FileReport, raw: dict, prefix: str) -> None:
    _drops(report, raw, READ["evaluation-tables"], prefix)
    for board in n.obj_list(raw.get("datasets"), "datasets"):
        _board_drops(report, board, prefix + "datasets[].")
    for sub in n.obj_list(raw.get("subtasks"), "subtasks"):
        _walk_drops(report, sub, prefix + "subtasks[].")


def _board_drops(report: FileReport, board: dict, prefix: str) -> None:
    _drops(report, board, READ_BOARD, prefix)
    for row in n.obj_list((board.get("sota") or {}).get("rows"), "rows"):
        _drops(report, row, READ_ROW, prefix + "sota.rows[].")
    for sub in n.obj_list(board.get("subdatasets"), "subdatasets"):
        _board_drops(report, sub, prefix + "subdatasets[].")


def _task_ids(nodes: dict[tuple[str, ...], TaskIn]) -> dict[tuple[str, ...], int]:
    """Each node's task, found as the importer placed it: a top-level task by its slug,
    a subtask among its parent's children by name."""
    roots = {p: node.slug or n.slug_of(p[0]) for p, node in nodes.items() if len(p) == 1}
    ids = {r["slug"]: r["id"] for r in select_rows(Task, "slug", roots.values(), ["id", "slug"])}
    found = {p: ids[slug] for p, slug in roots.items() if slug in ids}
    children: dict[tuple[int, str], int] = {}
    for parent, child, name in TaskEdge.objects.values_list(
        "parent_id", "child_id", "child__name"
    ):
        children[(parent, name)] = child
        children.setdefault((parent, n.slug_of(name)), child)
    for path in sorted((p for p in nodes if len(p) > 1), key=len):
        parent = found.get(path[:-1])
        node = nodes[path]
        if node.slug:
            slug_ids = select_rows(Task, "slug", [node.slug], ["id"])
            if slug_ids:
                found[path] = slug_ids[0]["id"]
        elif parent is not None:
            child = children.get((parent, path[-1])) or children.get((parent, n.slug_of(path[-1])))
            if child is not None:
                found[path] = child
    return found


def _unranked(lb: LeaderboardIn, examples: list[str]) -> int:
    """How many of the board's rows have a value its first metric cannot rank (the first
    EXAMPLES of them, all boards together, go into `examples`)."""
    unranked = 0
    for row in lb.rows if lb.metrics else ():
        raw = row["metrics"].get(lb.metrics[0])
        if _has_value(raw) and read_value(raw) is None:
            unranked += 1
            if len(examples) < EXAMPLES:
                examples.append(f"{lb.metrics[0]} = {raw!r}")
    return unranked


def _boards(report: FileReport, boards: dict, tasks: dict, later: set[int]) -> set[int]:
    names = {lb.dataset[0] for lb in boards.values() if not lb.dataset[1]}
    slugs = {lb.dataset[1] for lb in boards.values() if lb.dataset[1]}
    by_name, _ = DatasetNames().find(names)
    by_slug = {r["slug"]: r["id"] for r in select_rows(Dataset, "slug", slugs, ["id", "slug"])}
    stored = {
        (b["task_id"], b["dataset_id"]): b["id"]
        for b in Leaderboard.objects.values("id", "task_id", "dataset_id")
    }
    rows_of = Counter(LeaderboardRow.objects.values_list("leaderboard_id", flat=True))
    seen: dict[int, list] = defaultdict(list)
    found = unranked = replaced = 0
    examples: list[str] = []
    for (path, dataset), lb in boards.items():
        label = f"{' / '.join(path)} on {dataset[0]}"
        dataset_id = by_slug.get(dataset[1]) if dataset[1] else by_name.get(dataset[0])
        board_id = stored.get((tasks.get(path), dataset_id))
        if board_id is None:
            report.lost.append("board " + label)
            continue
        found += 1
        seen[board_id].append((label, lb))
        unranked += _unranked(lb, examples)
        if board_id in later:
            replaced += 1
        elif rows_of[board_id] < len(lb.rows):
            report.lost.append(f"{len(lb.rows) - rows_of[board_id]} rows of {label}")
    for given in seen.values():
        if len({(len(lb.rows), tuple(lb.metrics)) for _, lb in given}) > 1:
            report.merged.append(" + ".join(label for label, _ in given))
    mine = [board_id for board_id in seen if board_id not in later]
    report.notes.append(
        f"boards {len(boards):,} (in the database {found:,}; {replaced:,} of them given "
        "again by a later file, whose rows they now hold)"
    )
    report.notes.append(
        f"rows {sum(len(lb.rows) for lb in boards.values()):,}; of the boards no later file "
        f"gives, {sum(len(seen[b][-1][1].rows) for b in mine):,} "
        f"(in the database {sum(rows_of[b] for b in mine):,})"
    )
    report.notes.append(
        f"rows whose value cannot be ranked (kept, shown as given): {unranked:,}"
        + (f" ({'; '.join(examples)})" if examples else "")
    )
    return set(seen)
