"""Queries of the taxonomy's pages: areas and their tasks (/sota, /area/<slug>), the
index pages of tasks, datasets and methods (with the method collections), and a
task's subtask tree. Each answers in a fixed number of queries, whatever the data;
views format nothing here and query nothing themselves."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from types import SimpleNamespace

from django.db.models import Count, Q
from django.utils.text import slugify

from codewithpapers.cache import by_version
from papers.models import Collection, Method, Task, TaskEdge
from papers.paging import Page, page_of
from papers.vocabularies import STATUS_CLAIM

# --- areas -------------------------------------------------------------------------------------

OTHER_AREA = "Other"  # tasks the archive files under no area
AREA_PREVIEW = 12  # tasks an area shows on /sota before "all N tasks"
FILTER_LIMIT = 300  # tasks /sota lists for a filter, at most


@dataclass
class Area:
    name: str
    slug: str
    tasks: list = field(default_factory=list)  # task rows, most benchmarked first
    task_count: int = 0  # its visible tasks, however many `tasks` holds
    benchmark_count: int = 0
    reported_tasks: int = 0  # its tasks with a paper whose code has a report

    @property
    def preview(self) -> list:
        return self.tasks[:AREA_PREVIEW]


_TASK_ROW = (
    "id", "slug", "name", "categories", "paper_count", "benchmark_count",
    "code_paper_count", "report_paper_count",
)  # fmt: skip


def report_share(task) -> int | None:
    """The percentage of a task's papers with code whose code has a report (rounded
    down, so 0 means none; 100 means all), None without papers with code."""
    if not task.code_paper_count:
        return None
    return task.report_paper_count * 100 // task.code_paper_count


def _report_claims() -> list[str]:
    """The claim sentences the visible tasks keep (Task.report_claims), the most common
    first, at most three. One query over the tasks that count a report."""
    found: dict[str, int] = {}
    rows = Task.objects.listed().filter(report_paper_count__gt=0).order_by()
    for claims in rows.values_list("report_claims", flat=True):
        for claim in claims or []:
            if isinstance(claim, str) and claim:
                found[claim] = found.get(claim, 0) + 1
    return sorted(found, key=lambda claim: -found[claim])[:3]


def task_claims(areas: list[Area]) -> list[str]:
    """The claim sentences to show beside these areas' report shares: the records' own
    (kept per content version: thousands of tasks' JSON is not read per request), or the
    site's when the records carry none; nothing when no task counts a report."""
    if not any(area.reported_tasks for area in areas):
        return []
    return by_version("task-claims", _report_claims) or [STATUS_CLAIM]


def _task(values: tuple) -> SimpleNamespace:
    task = SimpleNamespace(**dict(zip(_TASK_ROW, values, strict=True)))
    task.report_share = report_share(task)
    return task


def areas(q: str = "", keep: int | None = None, only: str | None = None) -> list[Area]:
    """Every area (the tasks' categories; "Other" for none) with its visible tasks, most
    benchmarked first, then most papers; only tasks whose name holds `q` when given. Names
    that slug alike ("NLP", "nlp") are one area. Each area counts all its tasks but
    holds only its first `keep` (all when None), and only the area `only` when given:
    /sota shows a dozen tasks of each area, and thousands of task objects would cost more
    than the query. One query, read as tuples."""
    tasks = Task.objects.listed().order_by("-benchmark_count", "-paper_count", "name", "id")
    if q:
        tasks = tasks.filter(name__icontains=q)[:FILTER_LIMIT]
    found: dict[str, Area] = {}
    other = {slugify(OTHER_AREA): OTHER_AREA}
    slugs: dict[str, str] = {}  # a few dozen names over thousands of tasks: slugify each once
    for values in tasks.values_list(*_TASK_ROW):
        categories = values[3]
        names = [c for c in categories or [] if isinstance(c, str)]
        for name in names:
            if name not in slugs:
                slugs[name] = slugify(name)
        # Each area once, however many of the task's names slug alike.
        placed = {slugs[name]: name for name in reversed(names) if slugs[name]}
        task = None
        for slug, name in (placed or other).items():
            if only is not None and slug != only:
                continue
            found_area = found.get(slug)
            if found_area is None:
                found_area = found[slug] = Area(name, slug)
            found_area.task_count += 1
            found_area.benchmark_count += values[5]
            found_area.reported_tasks += values[7] > 0
            if keep is None or len(found_area.tasks) < keep:
                task = task or _task(values)
                found_area.tasks.append(task)
    return sorted(found.values(), key=lambda a: (a.name == OTHER_AREA, a.name.casefold()))


def area(slug: str) -> Area | None:
    """One area with all its tasks (one query), or None."""
    found = areas(only=slug)
    return found[0] if found else None


# --- index pages -------------------------------------------------------------------------------

SORTS = {
    "name": ("name", "id"),
    "papers": ("-paper_count", "name", "id"),
    "benchmarks": ("-benchmark_count", "-paper_count", "name", "id"),
}


def catalogue_page(
    model, q: str, sort: str, number: int, per_page: int, *where, **filters
) -> Page:
    """/tasks, /datasets, /methods: visible records whose name (or full name) holds q."""
    records = model.objects.listed().filter(*where, **filters)
    if q:
        names = Q(name__icontains=q)
        if hasattr(model, "full_name"):
            names |= Q(full_name__icontains=q)
        records = records.filter(names)
    order = SORTS.get(sort, SORTS["name"])
    if not hasattr(model, "benchmark_count"):
        order = tuple(o for o in order if "benchmark" not in o)
    return page_of(records.order_by(*order), number, per_page)


@dataclass
class CollectionGroup:
    area: str
    collections: list

    @property
    def slug(self) -> str:
        """The area's address on /methods/area/<slug>."""
        return slugify(self.area)

    @property
    def method_count(self) -> int:
        """Methods in its collections (a method in two of them counts twice)."""
        return sum(c.method_count for c in self.collections)


def collection_groups() -> list[CollectionGroup]:
    """Method collections by area, each with its number of visible methods: one query."""
    rows = Collection.objects.annotate(
        method_count=Count("methods", filter=Q(methods__hidden=False))
    ).order_by("area", "name", "id")
    groups: dict[str, CollectionGroup] = {}
    for collection in rows:
        if collection.method_count:
            name = collection.area or OTHER_AREA
            groups.setdefault(name, CollectionGroup(name, [])).collections.append(collection)
    return sorted(groups.values(), key=lambda g: (g.area == OTHER_AREA, g.area.casefold()))


def method_area(slug: str) -> CollectionGroup | None:
    """The area of method collections /methods/area/<slug> names (the slug of its name;
    collections with no area are in "Other"), with its collections: one query."""
    for group in collection_groups():
        if group.slug == slug:
            return group
    return None


def area_methods(group: CollectionGroup):
    """The visible methods in any collection of the area, each once."""
    areas = ["", OTHER_AREA] if group.area == OTHER_AREA else [group.area]
    links = Method.collections.through.objects.filter(collection__area__in=areas)
    return Q(id__in=links.values("method_id"))


# --- the subtask tree --------------------------------------------------------------------------


@dataclass
class TreeNode:
    task: Task
    children: list[TreeNode] = field(default_factory=list)


def subtask_tree(task: Task, depth: int = 4) -> list[TreeNode]:
    """The task's subtasks, theirs and so on to `depth` levels, in the archive's order
    (a subtask under several parents appears under each; a cycle is cut). Two queries:
    every edge, then the tasks of the tree."""
    children: dict[int, list[int]] = defaultdict(list)
    for parent, child in TaskEdge.objects.order_by("parent_id", "position", "id").values_list(
        "parent_id", "child_id"
    ):
        children[parent].append(child)

    def walk(node: int, path: frozenset[int], level: int) -> list[tuple[int, list]]:
        if level >= depth:
            return []
        return [
            (child, walk(child, path | {child}, level + 1))
            for child in children.get(node, [])
            if child not in path
        ]

    shape = walk(task.id, frozenset({task.id}), 0)
    ids: set[int] = set()

    def collect(items):
        for pk, sub in items:
            ids.add(pk)
            collect(sub)

    collect(shape)
    tasks = Task.objects.listed().in_bulk(ids) if ids else {}

    def build(items) -> list[TreeNode]:
        return [TreeNode(tasks[pk], build(sub)) for pk, sub in items if pk in tasks]

    return build(shape)
