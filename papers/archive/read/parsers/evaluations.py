"""Parse an evaluation-tables record: a task tree, its leaderboards and their rows, and
stubs of the papers the rows name."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers.common import edited_field, require_dict
from papers.archive.read.parsers.shapes import (
    RANK_STUB,
    EvaluationIn,
    LeaderboardIn,
    PaperIn,
    TaskIn,
)
from papers.metrics import json_safe_metrics, stated_lower_is_better


def parse_evaluation(raw: Any) -> EvaluationIn:
    raw = require_dict(raw)
    out = EvaluationIn(tasks=[], leaderboards=[], stubs=[])
    _walk_task(raw, "", (), 0, out)
    return out


def _walk_task(
    raw: Any, where: str, parent: tuple[str, ...], position: int, out: EvaluationIn
) -> None:
    if not isinstance(raw, dict):
        raise RecordError(where or "(record)", "expected a task object")
    name = n.one_line(raw.get("task"), f"{where}task", max_length=500)
    if not name:
        raise RecordError(f"{where}task", "missing (it is the task's identity)")
    if not n.slug_of(name):
        raise RecordError(f"{where}task", f"no usable slug in {name!r}")
    path = (*parent, name)
    if path.count(name) > 1:
        raise RecordError(f"{where}task", f"{name!r} is nested under itself")
    description = n.text(raw.get("description"), f"{where}description")
    datasets = n.obj_list(raw.get("datasets"), f"{where}datasets")
    subtasks = n.obj_list(raw.get("subtasks"), f"{where}subtasks")
    link = raw.get("source_link")
    node = TaskIn(
        path=path,
        position=position,
        slug=n.url_slug(raw.get("url"), f"{where}url"),
        fields={
            "name": name,
            "description": description,
            "categories": n.text_list(raw.get("categories"), f"{where}categories"),
            "source_link": _link_url(link, f"{where}source_link"),
            "source_link_title": n.one_line(link.get("title"), f"{where}source_link.title")
            if isinstance(link, dict)
            else "",
            **edited_field(raw),
        },
        content_key=hashlib.sha1(
            json.dumps(
                [
                    description,
                    [n.one_line(d.get("dataset"), "dataset") for d in datasets],
                    [n.one_line(t.get("task"), "task") for t in subtasks],
                ],
                ensure_ascii=False,
            ).encode()
        ).hexdigest(),
        reference=not (description or datasets or subtasks),
    )
    out.tasks.append(node)
    _Boards(path).walk_all(datasets, where, None, out)
    for index, sub in enumerate(subtasks):
        _walk_task(sub, f"{where}subtasks[{index}].", path, index, out)


class _Boards:
    """A task's leaderboards in source order: each board's position counts every board of
    the task before it, a subdataset's right after its parent's."""

    def __init__(self, task: tuple[str, ...]):
        self.task = task
        self.position = 0

    def walk_all(self, items: list[dict], where: str, parent: tuple[str, str] | None, out) -> None:
        """Sibling boards. A task's datasets given twice (by names equal but for case or
        surrounding space) are one board, whose rows the loader merges. Subdatasets of one
        parent may share a name (nlp-progress has four called "Example" under one parent,
        each with results of its own): the second and later are told apart by their place
        among them ("Smaller Datasets (Example) #2"), never merged."""
        seen: dict[str, int] = {}
        key = "subdatasets" if parent else "datasets"
        for index, raw in enumerate(items):
            at = f"{where}{key}[{index}]."
            name = _board_name(raw, at, parent[0] if parent else None)
            folded = name.casefold()
            seen[folded] = seen.get(folded, 0) + 1
            if parent and seen[folded] > 1:
                name = f"{name} #{seen[folded]}"
            dataset = (name, n.url_slug(raw.get("dataset_url"), f"{at}dataset_url"))
            self.walk(raw, at, dataset, parent, out)

    def walk(
        self,
        raw: dict,
        where: str,
        dataset: tuple[str, str],
        parent: tuple[str, str] | None,
        out,
    ) -> None:
        sota = n.obj(raw.get("sota"), f"{where}sota")
        metrics = n.text_list(sota.get("metrics"), f"{where}sota.metrics")
        rows = []
        seen: dict[str, int] = {}
        for index, row in enumerate(n.obj_list(sota.get("rows"), f"{where}sota.rows")):
            parsed = _parse_row(row, f"{where}sota.rows[{index}].", index)
            # Rows have no id: identity is their content key plus its occurrence count.
            occurrence = seen.get(parsed["row_key"], 0)
            seen[parsed["row_key"]] = occurrence + 1
            if occurrence:
                parsed["row_key"] = hashlib.sha1(
                    f"{parsed['row_key']}#{occurrence}".encode()
                ).hexdigest()
            for metric in parsed["metrics"]:
                if metric not in metrics:
                    metrics.append(metric)
            stub = parsed.pop("stub_paper")
            if stub is not None:
                out.stubs.append(stub)
            rows.append(parsed)
        description = n.text(raw.get("description"), f"{where}description")
        out.leaderboards.append(
            LeaderboardIn(
                task=self.task,
                dataset=dataset,
                parent=parent,
                position=self.position,
                fields={
                    "description": description,
                    "dataset_links": n.obj_list(raw.get("dataset_links"), f"{where}dataset_links"),
                    "dataset_citations": raw.get("dataset_citations") or [],
                    **edited_field(raw),
                },
                metrics=metrics,
                rows=rows,
                stated={
                    name: stated_lower_is_better(description, name, len(metrics))
                    for name in metrics
                },
            )
        )
        self.position += 1
        subs = n.obj_list(raw.get("subdatasets"), f"{where}subdatasets")
        self.walk_all(subs, where, dataset, out)


def _board_name(raw: dict, where: str, parent: str | None) -> str:
    name = n.one_line(raw.get("dataset"), f"{where}dataset", max_length=500)
    if not name and parent and raw.get("subdataset"):
        # A subdataset is named relative to its parent: SemEval 2018 → "General".
        sub = n.one_line(raw.get("subdataset"), f"{where}subdataset", max_length=400)
        name = f"{parent} ({sub})"[:490]
    if not name:
        raise RecordError(f"{where}dataset", "missing (it names the dataset)")
    return name


def _link_url(value: Any, where: str) -> str:
    """A link given as a URL or as {"title": …, "url": …}."""
    if isinstance(value, dict):
        return n.text(value.get("url"), f"{where}.url", max_length=500)
    return n.text(value, where, max_length=500)


def _parse_row(raw: dict, where: str, position: int) -> dict[str, Any]:
    metrics_raw = n.obj(raw.get("metrics"), f"{where}metrics")
    metrics = {}
    for name, value in metrics_raw.items():
        if isinstance(value, dict | list):
            raise RecordError(f"{where}metrics.{name}", "expected a number or text")
        metrics[str(name)] = value
    model_name = n.one_line(raw.get("model_name"), f"{where}model_name", max_length=500)
    paper_title = n.one_line(raw.get("paper_title"), f"{where}paper_title")
    paper_url = n.text(raw.get("paper_url"), f"{where}paper_url", max_length=500)
    paper_date = n.one_line(raw.get("paper_date"), f"{where}paper_date", max_length=32)
    key = hashlib.sha1(
        json.dumps([model_name, paper_url, paper_title], ensure_ascii=False).encode()
    ).hexdigest()
    slug = n.paper_slug(paper_url, f"{where}paper_url")
    stub = None
    if slug:
        try:
            published = n.date(paper_date, f"{where}paper_date")
        except RecordError:
            published = None
        stub = PaperIn(
            slug=slug, rank=RANK_STUB, fields={"title": paper_title, "published": published}
        )
    return {
        "row_key": key,
        "position": position,
        "model_name": model_name,
        "paper_title": paper_title,
        "paper_url": paper_url,
        "paper_date": paper_date,
        "metrics": json_safe_metrics(metrics),
        "uses_additional_data": n.flag(
            raw.get("uses_additional_data"), f"{where}uses_additional_data"
        ),
        "code_links": n.obj_list(raw.get("code_links"), f"{where}code_links"),
        "model_links": raw.get("model_links") or [],
        "paper_slug": slug,
        "paper_arxiv": n.arxiv_from_url(paper_url, f"{where}paper_url"),
        "stub_paper": stub,
        **edited_field(raw),
    }
