"""Write the methods and datasets dumps: methods by slug with their collections, datasets
by URL slug or, without a URL, by name (papers.archive.write.identity), with the tasks
they name."""

from __future__ import annotations

from collections import defaultdict

from papers.archive.read import normalise as n
from papers.archive.read.parsers import DatasetIn, MethodIn
from papers.archive.write.core import Core
from papers.archive.write.identity import DatasetNames
from papers.db import chunks, delete_where_in, insert_rows
from papers.models import Collection, Dataset, Method, MethodCollection, Task


class TaxonomyWriter:
    def __init__(self, core: Core, datasets: DatasetNames):
        self.core = core
        self.dataset_names = datasets

    def methods(self, incoming: list[MethodIn]) -> None:
        collections = {c["slug"]: c for m in incoming for c in m.collections}
        collection_ids = self.core.upsert(
            Collection,
            "slug",
            {s: {k: v for k, v in c.items() if k != "slug"} for s, c in collections.items()},
        )
        latest = {m.slug: m for m in incoming}
        method_ids = self.core.upsert(Method, "slug", {s: m.fields for s, m in latest.items()})
        self._collections(latest, method_ids, collection_ids)

    def _collections(
        self,
        latest: dict[str, MethodIn],
        method_ids: dict[str, int],
        collection_ids: dict[str, int],
    ) -> None:
        """A method's collections in the record's order (the first is its primary one),
        then any it was in before that the record does not name (kept: a dump lists
        collections as of its date); rewritten where that differs, unless staff edited
        the method."""
        current = defaultdict(list)
        edited = set()
        for part in chunks(list(method_ids.values())):
            for mid, cid in (
                MethodCollection.objects.filter(method_id__in=part)
                .order_by("method_id", "position", "id")
                .values_list("method_id", "collection_id")
            ):
                current[mid].append(cid)
        for part in chunks(list(method_ids.values())):
            edited.update(
                Method.objects.filter(id__in=part, edited_in_admin=True).values_list(
                    "id", flat=True
                )
            )
        stale, rows = [], []
        for slug, method in latest.items():
            mid = method_ids.get(slug)
            wanted = list(dict.fromkeys(collection_ids[c["slug"]] for c in method.collections))
            if mid is None or not wanted:
                continue
            wanted += [cid for cid in current[mid] if cid not in wanted]
            if wanted == current[mid]:
                continue
            if mid in edited and not self.core.overwrite_edits:
                continue
            stale.append(mid)
            rows.extend((mid, cid, position) for position, cid in enumerate(wanted))
        delete_where_in(MethodCollection, "method_id", stale)
        insert_rows(MethodCollection, ["method_id", "collection_id", "position"], rows)

    def datasets(self, incoming: list[DatasetIn]) -> None:
        by_url = {d.slug: d for d in incoming if d.slug}
        by_name = {d.fields["name"]: d for d in incoming if not d.slug}
        ids = self.core.upsert(Dataset, "slug", {s: d.fields for s, d in by_url.items()})
        named = self.dataset_names.definitions({k: d.fields for k, d in by_name.items()})
        targets = [(ids.get(slug), d) for slug, d in by_url.items()]
        targets += [(named.get(name), d) for name, d in by_name.items()]
        names = {n.slug_of(t): t for _, d in targets for t in d.tasks if n.slug_of(t)}
        task_ids = self.core.upsert(
            Task, "slug", {s: {"name": v} for s, v in names.items()}, fill_only=True
        )
        through = Dataset.tasks.through
        rows = [
            through(dataset_id=dataset_id, task_id=task_ids[n.slug_of(t)])
            for dataset_id, d in targets
            if dataset_id is not None
            for t in d.tasks
            if n.slug_of(t) in task_ids
        ]
        through.objects.bulk_create(rows, ignore_conflicts=True)
