"""Which row a name stands for: datasets known only by their names, and the nodes of the
evaluation tables' task trees. Names are not unique keys in the archive, so these rules
decide identity where a slug alone would merge distinct records.

Datasets. A dataset record with a URL is keyed by the URL's slug. One known only by its
name (the derived search collection, a leaderboard, a record's `datasets_introduced`) is
keyed by that exact name: "TVQA" and "TVQA+" are two datasets, and so are "TweetQA" and
"TWEETQA" given as dataset records. Its slug is the name's, with "+" spelt "plus" and "*"
"star" (`tvqa-plus`, `a-star-3d`); where another dataset already holds that slug, the
first free of `-2`, `-3`… (stable: the name finds its row again on every later import).
A name other records only mention also matches a dataset whose name differs from it in
case alone, and a dataset record claims a row that such a mention created.

Tasks. A top-level task is keyed by its name. A subtask's identity is its path: it keeps
the task found under the same parent by that name; else it takes its name's slug when that
is free, or held by a task with the same content (the dumps repeat a subtask in full under
each of its parents) or by a name nothing has described yet; else its slug is qualified by
its parent's (`relation-prediction-task` beside `task`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.parsers import TaskIn
from papers.archive.write.core import Core, FreeSlugs, candidates
from papers.db import chunks, select_rows
from papers.models import Dataset, Task, TaskEdge


def dataset_slug(name: str) -> str:
    return n.slug_of(name.replace("+", " plus ").replace("*", " star "))


class DatasetNames:
    """Datasets by name, for one import (the slugs it allocates stay taken)."""

    def __init__(self, core: Core | None = None):
        self.core = core  # None: find() only
        self.free_slugs = FreeSlugs(Dataset)  # the slugs this import gave new datasets

    def _rows(self, names: Iterable[str]) -> tuple[dict[str, dict], dict[str, dict]]:
        """Rows whose name is one of `names` (the one at the name's own slug, else the
        oldest), and rows at the names' own slugs or at a slug given as a name (an export
        names a dataset by its slug where its name would give another)."""
        names = list(dict.fromkeys(names))
        by_name: dict[str, dict] = {}
        only = ["id", "slug", "name", "in_dump"]
        for row in sorted(select_rows(Dataset, "name", names, only), key=lambda r: r["id"]):
            best = by_name.get(row["name"])
            if best is None or (row["slug"] == dataset_slug(row["name"]) != best["slug"]):
                by_name[row["name"]] = row
        slugs = {dataset_slug(name) for name in names} | set(names)
        by_slug = {row["slug"]: row for row in select_rows(Dataset, "slug", slugs, only)}
        return by_name, by_slug

    def find(self, names: Iterable[str]) -> tuple[dict[str, int], list[str]]:
        """The datasets these names mention (name → id), and the names nothing holds."""
        names = [name for name in dict.fromkeys(names) if dataset_slug(name)]
        by_name, by_slug = self._rows(names)
        ids: dict[str, int] = {}
        new: list[str] = []
        for name in names:
            row = by_name.get(name) or by_slug.get(name)
            if row is None:
                row = by_slug.get(dataset_slug(name))
                if row is not None and row["name"].casefold() != name.casefold():
                    row = None
            if row is None:
                new.append(name)
            else:
                ids[name] = row["id"]
        return ids, new

    def mentions(self, names: Iterable[str]) -> dict[str, int]:
        """The dataset each name names, creating a row for a name nothing holds. New
        names that differ in case alone ("Pubmed", "PubMed") name one new row, the first
        spelling's, as they would once it exists."""
        ids, new = self.find(names)
        if new:
            spellings: dict[str, list[str]] = {}
            for name in new:
                spellings.setdefault(name.casefold(), []).append(name)
            first = [group[0] for group in spellings.values()]
            slugs = self.free_slugs.take(dataset_slug(name) for name in first)
            items = {slugs[dataset_slug(name)].pop(0): name for name in first}
            created = self.core.upsert(
                Dataset, "slug", {slug: {"name": name} for slug, name in items.items()}
            )
            for slug, pk in created.items():
                ids.update((name, pk) for name in spellings[items[slug].casefold()])
        return ids

    def at_slugs(self, items: dict[str, str]) -> dict[str, int]:
        """The datasets at these slugs (slug → name), creating those nothing holds;
        returns slug → id (a board names its dataset, and may give its slug beside)."""
        items = {slug: name for slug, name in items.items() if slug}
        if not items:
            return {}
        ids = self.core.upsert(
            Dataset,
            "slug",
            {slug: {"name": name} for slug, name in items.items()},
            fill_only=True,
        )
        self.free_slugs.taken.update(items)
        return ids

    def definitions(self, records: dict[str, dict[str, Any]]) -> dict[str, int]:
        """Upsert dataset records known only by their names (name → fields)."""
        by_name, by_slug = self._rows(records)
        items: dict[str, dict[str, Any]] = {}
        new: list[str] = []
        for name, fields in records.items():
            row = by_name.get(name)
            if row is None:
                stub = by_slug.get(dataset_slug(name))
                if (
                    stub is not None
                    and not stub["in_dump"]
                    and stub["name"].casefold() == name.casefold()
                ):
                    row = stub
            if row is None:
                new.append(name)
            else:
                items[row["slug"]] = fields
        slugs = self.free_slugs.take(dataset_slug(name) for name in new)
        for name in new:
            items[slugs[dataset_slug(name)].pop(0)] = records[name]
        ids = self.core.upsert(Dataset, "slug", items)
        return {items[slug]["name"]: pk for slug, pk in ids.items()}


class TaskTree:
    """The task nodes of a batch of evaluation tables, resolved to task ids by path."""

    def __init__(self, core: Core):
        self.core = core

    def resolve(self, nodes: list[TaskIn]) -> dict[tuple[str, ...], int]:
        merged: dict[tuple[str, ...], TaskIn] = {}
        for node in nodes:
            have = merged.get(node.path)
            if have is None or have.reference:
                merged[node.path] = node
        ids: dict[tuple[str, ...], int] = {}
        slugs: dict[tuple[str, ...], str] = {}
        depth = 1
        level = [node for node in merged.values() if len(node.path) == depth]
        claimed: dict[str, str] = {}  # slug → content key, for this batch's new claims
        while level:
            if depth == 1:
                chosen = {node.path: node.slug or n.slug_of(node.name) for node in level}
            else:
                chosen = self._place(level, ids, slugs, claimed)
            items: dict[str, dict] = {}
            for node in level:
                values = items.setdefault(chosen[node.path], {})
                values.update(_values(node))
            written = self.core.upsert(Task, "slug", items)
            for node in level:
                slugs[node.path] = chosen[node.path]
                ids[node.path] = written[chosen[node.path]]
            depth += 1
            level = [node for node in merged.values() if len(node.path) == depth]
        self._edges(merged.values(), ids)
        return ids

    def _place(self, level, ids, slugs, claimed) -> dict[tuple[str, ...], str]:
        """Slugs for nested nodes whose parents are resolved."""
        parents = {ids[node.path[:-1]] for node in level}
        children: dict[tuple[int, str], str] = {}
        for part in chunks(sorted(parents)):
            for parent_id, name, slug in TaskEdge.objects.filter(parent_id__in=part).values_list(
                "parent_id", "child__name", "child__slug"
            ):
                children.setdefault((parent_id, name), slug)
                children.setdefault((parent_id, n.slug_of(name)), slug)
        chosen: dict[tuple[str, ...], str] = {}
        pending = []
        for node in level:
            if node.slug:
                chosen[node.path] = node.slug
                continue
            parent_id = ids[node.path[:-1]]
            slug = children.get((parent_id, node.name)) or children.get(
                (parent_id, n.slug_of(node.name))
            )
            if slug:
                chosen[node.path] = slug
            else:
                pending.append(node)
        if not pending:
            return chosen
        bases = {node.path: n.slug_of(node.name) for node in pending}
        qualified = {
            node.path: n.slug_of(f"{slugs[node.path[:-1]]} {node.name}") for node in pending
        }
        tried = {s for path in bases for base in (bases[path], qualified[path])
                 for s in candidates(base)}  # fmt: skip
        held = {
            row["slug"]: row["content_key"]
            for row in select_rows(Task, "slug", tried, ["slug", "content_key"])
        }
        for node in pending:
            chosen[node.path] = self._pick(node, bases[node.path], qualified[node.path],
                                           held, claimed)  # fmt: skip
        return chosen

    @staticmethod
    def _pick(node: TaskIn, base: str, qualified: str, held: dict, claimed: dict) -> str:
        def fits(slug: str) -> bool | None:
            """True: this node's task; False: another's; None: free."""
            key = claimed.get(slug, held.get(slug))
            if key is None:
                return None
            return node.reference or key in ("", node.content_key)

        for slug in [base, *candidates(qualified)]:
            fit = fits(slug)
            if fit is False:
                continue
            if not node.reference and not claimed.get(slug, held.get(slug)):
                claimed[slug] = node.content_key  # a free slug, or a name only mentioned
            return slug
        raise ValueError(f"no free slug for the task {node.name!r}")  # 20 namesakes deep

    def _edges(self, nodes: Iterable[TaskIn], ids: dict[tuple[str, ...], int]) -> None:
        edges = {
            (ids[node.path[:-1]], ids[node.path]): node.position
            for node in nodes
            if len(node.path) > 1 and ids[node.path[:-1]] != ids[node.path]
        }
        existing = set()
        for part in chunks(sorted({p for p, _ in edges})):
            existing.update(
                TaskEdge.objects.filter(parent_id__in=part).values_list("parent_id", "child_id")
            )
        TaskEdge.objects.bulk_create(
            [
                TaskEdge(parent_id=p, child_id=c, position=pos)
                for (p, c), pos in edges.items()
                if (p, c) not in existing
            ],
            ignore_conflicts=True,
        )
        stats = self.core.stats
        stats.add("TaskEdge", "created", len(set(edges) - existing))
        stats.add("TaskEdge", "unchanged", len(set(edges) & existing))


def _values(node: TaskIn) -> dict[str, Any]:
    values = {k: v for k, v in node.fields.items() if v not in ("", [], None)}
    values.setdefault("name", node.name)
    if not node.reference:
        values["content_key"] = node.content_key
    return values
