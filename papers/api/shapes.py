"""Rows in the shapes of the original Papers with Code API (paperswithcode-client's models).

Ids are our slugs. Text the client declares required (`str`) is "" when we have none;
optional text is null when empty, as the archive writes "nothing". Each function takes
rows fetched by the caller (papers.api.queries), so shaping never queries.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.utils.text import slugify

from papers.api.openapi import (
    BOOLEAN,
    INTEGER,
    STRING,
    URL,
    array,
    component,
    nullable,
)
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
    ResultVerification,
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


# Where a record's values come from (provenance() below), in the shapes that carry it.
PROVENANCE = {
    "source": {**STRING, "enum": ["archive", "contributed", "edited"]},
    "contributed_by": nullable(STRING),
    "contributed_at": {**nullable(STRING), "format": "date-time"},
}


@component(
    "Execution",
    {
        "samples_by_status": {
            "type": "object",
            "additionalProperties": INTEGER,
            "description": "Samples by status; statuses outside the vocabulary verbatim.",
        },
        "sample_count": INTEGER,
        "report_read_at": {**nullable(STRING), "format": "date-time"},
    },
    description="The execution report on the paper's code (null when it has none).",
)
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


@component(
    "Paper",
    {
        "id": {**STRING, "description": "The paper's slug (/paper/<id>)."},
        "arxiv_id": nullable(STRING),
        "nips_id": nullable(STRING),
        "url_abs": STRING,
        "url_pdf": STRING,
        "title": STRING,
        "abstract": STRING,
        "authors": array(STRING),
        "published": {**nullable(STRING), "format": "date"},
        "conference": nullable(STRING),
        "conference_url_abs": nullable(STRING),
        "conference_url_pdf": nullable(STRING),
        "proceeding": nullable(STRING),
        "execution": {"anyOf": [{"$ref": "#/components/schemas/Execution"}, {"type": "null"}]},
        **PROVENANCE,
    },
)
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


@component(
    "Repository",
    {
        "url": STRING,
        "owner": STRING,
        "name": STRING,
        "description": STRING,
        "stars": {**INTEGER, "description": "0 where the archive does not know it."},
        "framework": STRING,
        "is_official": nullable(BOOLEAN),
        **PROVENANCE,
    },
    optional=tuple(PROVENANCE),  # a code link just added says where it came from
)
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


@component("Author", {"id": STRING, "full_name": STRING})
def author(a: Author) -> dict[str, Any]:
    return {"id": a.slug, "full_name": a.name}


@component("Task", {"id": STRING, "name": STRING, "description": STRING, **PROVENANCE})
def task(t: Task) -> dict[str, Any]:
    return {"id": t.slug, "name": t.name, "description": t.description, **provenance(t)}


@component(
    "Dataset",
    {
        "id": STRING,
        "name": STRING,
        "full_name": nullable(STRING),
        "url": nullable(URL),
        **PROVENANCE,
    },
)
def dataset(d: Dataset) -> dict[str, Any]:
    return {
        "id": d.slug,
        "name": d.name,
        "full_name": d.full_name or None,
        "url": link(d.homepage),
        **provenance(d),
    }


@component(
    "Method",
    {
        "id": STRING,
        "name": STRING,
        "full_name": STRING,
        "description": STRING,
        "paper": {**nullable(STRING), "description": "The introducing paper's id."},
    },
)
def method(m: Method, paper_slug: str | None) -> dict[str, Any]:
    return {
        "id": m.slug,
        "name": m.name,
        "full_name": m.full_name,
        "description": m.description,
        "paper": paper_slug,
    }


@component(
    "Evaluation",
    {
        "id": {**STRING, "description": "<task id>--<dataset id>"},
        "task": STRING,
        "dataset": STRING,
        "description": STRING,
        "mirror_url": nullable(STRING),
        **PROVENANCE,
    },
    description="An evaluation table: a leaderboard, one task on one dataset.",
)
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


@component(
    "Metric",
    {
        "id": STRING,
        "name": STRING,
        "description": STRING,
        "is_loss": {**BOOLEAN, "description": "Lower is better."},
    },
)
def metric(m: LeaderboardMetric, metric_id: str) -> dict[str, Any]:
    return {"id": metric_id, "name": m.name, "description": "", "is_loss": m.is_lower_better}


@component(
    "Result",
    {
        "id": STRING,
        "best_rank": {**nullable(INTEGER), "description": "Place by the board's first metric."},
        "metrics": {"type": "object", "description": "Metric name → value as given."},
        "methodology": STRING,
        "uses_additional_data": BOOLEAN,
        "paper": nullable(STRING),
        "best_metric": nullable(STRING),
        "evaluated_on": nullable(STRING),
        "external_source_url": nullable(STRING),
        "execution": {"anyOf": [{"$ref": "#/components/schemas/Execution"}, {"type": "null"}]},
        "verification": {
            "type": ["string", "null"],
            "enum": ["verified", "disputed", None],
            "description": "What an author of the paper, whose claim staff approved, says "
            'of the row: "verified" (they vouch for it), "disputed" (they say it is wrong: '
            "moderators look at it), or null (no author has said).",
        },
        **PROVENANCE,
    },
)
def result(row: LeaderboardRow, rank: int | None, best_metric: str | None) -> dict[str, Any]:
    """A leaderboard row; `rank` is its place by the board's first metric (as the site
    ranks it), None when it has no number for it. Its paper and its verification must be
    select_related."""
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
        "verification": verdict(row),
        **provenance(row),
    }


def verdict(row: LeaderboardRow) -> str | None:
    try:
        return row.verification.verdict
    except ResultVerification.DoesNotExist:
        return None


@component(
    "Sample",
    {
        "paper": STRING,
        "code_sha256_prefix": nullable(STRING),
        "entry": nullable(STRING),
        "repo": nullable(STRING),
        "repo_kind": nullable(STRING),
        "path": nullable(STRING),
        "file_url": STRING,
        "link_basis": nullable(STRING),
        "language": nullable(STRING),
        "status": STRING,
        "verification_level": nullable(INTEGER),
        "contract_check": nullable(STRING),
        "metamorphic_tier": nullable(STRING),
        "behaviour_fingerprint": nullable(BOOLEAN),
        "licence": nullable(STRING),
        "inline_ok": nullable(BOOLEAN),
        "mcp_get_code": {"type": "object", "properties": {"code_sha256": nullable(STRING)}},
    },
    description="One function from the paper's code, run on synthesized inputs: its status "
    "is an execution fact about this sample, not a verdict on the paper. Keys the record "
    "adds beyond these are kept.",
    open_ended=True,
)
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


@component("Conference", {"id": STRING, "name": STRING})
def conference(name: str) -> dict[str, Any]:
    return {"id": slugify(name), "name": name}


@component("Proceeding", {"id": STRING, "year": nullable(INTEGER), "month": nullable(INTEGER)})
def proceeding(text: str) -> dict[str, Any]:
    _, year, month = proceeding_parts(text)
    return {"id": proceeding_id(text), "year": year, "month": month}


@component("Area", {"id": STRING, "name": STRING})
def area(name: str) -> dict[str, Any]:
    return {"id": slugify(name), "name": name}


@component(
    "Licence",
    {
        "licence": STRING,
        "licence_url": URL,
        "attribution": URL,
        "modified": STRING,
        "non_affiliation": STRING,
        "source": STRING,
    },
    description="The licence and attribution every page of the site carries.",
)
def licence() -> dict[str, Any]:
    about = settings.ARCHIVE_ABOUT
    return {
        "licence": about["licence"],
        "licence_url": about["licence_url"],
        "attribution": about["attribution"],
        "modified": about["modified"],
        "non_affiliation": about["non_affiliation"],
        "source": "Papers with Code, via the pwc-archive mirror",
    }
