"""Facet counts over a result set: how many of the matching papers have code, official
code, each framework and each sample status.

One query on either engine: the matches are computed once (a materialised CTE), then
counted four ways. Shipping the ids to Python and back as `IN (…)` lists cost more than
the counting at 10,000 matches, and a full-text match evaluated once per facet paid for
the match (and a prefix term's expansion) four times. A search page within the count
cap counts them in the query that finds its page (Backend.ranked_window_with_facets,
through facet_selects()), so the matches are found once for the page, its count and
its facets.
"""

from __future__ import annotations

from django.db import connections

from papers.models import CodeLink, Paper, Sample

FACET_COLUMNS = ("id", "code_link_count", "has_official_code", "sample_count")


def facet_selects(m: str = "m", where: str = "") -> str:
    """The facet counts over a CTE `m` (FACET_COLUMNS) as UNION ALL'ed rows (facet,
    value, count). `where`: a condition every part must meet too (the combined query
    of a search page counts facets only within the cap).

    Only the papers whose denormalised counts say they have code links (or samples)
    are looked up in those tables: at 10,000 matches each lookup was ~45 ms on
    PostgreSQL, and most papers have neither (PaperQuerySet.refresh_counts keeps the
    counts true)."""
    codelinks, samples = CodeLink._meta.db_table, Sample._meta.db_table
    also = f" AND {where}" if where else ""
    return (
        f"SELECT 'code' AS facet, 'has_code' AS value, COUNT(*) AS n FROM {m} "
        f"WHERE code_link_count > 0{also} "
        f"UNION ALL SELECT 'code', 'official', COUNT(*) FROM {m} WHERE has_official_code{also} "
        f"UNION ALL SELECT 'framework', framework, COUNT(DISTINCT paper_id) FROM {codelinks} "
        f"WHERE paper_id IN (SELECT id FROM {m} WHERE code_link_count > 0) "
        f"AND framework <> ''{also} GROUP BY framework "
        f"UNION ALL SELECT 'status', status, COUNT(DISTINCT paper_id) FROM {samples} "
        f"WHERE paper_id IN (SELECT id FROM {m} WHERE sample_count > 0){also} GROUP BY status"
    )


def facets_from(rows) -> dict[str, dict[str, int]]:
    """Rows (facet, value, count) as {facet: {value: count}}, largest counts first."""
    facets: dict[str, dict[str, int]] = {"code": {}, "framework": {}, "status": {}}
    for facet, value, n in sorted(rows, key=lambda row: (row[0], -row[2], row[1])):
        facets[facet][value] = n
    return facets


def facet_counts(matches_sql: str, params, using: str) -> dict[str, dict[str, int]]:
    """Counts over the papers `matches_sql` selects; it must give FACET_COLUMNS, one row
    a paper."""
    sql = f"WITH m AS MATERIALIZED ({matches_sql}) {facet_selects()}"
    with connections[using].cursor() as cursor:
        cursor.execute(sql, params)
        return facets_from(cursor.fetchall())


def matches_of(base) -> tuple[str, tuple]:
    """The facet columns of a Paper queryset, as SQL for facet_counts()."""
    assert base.model is Paper
    columns = base.order_by().values(*FACET_COLUMNS)
    return columns.query.sql_with_params()
