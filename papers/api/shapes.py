"""Rows in the shapes of the original Papers with Code API (paperswithcode-client's models).

Ids are our slugs. Text the client declares required (`str`) is "" when we have none;
optional text is null when empty, as the archive writes "nothing". Each function takes
rows fetched by the caller (papers.api.queries), so shaping never queries.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.text import slugify

from papers.archive.export.records import export_sample
from papers.identifiers import evaluation_id
from papers.models import (
    Author,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    Repository,
    Sample,
    Task,
)
from papers.templatetags.page_meta import is_http_url


def link(url: str | None) -> str | None:
    """A URL from the archive as the pages link it: absolute http(s) only, never a
    `javascript:` or `data:` URL that a client might put in a link of its own; None
    for anything else."""
    return url if is_http_url(url) else None


_PROCEEDING = re.compile(r"^(?P<name>.*?)\s+(?P<year>\d{4})(?:\s+(?P<month>\d{1,2}))?$")


def execution(p: Paper | None) -> dict[str, Any] | None:
    """What the execution report on a paper's code says, or None when it has none (or
    the paper is hidden): its samples by status (statuses outside the vocabulary kept
    verbatim), how many samples, and when the report was read. An extra key the
    original API does not have; clients that do not know it ignore it."""
    if p is None or not p.has_report or p.hidden:
        return None
    statuses = p.sample_statuses if isinstance(p.sample_statuses, dict) else {}
    return {
        "samples_by_status": dict(statuses),
        "sample_count": p.sample_count,
        "report_read_at": p.report_read_at.isoformat() if p.report_read_at else None,
    }


def provenance(record) -> dict[str, Any]:
    """Where a record's values come from: `source` "archive" (the snapshot), "contributed"
    (through the API: `contributed_by` and `contributed_at` say who and when) or "edited"
    (by staff). Extra keys the original API does not have; the client ignores them. The
    contributor must be select_related (or the record just written)."""
    user = record.contributed_by if record.contributed_by_id else None
    return {
        "source": record.source,
        "contributed_by": user.get_username() if user else None,
        "contributed_at": record.contributed_at.isoformat() if record.contributed_at else None,
    }


def paper(p: Paper, authors: list[str]) -> dict[str, Any]:
    return {
        "id": p.slug,
        "arxiv_id": p.arxiv_id or None,
        "nips_id": p.nips_id or None,
        "url_abs": link(p.url_abs) or "",  # the client declares both required text
        "url_pdf": link(p.url_pdf) or "",
        "title": p.title,
        "abstract": p.abstract,
        "authors": authors,
        "published": p.published.isoformat() if p.published else None,
        "conference": p.conference or None,
        "conference_url_abs": p.conference_url_abs or None,
        "conference_url_pdf": p.conference_url_pdf or None,
        "proceeding": p.proceeding or None,
        "execution": execution(p),
        **provenance(p),
    }


def repository(
    r: Repository, framework: str, *, is_official: bool | None = None
) -> dict[str, Any]:
    return {
        "url": link(r.url) or "",
        "owner": r.owner,
        "name": r.name,
        "description": r.description,
        "stars": r.stars or 0,  # the archive does not carry stars; the client needs a number
        "framework": framework,
        "is_official": is_official,
    }


def author(a: Author) -> dict[str, Any]:
    return {"id": a.slug, "full_name": a.name}


def task(t: Task) -> dict[str, Any]:
    return {"id": t.slug, "name": t.name, "description": t.description, **provenance(t)}


def dataset(d: Dataset) -> dict[str, Any]:
    return {
        "id": d.slug,
        "name": d.name,
        "full_name": d.full_name or None,
        "url": link(d.homepage),
        **provenance(d),
    }


def method(m: Method, paper_slug: str | None) -> dict[str, Any]:
    return {
        "id": m.slug,
        "name": m.name,
        "full_name": m.full_name,
        "description": m.description,
        "paper": paper_slug,
    }


def evaluation(board: Leaderboard) -> dict[str, Any]:
    """A leaderboard; its task and dataset must be select_related."""
    return {
        "id": evaluation_id(board.task.slug, board.dataset.slug),
        "task": board.task.slug,
        "dataset": board.dataset.slug,
        "description": board.description,
        "mirror_url": link(board.mirror_url),
        **provenance(board),
    }


def metric(m: LeaderboardMetric, metric_id: str) -> dict[str, Any]:
    return {"id": metric_id, "name": m.name, "description": "", "is_loss": m.is_lower_better}


def result(row: LeaderboardRow, rank: int | None, best_metric: str | None) -> dict[str, Any]:
    """A leaderboard row; `rank` is its place by the board's first metric (as the site
    ranks it), None when it has no number for it. Its paper must be select_related."""
    return {
        "id": row.row_key,
        "best_rank": rank,
        "metrics": row.metrics,
        "methodology": row.model_name,
        "uses_additional_data": row.uses_additional_data,
        "paper": row.paper.slug if row.paper_id else None,
        "best_metric": best_metric if rank is not None else None,
        "evaluated_on": row.paper_date or None,
        "external_source_url": link(row.external_source_url),
        "execution": execution(row.paper) if row.paper_id else None,
        **provenance(row),
    }


def sample(s: Sample, paper_slug: str) -> dict[str, Any]:
    """A sample in the record's shape (the paper record's `syntology.samples`), with its paper."""
    return {"paper": paper_slug, **export_sample(s), "file_url": link(s.file_url) or ""}


# --- conferences, proceedings and areas: derived, not stored ------------------------------


def proceeding_parts(text: str) -> tuple[str, int | None, int | None]:
    """("NeurIPS", 2019, 12) from "NeurIPS 2019 12"; (text, None, None) when it has no year."""
    match = _PROCEEDING.match(text.strip())
    if not match or not match["name"]:
        return text.strip(), None, None
    month = int(match["month"]) if match["month"] else None
    return match["name"], int(match["year"]), month if month and 1 <= month <= 12 else None


def conference_id(proceeding_text: str) -> str:
    return slugify(proceeding_parts(proceeding_text)[0])


def proceeding_id(proceeding_text: str) -> str:
    return slugify(proceeding_text)


def conference(name: str) -> dict[str, Any]:
    return {"id": slugify(name), "name": name}


def proceeding(text: str) -> dict[str, Any]:
    _, year, month = proceeding_parts(text)
    return {"id": proceeding_id(text), "year": year, "month": month}


def area(name: str) -> dict[str, Any]:
    return {"id": slugify(name), "name": name}
