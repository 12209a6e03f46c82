"""What /healthz and the operator learn of the harvests (papers.models.Harvest)."""

from __future__ import annotations

import logging

from papers.models import Harvest

logger = logging.getLogger("papers.arxiv")
FAILURES_TO_ALERT = 3


def last_harvest(connection) -> dict | None:
    """The last finished harvest's time and outcome, read on `connection` (the health
    probe's own), or None when there has been none (or no harvest table yet)."""
    table = Harvest._meta.db_table
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT finished_at, outcome, error FROM {table} "
                "WHERE outcome <> 'running' ORDER BY id DESC LIMIT 1"
            )
            row = cursor.fetchone()
    except Exception:  # a database not migrated yet: nothing to report
        return None
    if row is None:
        return None
    finished, outcome, error = row
    at = finished.isoformat() if hasattr(finished, "isoformat") else finished
    report = {"at": at, "outcome": outcome}
    if error:
        report["error"] = error[:200]
    return report


def alert_if_failing(source: str) -> bool:
    """Log an error line when the last FAILURES_TO_ALERT harvests of `source` all failed
    (a monitoring system watching the log raises it); returns whether it did."""
    last = list(
        Harvest.objects.filter(source=source)
        .exclude(outcome=Harvest.Outcome.RUNNING)
        .order_by("-id")
        .values_list("outcome", "error")[:FAILURES_TO_ALERT]
    )
    if len(last) == FAILURES_TO_ALERT and all(o == Harvest.Outcome.FAILED for o, _ in last):
        logger.error(
            "arXiv harvest (%s): the last %d harvests failed; the latest: %s",
            source,
            FAILURES_TO_ALERT,
            last[0][1],
        )
        return True
    return False
