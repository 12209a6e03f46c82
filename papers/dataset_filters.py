"""/datasets filtered by modality, task and language, as Papers with Code's
`?mod=images&task=image-classification&lang=english` did, with the number of datasets
each value keeps.

A value is matched by its slug ("Point cloud" is `point-cloud`, "English" `english`), so
Papers with Code's addresses work as they were. The index (every visible dataset's id by
the slug of each of its modalities, languages and tasks) is two queries over the
catalogue, kept per content version (codewithpapers.cache.by_version): a page then
intersects sets of ids and counts, and asks the database only for the page it shows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.utils.text import slugify

from papers.kept.datasets import dataset_index

# The filters, by query parameter: (label, how many values the page offers at most).
FILTERS = {"mod": ("Modality", 40), "task": ("Task", 30), "lang": ("Language", 30)}


@dataclass
class Choice:
    value: str  # the slug
    name: str
    count: int  # datasets it keeps, with the other filters applied
    chosen: bool = False
    href: str = ""  # the page with this value chosen (or, when chosen, without it)


@dataclass
class Facet:
    key: str  # the query parameter
    label: str
    choices: list[Choice]
    chosen: str = ""  # the slug chosen, if any
    unknown: bool = False  # a value chosen that no dataset has
    clear_href: str = ""  # the page without this filter


def link(params, **changes) -> str:
    """A query string from `params` (a QueryDict) with `changes` made (None removes a
    key) and the page number dropped: "?mod=images&sort=papers"."""
    query = params.copy()
    query.pop("page", None)
    for key, value in changes.items():
        if value is None:
            query.pop(key, None)
        else:
            query[key] = value
    return "?" + query.urlencode() if query else "?"


def with_links(facets: list[Facet], params) -> list[Facet]:
    """The facets with each value's link and each filter's "any" link."""
    for facet in facets:
        facet.clear_href = link(params, **{facet.key: None})
        for choice in facet.choices:
            value = None if choice.chosen else choice.value
            choice.href = link(params, **{facet.key: value})
    return facets


def apply(chosen: dict[str, str]) -> tuple[frozenset[int] | None, list[Facet]]:
    """The ids of the datasets the chosen filters keep (None without a filter), and each
    filter's values with their counts given the other filters (the values that keep a
    dataset, most first; a chosen one always shown)."""
    found = dataset_index()
    wanted = {key: slugify(value) for key, value in chosen.items() if value}
    kept: frozenset[int] | None = None
    for key, slug in wanted.items():
        ids = found.ids[key].get(slug, frozenset())
        kept = ids if kept is None else kept & ids
    facets = []
    for key, (label, limit) in FILTERS.items():
        others = None
        for other, slug in wanted.items():
            if other != key:
                ids = found.ids[other].get(slug, frozenset())
                others = ids if others is None else others & ids
        counts = Counter()
        for slug, ids in found.ids[key].items():
            n = len(ids) if others is None else len(ids & others)
            if n:
                counts[slug] = n
        top = [slug for slug, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        top = top[:limit]
        mine = wanted.get(key, "")
        if mine and mine not in top:
            top.insert(0, mine)
        facets.append(
            Facet(
                key=key,
                label=label,
                choices=[
                    Choice(
                        slug, found.names[key].get(slug, slug), counts.get(slug, 0), slug == mine
                    )
                    for slug in top
                ],
                chosen=mine,
                unknown=bool(mine) and mine not in found.ids[key],
            )
        )
    return kept, facets
