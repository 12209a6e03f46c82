"""The index /datasets filters with (papers.dataset_filters): every visible dataset's id
by the slug of each of its modalities, languages and tasks, and each value's name.

Worked out from the catalogue in two queries (a few hundred milliseconds at full scale),
so it is kept as one KeptFact: `refresh_all()` works it out after an import, an ORM
write to a dataset, a task or a dataset's task links forgets it (papers.kept.signals),
and the first page to find it missing works it out and keeps it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import DatabaseError, transaction
from django.utils.text import slugify

from papers.models import Dataset, KeptFact

NAME = "dataset-filters"
# The shape of the kept data: raise it with any change to it, so that a fact kept by
# older code is worked out again.
VERSION = 1
KEYS = ("mod", "task", "lang")  # the filters, by query parameter


@dataclass
class Index:
    """Ids of the visible datasets by filter and value slug, and each value's name."""

    ids: dict[str, dict[str, frozenset[int]]] = field(default_factory=dict)
    names: dict[str, dict[str, str]] = field(default_factory=dict)


def work_out() -> dict:
    """The index as JSON ({"ids": {key: {slug: [id…]}}, "names": {key: {slug: name}}}):
    two queries over the catalogue."""
    sets: dict[str, dict[str, set[int]]] = {key: {} for key in KEYS}
    names: dict[str, dict[str, str]] = {key: {} for key in KEYS}
    listed = set()

    def add(key: str, value, pk: int) -> None:
        if not isinstance(value, str) or not (slug := slugify(value)):
            return
        sets[key].setdefault(slug, set()).add(pk)
        names[key].setdefault(slug, value.strip())

    for pk, modalities, languages in Dataset.objects.listed().values_list(
        "id", "modalities", "languages"
    ):
        listed.add(pk)
        for value in modalities if isinstance(modalities, list) else []:
            add("mod", value, pk)
        for value in languages if isinstance(languages, list) else []:
            add("lang", value, pk)
    links = Dataset.tasks.through.objects.filter(task__hidden=False)
    for pk, slug, name in links.values_list("dataset_id", "task__slug", "task__name"):
        if pk in listed:
            sets["task"].setdefault(slug, set()).add(pk)
            names["task"].setdefault(slug, name)
    ids = {key: {slug: sorted(s) for slug, s in values.items()} for key, values in sets.items()}
    return {"ids": ids, "names": names}


def refresh_dataset_index() -> KeptFact:
    fact, _ = KeptFact.objects.update_or_create(
        name=NAME, defaults={"data": work_out(), "version": VERSION}
    )
    return fact


def forget_dataset_index() -> None:
    KeptFact.objects.filter(name=NAME).delete()


# The index as this process last read it, by the kept row's (id, refreshed): a page asks
# the database only whether the row is still the one read, never reads stale ids (a
# refresh or a forget changes the key), and builds no sets of ids per request.
_read: tuple[tuple, Index] | None = None


def dataset_index() -> Index:
    """The kept index; worked out and kept again when it is missing (the keeping is
    skipped when the database takes no write: a read-only replica's outage)."""
    global _read
    kept = KeptFact.objects.filter(name=NAME, version=VERSION)
    key = next(iter(kept.values_list("id", "refreshed")), None)
    memo = _read
    if key is not None and memo is not None and memo[0] == key:
        return memo[1]
    row = next(iter(kept.values_list("id", "refreshed", "data")), None)
    if row is not None and isinstance(row[2], dict):
        key, data = row[:2], row[2]
    else:
        try:
            with transaction.atomic():
                fact = refresh_dataset_index()
            key, data = (fact.id, fact.refreshed), fact.data
        except DatabaseError:
            key, data = None, work_out()
    index = Index(
        ids={
            name: {slug: frozenset(ids) for slug, ids in data["ids"].get(name, {}).items()}
            for name in KEYS
        },
        names={name: data["names"].get(name, {}) for name in KEYS},
    )
    if key is not None:
        _read = (tuple(key), index)
    return index
