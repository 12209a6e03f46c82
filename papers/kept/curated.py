"""The counts the browse pages keep on each task, method and dataset ("curated" records):
their visible papers, those with code, their leaderboards (`benchmark_count`), a
method's papers a year, and the execution aggregates of their papers' reports.

A few grouped queries over the link tables, whatever the number of records: an import
refreshes every record once at its end (papers.kept.refresh_all()), any other write
the records it touched (papers.kept.after_write()).
"""

from __future__ import annotations

from collections import Counter

from django.db import models
from django.db.models.functions import ExtractYear

from papers.db import update_rows
from papers.models import Leaderboard

# The execution aggregates of a task, method or dataset, which refresh_counts() keeps
# beside its paper counts.
EXECUTION_FIELDS = [
    "report_paper_count",
    "sample_statuses",
    "status_paper_counts",
    "report_claims",
]
CLAIMS_KEPT = 3  # distinct claim sentences a record keeps, the most common first


def refresh_counts(records: models.QuerySet) -> int:
    """Recompute the counts of these records (a queryset of tasks, methods or datasets)
    from the paper links and leaderboards, writing only the rows whose counts changed;
    how many changed."""
    model = records.model
    link = model._meta.get_field("paper_links").related_model
    key = f"{model._meta.model_name}_id"
    links = link.objects.filter(paper__hidden=False).order_by()
    ids = None
    if records.query.has_filters():
        ids = list(records.values_list("id", flat=True))
        links = links.filter(**{f"{key}__in": ids})
    papers = dict(links.values_list(key).annotate(n=models.Count("paper_id")))
    with_code = links.filter(paper__code_link_count__gt=0)
    code = dict(with_code.values_list(key).annotate(n=models.Count("paper_id")))
    fields = ["paper_count", "code_paper_count"]
    boards: dict[int, int] = {}
    years: dict[int, dict[str, int]] = {}
    if hasattr(model, "benchmark_count"):
        fields.append("benchmark_count")
        boards = _boards(key, ids)
    if hasattr(model, "papers_by_year"):
        fields.append("papers_by_year")
        years = _papers_by_year(links, key)
    fields += EXECUTION_FIELDS
    execution = _execution(links, key)
    changed = []
    for pk, *stored in records.order_by().values_list("id", *fields):
        fresh = {
            "paper_count": papers.get(pk, 0),
            "benchmark_count": boards.get(pk, 0),
            "code_paper_count": code.get(pk, 0),
            "papers_by_year": dict(sorted(years.get(pk, {}).items())),
            **(execution.get(pk) or _Execution()).fields(),
        }
        values = [fresh[f] for f in fields]
        if values != stored:
            changed.append((*values, pk))
    # Plain UPDATEs: bulk_update builds a CASE expression per record and field, which
    # for every task, method and dataset of an archive costs more time and memory
    # at the end of an import than the queries above.
    return update_rows(model, fields, changed)


def _boards(key: str, ids: list[int] | None) -> dict[int, int]:
    """Leaderboards per record (of these ids, or all)."""
    found = Leaderboard.objects.order_by()
    if ids is not None:
        found = found.filter(**{f"{key}__in": ids})
    return dict(found.values_list(key).annotate(n=models.Count("id")))


def _papers_by_year(links, key: str) -> dict[int, dict[str, int]]:
    """Per record: year → its visible papers dated with certainty."""
    years: dict[int, dict[str, int]] = {}
    rows = (
        links.filter(paper__published__isnull=False, paper__date_uncertain=False)
        .annotate(year=ExtractYear("paper__published"))
        .values_list(key, "year")
        .annotate(n=models.Count("paper_id"))
    )
    for pk, year, n in rows:
        years.setdefault(pk, {})[str(year)] = n
    return years


class _Execution:
    """One record's fresh execution aggregates, as _execution() adds them up."""

    __slots__ = ("claims", "papers", "samples", "statuses")

    def __init__(self):
        self.papers = 0
        self.samples: dict[str, int] = {}
        self.statuses: dict[str, int] = {}
        self.claims: Counter[str] = Counter()

    def fields(self) -> dict:
        by_samples = sorted(self.samples.items(), key=lambda item: (-item[1], item[0]))
        return {
            "report_paper_count": self.papers,
            "sample_statuses": dict(by_samples),
            "status_paper_counts": {status: self.statuses[status] for status, _ in by_samples},
            "report_claims": [claim for claim, _ in self.claims.most_common(CLAIMS_KEPT)],
        }


def _execution(links, key: str) -> dict[int, _Execution]:
    """Per record: its visible papers with code whose code has an execution report, their
    samples by status (from each paper's own counts, Paper.sample_statuses, which the
    search's status filter reads too), how many of them have a sample of each status,
    and their claim sentences. One query, streamed: a row per (record, reported paper)."""
    found: dict[int, _Execution] = {}
    rows = links.filter(paper__code_link_count__gt=0, paper__has_report=True).values_list(
        key, "paper__sample_statuses", "paper__report_claim"
    )
    for pk, statuses, claim in rows.iterator(chunk_size=5000):
        record = found.get(pk)
        if record is None:
            record = found[pk] = _Execution()
        record.papers += 1
        for status, n in (statuses or {}).items():
            if n:
                record.samples[status] = record.samples.get(status, 0) + n
                record.statuses[status] = record.statuses.get(status, 0) + 1
        if claim:
            record.claims[claim] += 1
    return found
