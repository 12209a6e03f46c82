"""What each paper keeps of its own rows: its code links' count, whether one is official
and their frameworks, its samples' count and their statuses (lists, sorting, the search's
filters and facets read them), and its authors' names in order (the full-text index
weighs them).

The importer refreshes the papers it touched at its end (`refresh_counts()`, and writes
their author names itself); any other write, through papers.kept.after_write().
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable

from django.db import connection, transaction

from papers.models import Paper

COUNTS_SPAN = 5000  # papers whose counts one round of refresh_counts() reads


def refresh_counts(paper_ids: Iterable[int]) -> int:
    """Recompute the denormalised counts of these papers from their code links and
    samples: how many links, whether one is official, the links by framework, how many
    samples and the samples by status. Writes only the rows whose values changed;
    returns how many. Ids in ascending order read the fewest rows.

    Raw SQL, round by round: an import touches up to every paper, and the ids it wrote
    are mostly contiguous, so each round reads a range of ids rather than binding
    thousands of them; holding every changed row until the end would take ~25 MB at 576k, and
    bulk_update's CASE expressions cost ~6 ms per row to build in the ORM."""
    written = 0
    with transaction.atomic(), connection.cursor() as cursor:
        for part in itertools.batched(paper_ids, COUNTS_SPAN):
            low, high = min(part), max(part)
            if high - low < 4 * len(part):
                where, params = "BETWEEN %s AND %s", [low, high]
            else:  # sparse: name them (in pieces under SQLite's variable limit)
                where, params = None, part
            fresh: dict[int, _Counts] = {}
            current = []
            for clause, args in _where(where, params):
                _count(cursor, clause, args, fresh)
                cursor.execute(
                    "SELECT id, code_link_count, has_official_code, frameworks, sample_count, "
                    f"sample_statuses FROM papers_paper WHERE id {clause}",
                    args,
                )
                current.extend(cursor.fetchall())
            changed = _changed(current, fresh, set(part))
            cursor.executemany(
                "UPDATE papers_paper SET code_link_count = %s, has_official_code = %s, "
                "frameworks = %s, sample_count = %s, sample_statuses = %s "
                "WHERE id = %s",
                changed,
            )
            written += len(changed)
    return written


def _count(cursor, clause: str, args: list, fresh: dict[int, _Counts]) -> None:
    """Add up the code links and samples of the papers `clause` names into `fresh`."""
    cursor.execute(
        "SELECT paper_id, framework, COUNT(*), "
        "COUNT(CASE WHEN is_official THEN 1 END) FROM papers_codelink "
        f"WHERE paper_id {clause} GROUP BY paper_id, framework",
        args,
    )
    for pk, framework, n, official in cursor.fetchall():
        counts = fresh.setdefault(pk, _Counts())
        counts.links += n
        counts.official = counts.official or official > 0
        if framework:
            counts.frameworks[framework] = n
    cursor.execute(
        "SELECT paper_id, status, COUNT(*) FROM papers_sample "
        f"WHERE paper_id {clause} GROUP BY paper_id, status",
        args,
    )
    for pk, status, n in cursor.fetchall():
        counts = fresh.setdefault(pk, _Counts())
        counts.samples += n
        counts.statuses[status] = n


def _changed(current: list[tuple], fresh: dict[int, _Counts], wanted: set[int]) -> list[tuple]:
    """The UPDATE parameters of the wanted papers whose stored counts differ."""
    as_json = Paper._meta.get_field("frameworks").get_db_prep_save
    changed = []
    for pk, links, official, by_framework, samples, by_status in current:
        if pk not in wanted:
            continue
        counts = fresh.get(pk) or _Counts()
        stored = (links, bool(official), _json(by_framework), samples, _json(by_status))
        if counts.row() != stored:
            changed.append(
                (
                    counts.links,
                    counts.official,
                    as_json(counts.frameworks, connection),
                    counts.samples,
                    as_json(counts.statuses, connection),
                    pk,
                )
            )
    return changed


class _Counts:
    """One paper's fresh counts, as refresh_counts() adds them up."""

    __slots__ = ("frameworks", "links", "official", "samples", "statuses")

    def __init__(self):
        self.links, self.official, self.samples = 0, False, 0
        self.frameworks: dict[str, int] = {}
        self.statuses: dict[str, int] = {}

    def row(self) -> tuple:
        return (self.links, self.official, self.frameworks, self.samples, self.statuses)


def _json(value) -> dict:
    """A JSON column as the database cursor returns it (text on SQLite, and on
    PostgreSQL as Django's connection loads jsonb)."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def _where(clause: str | None, params: list):
    """The WHERE clause of one round: a range, or its ids in pieces of 900."""
    if clause is not None:
        yield clause, params
        return
    for start in range(0, len(params), 900):
        part = params[start : start + 900]
        yield f"IN ({', '.join(['%s'] * len(part))})", part


def refresh_author_names(paper_ids: Iterable[int]) -> None:
    """Write these papers' author names again from their authorships, in order (after
    an edit of their author lists or of an author's name)."""
    for paper in Paper.objects.filter(pk__in=set(paper_ids)).only("pk"):
        paper.refresh_author_names()
