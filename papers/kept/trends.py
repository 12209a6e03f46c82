"""/trends: each framework's share of the new code links a quarter, worked out over every
code link of a visible, dated paper (a link counts in its paper's quarter: the archive
gives no date of its own to a link) and kept as one KeptFact by `refresh_trends()`, which
`refresh_all()` (imports, `manage.py refresh_browse_counts`) runs. One GROUP BY query."""

from __future__ import annotations

from django.db.models import Count
from django.db.models.functions import ExtractQuarter, ExtractYear

from papers.models import CodeLink, KeptFact

NAME = "framework-trends"
# The shape of the kept data: raise it with any change to it, so that a fact kept by the
# code before is ignored (the page says the trends are not worked out yet) until refreshed.
VERSION = 1
TOP = 6  # frameworks shown by name (the most links overall); the rest are "other"
UNNAMED = {"", "none"}  # the archive's "no framework named"
OTHER, UNSPECIFIED = "other", "unspecified"
MIN_LINKS = 20  # a quarter with fewer new links is left out: its shares would be noise


def work_out() -> dict:
    """The trends: the quarters shown ("2019 Q3"), the frameworks in order (the most
    links first; then "other" and "unspecified"), and per framework its new links each
    quarter."""
    rows = (
        CodeLink.objects.filter(
            paper__hidden=False, paper__published__isnull=False, paper__date_uncertain=False
        )
        .annotate(year=ExtractYear("paper__published"), quarter=ExtractQuarter("paper__published"))
        .values_list("year", "quarter", "framework")
        .annotate(n=Count("id"))
        .order_by()
    )
    counts: dict[tuple[int, int], dict[str, int]] = {}
    totals: dict[str, int] = {}
    for year, quarter, framework, n in rows:
        name = UNSPECIFIED if (framework or "").strip().lower() in UNNAMED else framework.strip()
        per = counts.setdefault((year, quarter), {})
        per[name] = per.get(name, 0) + n
        totals[name] = totals.get(name, 0) + n
    named = sorted((f for f in totals if f != UNSPECIFIED), key=lambda f: (-totals[f], f))
    shown = named[:TOP]
    order = [
        *shown,
        *([OTHER] if len(named) > TOP else []),
        *([UNSPECIFIED] if UNSPECIFIED in totals else []),
    ]
    quarters = [key for key in sorted(counts) if sum(counts[key].values()) >= MIN_LINKS]
    series = {name: [] for name in order}
    for key in quarters:
        per = counts[key]
        for name in order:
            if name == OTHER:
                series[name].append(
                    sum(n for f, n in per.items() if f not in shown and f != UNSPECIFIED)
                )
            else:
                series[name].append(per.get(name, 0))
    return {
        "quarters": [f"{year} Q{quarter}" for year, quarter in quarters],
        "frameworks": order,
        "links": series,
    }


def refresh_trends() -> None:
    KeptFact.objects.update_or_create(name=NAME, defaults={"data": work_out(), "version": VERSION})


def kept() -> dict | None:
    """The trends as last kept, or None (never worked out, or by older code)."""
    found = KeptFact.objects.filter(name=NAME, version=VERSION).values_list("data", flat=True)
    return next(iter(found), None)
