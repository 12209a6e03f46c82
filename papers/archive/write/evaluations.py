"""Write evaluation tables: task trees (papers.archive.write.identity), their
leaderboards, each board's metrics and rows, and stubs of the papers rows name.

Within one file a board given again (a subtask repeated under several parents, a dataset
named twice with another case or spacing) is the board it gave first: its fields fill
what the first left empty, its rows join the first's (`GivenBoard`). When the file ends
(`end_file()`), each board it gave rows is as the file gives it: rows and metrics it did
not give are deleted. Every change to a board forgets its kept ranking in the
transaction that makes it (papers.kept.rankings), so readers never see new rows in an old
order.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from papers.archive.read.parsers import EvaluationIn, LeaderboardIn
from papers.archive.write.core import Core
from papers.archive.write.identity import DatasetNames, TaskTree
from papers.archive.write.papers import PaperWriter
from papers.db import chunks, delete_where_in, select_rows
from papers.kept import forget_boards
from papers.metrics import has_value, read_rows
from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Paper,
    revalue_boards,
    unranked_values,
)

BoardKey = tuple[int, int]  # (task id, dataset id)


@dataclass(slots=True)
class GivenBoard:
    """A board as the file being imported has given it so far."""

    board_id: int
    metrics: list[str] = field(default_factory=list)
    # Row key → a digest of the row's content: a row given again with the same content is
    # the same row; one with other content under the same key is another row.
    rows: dict[str, str] = field(default_factory=dict)
    written: bool = False  # some occurrence gave it rows
    again: bool = False  # given more than once: its columns are read again at the end
    unranked: int = 0  # values its rows give that read as no number

    def add(self, row: dict[str, Any]) -> str | None:
        """The key a parsed row takes on the board (None: the board has it already).
        papers.archive.fidelity finds the rows it expects with this too."""
        row_key = row["row_key"]
        shown = {k: v for k, v in row.items() if k not in ("position", "row_key", "stub_paper")}
        content = hashlib.sha1(
            json.dumps(shown, sort_keys=True, default=str, ensure_ascii=False).encode()
        ).hexdigest()
        key, again = row_key, 0
        while key in self.rows:
            if self.rows[key] == content:
                return None
            again += 1
            key = hashlib.sha1(f"{row_key}+{again}".encode()).hexdigest()
        self.rows[key] = content
        return key


class EvaluationWriter:
    def __init__(self, core: Core, papers: PaperWriter, datasets: DatasetNames):
        self.core = core
        self.papers = papers
        self.dataset_names = datasets
        # The boards the file being imported has given so far, by (task id, dataset id).
        self.file_boards: dict[BoardKey, GivenBoard] = {}

    def write(self, incoming: list[EvaluationIn]) -> None:
        task_ids = TaskTree(self.core).resolve([task for ev in incoming for task in ev.tasks])
        boards = [lb for ev in incoming for lb in ev.leaderboards]
        datasets = [d for lb in boards for d in (lb.dataset, lb.parent) if d]
        named = self.dataset_names.mentions(name for name, slug in datasets if not slug)
        at_slugs = self.dataset_names.at_slugs({slug: name for name, slug in datasets if slug})

        def key(lb: LeaderboardIn, dataset: tuple[str, str] | None = None) -> BoardKey:
            name, slug = dataset or lb.dataset
            return task_ids[lb.task], at_slugs[slug] if slug else named[name]

        through = Dataset.tasks.through
        through.objects.bulk_create(
            [through(dataset_id=key(lb)[1], task_id=key(lb)[0]) for lb in boards],
            ignore_conflicts=True,
        )
        stub_ids = self.papers.write([stub for ev in incoming for stub in ev.stubs])
        self._boards(boards, key)
        arxiv_ids = {row["paper_arxiv"] for lb in boards for row in lb.rows if row["paper_arxiv"]}
        by_arxiv = {
            row["arxiv_id"]: row["id"]
            for row in select_rows(Paper, "arxiv_id", arxiv_ids, ["id", "arxiv_id"])
        }
        changed = [
            self.file_boards[key(lb)].board_id
            for lb in boards
            if self._board(self.file_boards[key(lb)], lb, stub_ids, by_arxiv)
        ]
        # In the transaction that changes them: a reader sees a board's old rows with their
        # kept ranking, or its new rows ranked live, never new rows in an old order (the
        # import's end ranks and keeps them again).
        forget_boards(changed)

    def _boards(self, boards: list[LeaderboardIn], key) -> None:
        """Upsert the batch's boards (`key`: a board's BoardKey, or its parent's): a board
        this file gives again fills only what its first occurrence left empty. Each board
        the file first gives here is remembered (`file_boards`), under its parent."""
        first: dict[BoardKey, LeaderboardIn] = {}
        again: dict[BoardKey, LeaderboardIn] = {}
        for lb in boards:
            k = key(lb)
            if k in self.file_boards or k in first:
                again.setdefault(k, lb)
                self.core.stats.add("Leaderboard", "given_again")
                if k in self.file_boards:
                    self.file_boards[k].again = True
            else:
                first[k] = lb
        board_ids = {k: given.board_id for k, given in self.file_boards.items()}
        for chosen, fill_only in ((first, False), (again, True)):
            by_task = defaultdict(dict)
            for (task_id, dataset), lb in chosen.items():
                by_task[task_id][dataset] = lb.fields | {"position": lb.position}
            for task_id, items in by_task.items():
                ids = self.core.upsert(
                    Leaderboard,
                    "dataset_id",
                    items,
                    extra_key={"task_id": task_id},
                    fill_only=fill_only,
                    count=not fill_only,
                )
                for dataset, board_id in ids.items():
                    board_ids[(task_id, dataset)] = board_id
        for k, lb in first.items():
            self.file_boards[k] = GivenBoard(board_ids[k], again=k in again)
            parent = board_ids.get(key(lb, lb.parent)) if lb.parent else None
            if parent is not None:
                Leaderboard.objects.filter(id=board_ids[k]).exclude(parent_id=parent).update(
                    parent_id=parent
                )

    def _board(self, given: GivenBoard, lb: LeaderboardIn, stub_ids, by_arxiv) -> bool:
        """Write the metrics and rows one occurrence of a board adds to what this file gave
        of it so far; whether that changed the board. Its rows' values are read with
        their columns (papers.metrics): the occurrence's columns are the board's unless
        the file gives it again (end_file() reads those boards' columns again). What
        the file no longer gives goes when the file ends."""
        before = self._board_writes()
        new_metrics = [m for m in lb.metrics if m not in given.metrics]
        metric_items = {
            m: {"position": len(given.metrics) + i, "stated_lower_is_better": lb.stated[m]}
            for i, m in enumerate(new_metrics)
        }
        given.metrics += new_metrics
        self.core.upsert(
            LeaderboardMetric, "name", metric_items, extra_key={"leaderboard_id": given.board_id}
        )
        rows = {}
        readings = read_rows([row["metrics"] for row in lb.rows])
        for row, reading in zip(lb.rows, readings, strict=True):
            values = {
                k: v for k, v in row.items() if k not in {"row_key", "paper_slug", "paper_arxiv"}
            }
            values["paper_id"] = stub_ids.get(row["paper_slug"]) or by_arxiv.get(
                row["paper_arxiv"]
            )
            row_key = given.add(row)
            if row_key is not None:
                values["position"] = len(given.rows) - 1
                values["metric_values"] = reading
                rows[row_key] = values
                given.unranked += sum(
                    has_value(raw) and reading.get(name) is None
                    for name, raw in row["metrics"].items()
                )
        self.core.upsert(
            LeaderboardRow,
            "row_key",
            rows,
            extra_key={"leaderboard_id": given.board_id},
            derived=("metric_values",),
        )
        given.written = given.written or bool(lb.rows)
        return self._board_writes() != before

    def _board_writes(self) -> tuple[int, ...]:
        counts = self.core.stats.counts
        return tuple(
            counts[model][outcome]
            for model in ("LeaderboardMetric", "LeaderboardRow")
            for outcome in ("created", "updated")
        )

    def begin_file(self) -> None:
        self.file_boards = {}

    def end_file(self, *, complete: bool) -> None:
        """The boards this file gave are now as it gives them: their rows and metrics it
        does not give are deleted (except rows staff edited and metrics whose direction
        staff set), unless it gave a board no rows (an empty board replaces nothing) or
        the file could not be read to its end. Then every board's values are read again,
        column by column (papers.metrics)."""
        given = {g.board_id: g for g in self.file_boards.values()}
        shrunk = self._replace([g for g in given.values() if g.written]) if complete else set()
        again = {pk for pk, g in given.items() if g.again}
        forget_boards(shrunk | revalue_boards(again | shrunk))
        # The boards read again are counted from the database, the rest as written.
        unranked = sum(g.unranked for pk, g in given.items() if pk not in again | shrunk)
        unranked += sum(1 for _ in unranked_values(again | shrunk))
        self.core.stats.add("LeaderboardRow", "unranked", unranked)
        self.file_boards = {}

    def _replace(self, boards: list[GivenBoard]) -> set[int]:
        """Delete these boards' rows and metrics the file did not give (not rows staff
        edited, nor metrics whose direction staff set); the boards that lost some."""
        by_id = {given.board_id: given for given in boards}
        gone_metrics, gone_rows, shrunk = [], [], set()
        overwrite = self.core.overwrite_edits
        for part in chunks(sorted(by_id)):
            metrics = LeaderboardMetric.objects.filter(
                leaderboard_id__in=part, lower_is_better__isnull=True
            ).values_list("id", "leaderboard_id", "name")
            for pk, board, name in metrics:
                if name not in by_id[board].metrics:
                    gone_metrics.append(pk)
                    shrunk.add(board)
            rows = LeaderboardRow.objects.filter(leaderboard_id__in=part).values_list(
                "id", "leaderboard_id", "row_key", "edited_in_admin"
            )
            for pk, board, row_key, edited in rows.iterator(chunk_size=5000):
                if row_key not in by_id[board].rows and (overwrite or not edited):
                    gone_rows.append(pk)
                    shrunk.add(board)
        for part in chunks(gone_metrics):  # few; the ORM's delete takes their rankings too
            LeaderboardMetric.objects.filter(id__in=part).delete()
        delete_where_in(LeaderboardRow, "id", gone_rows)
        self.core.stats.add("LeaderboardRow", "deleted", len(gone_rows))
        return shrunk
