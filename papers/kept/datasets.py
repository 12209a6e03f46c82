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


def refresh_dataset_index() -> dict:
    data = work_out()
    KeptFact.objects.update_or_create(name=NAME, defaults={"data": data, "version": VERSION})
    return data


def forget_dataset_index() -> None:
    KeptFact.objects.filter(name=NAME).delete()


def dataset_index() -> Index:
    """The kept index; worked out and kept again when it is missing (the keeping is
    skipped when the database takes no write: a read-only replica's outage)."""
    found = KeptFact.objects.filter(name=NAME, version=VERSION).values_list("data", flat=True)
    data = next(iter(found), None)
    if not isinstance(data, dict):
        try:
            with transaction.atomic():
                data = refresh_dataset_index()
        except DatabaseError:
            data = work_out()
    return Index(
        ids={
            key: {slug: frozenset(ids) for slug, ids in data["ids"].get(key, {}).items()}
            for key in KEYS
        },
        names={key: data["names"].get(key, {}) for key in KEYS},
    )
