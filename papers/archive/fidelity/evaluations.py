"""An evaluation-tables file against the database: its tasks, as the database holds them
(a subtask repeated under several parents is one task); its boards, as the importer
merges them (a board given again in the file, or named again with another case or
spacing, is one board holding every row); their rows, values and directions."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from papers.archive.fidelity.report import FileReport
from papers.archive.read import normalise as n
from papers.archive.read.parsers import EvaluationIn, LeaderboardIn, TaskIn
from papers.archive.write.evaluations import GivenBoard
from papers.archive.write.identity import DatasetNames
from papers.db import chunks, select_rows
from papers.metrics import contradicts, inferred_direction, is_cost
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Task,
    TaskEdge,
    unranked_values,
)

READ = {"task", "description", "categories", "source_link", "datasets", "subtasks", "url"}
READ_BOARD = {
    "dataset", "subdataset", "dataset_url", "description", "dataset_links",
    "dataset_citations", "sota", "subdatasets",
}  # fmt: skip
READ_ROW = {
    "model_name", "metrics", "paper_title", "paper_url", "paper_date", "code_links",
    "model_links", "uses_additional_data",
}  # fmt: skip
# Our exports say which records staff edited (papers.archive.edits), which is read too.
for _read in (READ, READ_BOARD, READ_ROW):
    _read.add("edited_in_admin")
# Where each read value is kept: the parsed field (task and board fields, row keys) the
# database must hold whenever the file gives one.
STORED_TASK = ("description", "categories", "source_link")
STORED_BOARD = ("description", "dataset_links", "dataset_citations")
STORED_ROW = (
    "model_name", "paper_title", "paper_url", "paper_date", "metrics", "code_links",
    "model_links", "uses_additional_data",
)  # fmt: skip
LISTED = 20  # direction overrides and contradictions listed by name
_NUMBERED = re.compile(r" #\d+$")


def check(report: FileReport, items: list[tuple[dict, EvaluationIn]], later: set[int]) -> set[int]:
    """Fill the report; returns the boards the file gives rows (a later file's board
    replaces an earlier one's rows unless it gives none)."""
    nodes: dict[tuple[str, ...], TaskIn] = {}
    boards: list[LeaderboardIn] = []
    for raw, ev in items:
        for node in ev.tasks:
            if node.path not in nodes or not node.reference:
                nodes[node.path] = node
        boards += ev.leaderboards
        _walk_drops(report, raw, "")
    tasks = _task_ids(nodes)
    by_task: dict[int, list[tuple[str, ...]]] = defaultdict(list)
    for path in nodes:
        task_id = tasks.get(path)
        if task_id is None:
            report.lost.append("task " + " / ".join(path))
        else:
            by_task[task_id].append(path)
    report.distinct = len(by_task) + len(report.lost)
    report.found = len(by_task)
    report.repeated = len(nodes) - report.distinct
    for paths in by_task.values():
        keys = {nodes[p].content_key for p in paths if not nodes[p].reference}
        if len(keys) > 1:  # one task for nodes that hold different things
            report.merged.append(" + ".join(" / ".join(p) for p in paths))
    _stored_tasks(report, nodes, tasks)
    return _boards(report, boards, tasks, later)


def _walk_drops(report: FileReport, raw: dict, prefix: str) -> None:
    report.drops(raw, READ, prefix)
    for board in n.obj_list(raw.get("datasets"), "datasets"):
        _board_drops(report, board, prefix + "datasets[].")
    for sub in n.obj_list(raw.get("subtasks"), "subtasks"):
        _walk_drops(report, sub, prefix + "subtasks[].")


def _board_drops(report: FileReport, board: dict, prefix: str) -> None:
    report.drops(board, READ_BOARD, prefix)
    for row in n.obj_list((board.get("sota") or {}).get("rows"), "rows"):
        report.drops(row, READ_ROW, prefix + "sota.rows[].")
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


def _stored_tasks(report: FileReport, nodes: dict, tasks: dict) -> None:
    stored = {
        row["id"]: row
        for row in select_rows(Task, "id", set(tasks.values()), ["id", *STORED_TASK])
    }
    for path, node in nodes.items():
        row = stored.get(tasks.get(path))
        if row is not None:
            report.not_stored_of(node.fields, row, STORED_TASK, "")


def _label(lb: LeaderboardIn) -> str:
    return f"{' / '.join(lb.task)} on {lb.dataset[0]}"


def _board_ids(boards: list[LeaderboardIn], tasks: dict) -> dict[int, int | None]:
    """Each occurrence's board (by its index), found as the importer keyed it."""
    names = {lb.dataset[0] for lb in boards if not lb.dataset[1]}
    slugs = {lb.dataset[1] for lb in boards if lb.dataset[1]}
    by_name, _ = DatasetNames().find(names)
    by_slug = {r["slug"]: r["id"] for r in select_rows(Dataset, "slug", slugs, ["id", "slug"])}
    stored = {
        (b["task_id"], b["dataset_id"]): b["id"]
        for b in Leaderboard.objects.values("id", "task_id", "dataset_id")
    }
    out = {}
    for index, lb in enumerate(boards):
        name, slug = lb.dataset
        dataset = by_slug.get(slug) if slug else by_name.get(name)
        out[index] = stored.get((tasks.get(lb.task), dataset))
    return out


def _boards(
    report: FileReport, boards: list[LeaderboardIn], tasks: dict, later: set[int]
) -> set[int]:
    at = _board_ids(boards, tasks)
    given: dict[int, list[LeaderboardIn]] = defaultdict(list)
    lost_boards = 0
    for index, lb in enumerate(boards):
        if at[index] is None:
            report.lost.append("board " + _label(lb))
            lost_boards += 1
        else:
            given[at[index]].append(lb)
    spelt_again = 0
    for occurrences in given.values():
        folded = {" ".join(lb.dataset[0].split()).casefold() for lb in occurrences}
        if len(folded) > 1:  # distinct names in one board: the importer merged records
            report.merged.append(" + ".join(_label(lb) for lb in occurrences))
        spelt_again += len({lb.dataset[0] for lb in occurrences}) > 1
    with_rows = {board for board, occ in given.items() if any(lb.rows for lb in occ)}
    mine = [board for board in with_rows if board not in later]
    expected = {board: _expected_rows(board, given[board]) for board in mine}
    lost_rows = _rows_lost(report, expected, given)
    _split(report, {tasks[lb.task] for lb in boards if lb.task in tasks})
    _board_fields(report, given)
    unranked = _unranked(report, mine)
    rows_given = sum(len(lb.rows) for lb in boards)
    report.notes.append(
        f"boards {len(boards):,} given, {len(given):,} in the database ("
        f"{len(boards) - len(given) - lost_boards:,} given again in this file and "
        f"merged into the first, {spelt_again:,} of them spelt another way); "
        f"{len(with_rows & later):,} given again by a later file, whose rows they now hold; "
        f"{len(given) - len(with_rows):,} given without rows (which replace nothing)"
    )
    report.notes.append(
        f"rows {rows_given:,} given, {sum(len(k) for k in expected.values()):,} distinct on "
        f"the boards no later file gives, of which the database lacks {lost_rows:,}"
    )
    report.notes.append(
        f"values that cannot be ranked (kept, shown as given): {unranked:,}"
        + (f" ({'; '.join(report.unranked)})" if report.unranked else "")
    )
    _directions(report, mine)
    return with_rows


def _expected_rows(board_id: int, occurrences: list[LeaderboardIn]) -> dict[str, dict]:
    """The rows the importer wrote for these occurrences (key → parsed row)."""
    given = GivenBoard(board_id)
    rows = {}
    for lb in occurrences:
        for row in lb.rows:
            key = given.add(row)
            if key is not None:
                rows[key] = row
    return rows


def _rows_lost(report: FileReport, expected: dict[int, dict], given: dict) -> int:
    lost = 0
    stored: dict[int, dict[str, dict]] = defaultdict(dict)
    for part in chunks(sorted(expected)):
        rows = LeaderboardRow.objects.filter(leaderboard_id__in=part).values(
            "leaderboard_id", "row_key", *STORED_ROW
        )
        for row in rows:
            stored[row["leaderboard_id"]][row["row_key"]] = row
    for board, rows in expected.items():
        missing = [key for key in rows if key not in stored[board]]
        if missing:
            lost += len(missing)
            report.rows_lost.append(f"{len(missing)} of {_label(given[board][0])}")
        for key, row in rows.items():
            if key in stored[board]:
                report.not_stored_of(row, stored[board][key], STORED_ROW, "sota.rows[].")
    report.rows_lost_count = lost
    return lost


def _split(report: FileReport, task_ids: set[int]) -> None:
    """Boards of one task that one name ignoring case and spacing (or a top-level board
    numbered "#2") splits: one board's rows out of sight on a second page."""
    groups: dict[tuple[int, str], list[str]] = defaultdict(list)
    for part in chunks(sorted(task_ids)):
        found = Leaderboard.objects.filter(task_id__in=part, parent__isnull=True)
        for task_id, name in found.values_list("task_id", "dataset__name"):
            folded = " ".join(_NUMBERED.sub("", name).split()).casefold()
            groups[(task_id, folded)].append(name)
    for names in groups.values():
        if len(names) > 1:
            report.split.append(" | ".join(sorted(names)))


def _board_fields(report: FileReport, given: dict[int, list[LeaderboardIn]]) -> None:
    stored = {
        row["id"]: row for row in select_rows(Leaderboard, "id", set(given), ["id", *STORED_BOARD])
    }
    for board, occurrences in given.items():
        fields = {}
        for lb in occurrences:  # the first occurrence's, its blanks filled by the next
            for name in STORED_BOARD:
                if fields.get(name) in (None, "", [], {}):
                    fields[name] = lb.fields.get(name)
        report.not_stored_of(fields, stored[board], STORED_BOARD, "datasets[].")


def _board_names(board_ids) -> dict[int, str]:
    names = {}
    for part in chunks(sorted(board_ids)):
        found = Leaderboard.objects.filter(id__in=part)
        for pk, task, dataset in found.values_list("id", "task__name", "dataset__name"):
            names[pk] = f"{task} on {dataset}"
    return names


def _unranked(report: FileReport, board_ids: list[int]) -> int:
    """Values the database holds for these boards' rows that it ranks nowhere."""
    names = _board_names(board_ids)
    for board, name, raw in unranked_values(board_ids):
        report.unranked_count += 1
        if len(report.unranked) < report.EXAMPLES:
            report.unranked.append(f"{name} = {raw!r} on {names[board]}")
    return report.unranked_count


def _directions(report: FileReport, board_ids: list[int]) -> None:
    """Metrics whose direction staff or a description decide (the name would not have),
    and metrics whose results contradict their direction, for review."""
    names = _board_names(board_ids)
    metrics: dict[int, list[LeaderboardMetric]] = defaultdict(list)
    for part in chunks(sorted(board_ids)):
        for metric in LeaderboardMetric.objects.filter(leaderboard_id__in=part):
            metrics[metric.leaderboard_id].append(metric)
    overrides, contradicted = [], []
    for board, board_metrics in sorted(metrics.items()):
        for metric in board_metrics:
            better = "lower" if metric.is_lower_better else "higher"
            by_name = inferred_direction(metric.name) is True
            if metric.direction_source in ("staff", "description") and (
                metric.is_lower_better != by_name
            ):
                overrides.append(
                    f"{metric.name} on {names[board]}: {better} ({metric.direction_source})"
                )
    series = _dated_values(board_ids)
    for board, board_metrics in sorted(metrics.items()):
        for metric in board_metrics:
            values = [v for _, v in sorted(series[board].get(metric.name, []))]
            if not is_cost(metric.name) and contradicts(values, metric.is_lower_better):
                better = "lower" if metric.is_lower_better else "higher"
                contradicted.append(f"{metric.name} on {names[board]} ({better} is better)")
    report.overrides, report.contradicted = overrides, contradicted
    for label, items in (
        ("directions staff or a description set against the name", overrides),
        ("boards whose results improve the other way (review their direction)", contradicted),
    ):
        shown = "; ".join(items[:LISTED]) + (" …" if len(items) > LISTED else "")
        report.notes.append(f"{label}: {len(items):,}" + (f" ({shown})" if items else ""))


def _dated_values(board_ids: list[int]) -> dict[int, dict[str, list[tuple[Any, float]]]]:
    """Board → metric → (date, value) of its dated rows (a row's own date, else its
    paper's; the ISO text sorts by date)."""
    out: dict[int, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for part in chunks(sorted(board_ids)):
        rows = LeaderboardRow.objects.filter(leaderboard_id__in=part).values_list(
            "leaderboard_id", "paper_date", "paper__published", "metric_values"
        )
        for board, given, published, values in rows.iterator(chunk_size=5000):
            date = given or (published.isoformat() if published else "")
            if not date:
                continue
            for name, value in (values or {}).items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    out[board][name].append((date, value))
    return out
