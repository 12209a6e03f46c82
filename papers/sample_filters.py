"""The filter chips of every sample list (a paper's report, a repository's samples,
/samples): for each field, each value with how many samples the other chosen filters
leave it, whether it is chosen, and the query string that toggles it.

Counts come from the list's combinations: how many samples share each (status, contract
check, language, repository kind). That is one GROUP BY over the list (or a count of
samples already loaded), whatever is chosen, and the counts of every field under the
other fields' filters, the values that count zero under them (shown disabled) and the
totals by status all follow from it in Python: the combinations number a few hundred at
most, however many samples there are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from urllib.parse import urlencode

from django.db.models import Count, QuerySet

from papers.models import Sample

# (field, label) in the order the chips are shown.
FIELDS = (
    ("status", "Status"),
    ("contract_check", "Contract check"),
    ("language", "Language"),
    ("repo_kind", "Repository kind"),
)
NAMES = tuple(name for name, _ in FIELDS)

Combination = tuple[str, ...]  # one value per NAMES entry, "" for none


def combinations(samples: QuerySet[Sample]) -> Counter[Combination]:
    """How many of `samples` share each combination of the chip fields: one query."""
    rows = samples.order_by().values_list(*NAMES).annotate(n=Count("pk"))
    found: Counter[Combination] = Counter()
    for *values, n in rows:
        found[tuple(value or "" for value in values)] += n
    return found


def combinations_of(samples: Iterable[Sample]) -> Counter[Combination]:
    """The same, for samples already loaded."""
    return Counter(tuple(getattr(s, name) or "" for name in NAMES) for s in samples)


def chips(
    found: Counter[Combination], chosen: dict[str, str], keep: dict[str, str] | None = None
) -> list[dict]:
    """For each field with any value: its options, largest counts first. An option's
    count is the samples with that value that the other chosen filters keep; `query`
    chooses it (or, when chosen, drops it) and keeps the other filters and `keep`."""
    fields = []
    for index, (name, label) in enumerate(FIELDS):
        others = [(NAMES.index(k), v) for k, v in chosen.items() if k != name]
        counts: Counter[str] = Counter()
        for combination, n in found.items():
            value = combination[index]
            if value:
                counts[value] += n if all(combination[i] == v for i, v in others) else 0
        if name in chosen:
            counts[chosen[name]] += 0  # chosen, yet unknown to this list: shown, at 0
        if not counts:
            continue
        options = []
        for value, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
            active = chosen.get(name) == value
            query = {**(keep or {}), **chosen, name: value}
            if active:
                query.pop(name)
            options.append(
                {
                    "value": value,
                    "n": n,
                    "active": active,
                    "disabled": not n and not active,
                    "query": urlencode(query),
                }
            )
        fields.append({"key": name, "label": label, "options": options})
    return fields


def status_counts(found: Counter[Combination]) -> dict[str, int]:
    """{status: samples}, most frequent first (Sample.objects.status_counts' order)."""
    counts: Counter[str] = Counter()
    for combination, n in found.items():
        counts[combination[0]] += n
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def matching(samples: Iterable[Sample], chosen: dict[str, str]) -> list[Sample]:
    """The loaded samples that every chosen filter keeps."""
    return [s for s in samples if all((getattr(s, k) or "") == v for k, v in chosen.items())]


def by_repository(samples: Iterable[Sample]) -> list[dict]:
    """Samples grouped by repository, in the order each repository first appears."""
    groups: dict[str, dict] = {}
    for sample in samples:
        group = groups.setdefault(
            sample.repo,
            {
                "repo": sample.repo,
                "kind": sample.repo_kind_label,
                "repository": sample.repository,
                "samples": [],
            },
        )
        group["samples"].append(sample)
    return list(groups.values())
