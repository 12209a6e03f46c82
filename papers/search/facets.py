"""Facet counts over a result set: how many of the matching papers have code, official
code, each framework and each sample status.

One query on either engine: the matches are computed once (a materialised CTE), then
counted four ways. Shipping the ids to Python and back as `IN (…)` lists cost more than
the counting at 10,000 matches, and a full-text match evaluated once per facet paid for
the match (and a prefix term's expansion) four times. A search page within the count
cap counts them in the query that finds its page (Backend.ranked_window_with_facets,
through facet_selects()), so the matches are found once for the page, its count and
its facets.

Every count comes from the matches' own rows: a paper's frameworks and sample statuses
are kept on it (Paper.frameworks, Paper.sample_statuses, as JSON objects whose keys are
the values), so no code link or sample is read: at 9,700 matches the facets cost ~9 ms
of CPU on PostgreSQL and ~8 ms on SQLite, against ~15 and ~11 ms looking each match up
in those tables.
"""

from __future__ import annotations

from papers.models import Paper

FACET_COLUMNS = (
    "id",
    "code_link_count",
    "has_official_code",
    "sample_count",
    "frameworks",
    "sample_statuses",
)


def facet_selects(json_keys: str, m: str = "m", where: str = "") -> str:
    """The facet counts over a CTE `m` (FACET_COLUMNS) as UNION ALL'ed rows (facet,
    value, count). `json_keys`: the engine's SQL for the keys of a JSON object column
    `shape`, one row each, as `key` (Backend.JSON_KEYS). `where`: a condition every part
    must meet too (the combined query of a search page counts facets only within the
    cap).

    A paper's frameworks (or statuses) are counted by their distinct objects first: a
    few dozen ({"pytorch": 1} is most of them), whose keys are then taken apart. Taking
    every paper's object apart costs ~4 µs a paper on PostgreSQL (a set-returning
    function call each)."""
    also = f" AND {where}" if where else ""

    def keys(facet: str, column: str, count: str) -> str:
        shapes = (
            f"SELECT {column} AS shape, COUNT(*) AS n FROM {m} "
            f"WHERE {count} > 0{also} GROUP BY {column}"
        )
        each = json_keys.format(shapes=shapes)
        return f"SELECT '{facet}', key, CAST(SUM(n) AS INTEGER) FROM ({each}) AS keys GROUP BY key"

    return (
        f"SELECT 'code' AS facet, 'has_code' AS value, COUNT(*) AS n FROM {m} "
        f"WHERE code_link_count > 0{also} "
        f"UNION ALL SELECT 'code', 'official', COUNT(*) FROM {m} WHERE has_official_code{also} "
        f"UNION ALL {keys('framework', 'frameworks', 'code_link_count')} "
        f"UNION ALL {keys('status', 'sample_statuses', 'sample_count')}"
    )


def facets_from(rows) -> dict[str, dict[str, int]]:
    """Rows (facet, value, count) as {facet: {value: count}}, largest counts first."""
    facets: dict[str, dict[str, int]] = {"code": {}, "framework": {}, "status": {}}
    for facet, value, n in sorted(rows, key=lambda row: (row[0], -row[2], row[1])):
        facets[facet][value] = n
    return facets


def matches_of(base) -> tuple[str, tuple]:
    """The facet columns of a Paper queryset, as SQL for
    papers.search.backends.facet_counts()."""
    assert base.model is Paper
    columns = base.order_by().values(*FACET_COLUMNS)
    return columns.query.sql_with_params()
