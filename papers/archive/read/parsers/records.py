"""Parse a seed-shaped paper record: the paper, its code links and its execution report
(the report's repositories and samples, whose counts must agree with its summaries)."""

from __future__ import annotations

import json
from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers.common import names, published, require_dict
from papers.archive.read.parsers.links import link_fields, reach
from papers.archive.read.parsers.shapes import RANK_RECORD, LinkIn, PaperIn, RecordIn, RepoIn
from papers.models import report_by_repo_kind, report_summary

RECORD_KEYS = (
    "about", "url", "title", "arxiv_id", "date", "proceeding", "authors", "abstract",
    "url_abs", "url_pdf", "source", "code_links", "tasks", "methods", "datasets_introduced",
    "methods_introduced", "results", "syntology", "arxiv_metadata", "syntology_extracted_results",
)  # fmt: skip
REPORT_KEYS = (
    "syntology_url", "atlas_url", "mcp", "developers", "read_at", "read_at_is", "claim",
    "repos", "summary", "by_repo_kind", "repo_kind_vocabulary", "n_pointer_only_for_licence",
    "samples",
)  # fmt: skip
SAMPLE_KEYS = (
    "code_sha256_prefix", "entry", "repo", "repo_kind", "path", "file_url", "link_basis",
    "language", "status", "verification_level", "contract_check", "metamorphic_tier",
    "behaviour_fingerprint", "licence", "inline_ok", "mcp_get_code",
)  # fmt: skip


def parse_record(raw: Any) -> RecordIn:
    raw = require_dict(raw)
    slug = n.paper_slug(raw.get("url"), "url")
    if not slug:
        raise RecordError("url", "missing or not /paper/<slug> (it is the paper's identity)")
    paper = _record_paper(raw, slug)
    links = _record_links(raw, paper)
    report, report_repos, samples = None, [], []
    syntology = raw.get("syntology")
    if syntology is not None:
        report, report_repos, samples = _record_report(n.obj(syntology, "syntology"))
    return RecordIn(
        paper=paper,
        links=links,
        report=report,
        report_repos=report_repos,
        samples=samples,
        datasets_introduced=names(raw.get("datasets_introduced"), "datasets_introduced"),
        methods_introduced=names(raw.get("methods_introduced"), "methods_introduced"),
    )


def _record_paper(raw: dict, slug: str) -> PaperIn:
    source = n.obj(raw.get("source"), "source")
    extra = {key: value for key, value in raw.items() if key not in RECORD_KEYS}
    if raw.get("results"):
        extra["results"] = raw["results"]
    fields = {
        "title": n.one_line(raw.get("title"), "title"),
        "arxiv_id": n.arxiv_id(raw.get("arxiv_id")) or None,
        "proceeding": n.one_line(raw.get("proceeding"), "proceeding", max_length=255),
        "abstract": n.text(raw.get("abstract"), "abstract"),
        "url_abs": n.text(raw.get("url_abs"), "url_abs", max_length=500),
        "url_pdf": n.text(raw.get("url_pdf"), "url_pdf", max_length=500),
        "source_archive": n.one_line(source.get("archive"), "source.archive", max_length=255),
        "source_snapshot": n.one_line(source.get("snapshot"), "source.snapshot", max_length=32),
        "source_row_kind": n.one_line(source.get("row_kind"), "source.row_kind", max_length=64),
        "source_licence_url": n.text(
            source.get("licence_url"), "source.licence_url", max_length=500
        ),
        "arxiv_metadata": raw.get("arxiv_metadata"),
        "extracted_results": raw.get("syntology_extracted_results"),
        "extra": extra,
        **published(raw, "date"),
    }
    return PaperIn(
        slug=slug,
        rank=RANK_RECORD,
        fields=fields,
        authors=n.text_list(raw.get("authors"), "authors"),
        tasks=names(raw.get("tasks"), "tasks"),
        methods=names(raw.get("methods"), "methods"),
    )


def _record_links(raw: dict, paper: PaperIn) -> list[LinkIn]:
    slug = paper.slug
    links = []
    for index, link in enumerate(n.obj_list(raw.get("code_links"), "code_links")):
        where = f"code_links[{index}]."
        url = n.text(link.get("repo_url"), f"{where}repo_url", max_length=500)
        if not url:
            raise RecordError(f"{where}repo_url", "missing (it names the repository)")
        link_slug = n.paper_slug(link.get("paper_slug"), f"{where}paper_slug", bare=True)
        if link_slug and link_slug != slug:
            raise RecordError(f"{where}paper_slug", f"{link_slug!r} is not this record's {slug!r}")
        repo = RepoIn(url, reach(link.get("reach"), f"{where}reach") if "reach" in link else {})
        fields = link_fields(link, where) | {"position": index}
        links.append(LinkIn(paper=paper, repo=repo, fields=fields))
    return links


def _record_report(s: dict) -> tuple[dict, list[tuple[RepoIn, str]], list[dict]]:
    """A record's Syntology report: the paper's report fields, its repositories (with
    their provenance) and its samples, whose counts must agree with its summaries."""
    report = {
        "has_report": True,
        "report_url": n.text(s.get("syntology_url"), "syntology.syntology_url", max_length=500),
        "report_atlas_url": n.text(s.get("atlas_url"), "syntology.atlas_url", max_length=500),
        "report_developers_url": n.text(
            s.get("developers"), "syntology.developers", max_length=500
        ),
        "report_mcp": s.get("mcp"),
        "report_read_at": n.timestamp(s.get("read_at"), "syntology.read_at"),
        "report_read_at_is": n.text(s.get("read_at_is"), "syntology.read_at_is", max_length=500),
        "report_claim": n.text(s.get("claim"), "syntology.claim"),
        "report_repo_kind_vocabulary": n.obj(
            s.get("repo_kind_vocabulary"), "syntology.repo_kind_vocabulary"
        ),
        "report_n_pointer_only_for_licence": n.integer(
            s.get("n_pointer_only_for_licence"), "syntology.n_pointer_only_for_licence"
        ),
    }
    report_repos = []
    for index, repo in enumerate(n.obj_list(s.get("repos"), "syntology.repos")):
        where = f"syntology.repos[{index}]"
        url = n.text(repo.get("url"), f"{where}.url", max_length=500)
        if not url:
            raise RecordError(f"{where}.url", "missing (it names the repository)")
        reached = reach(repo.get("reach"), f"{where}.reach") if "reach" in repo else {}
        provenance = n.one_line(repo.get("provenance"), f"{where}.provenance", max_length=255)
        report_repos.append((RepoIn(url, reached), provenance))
    samples = [
        _parse_sample(sample, f"syntology.samples[{index}]", index)
        for index, sample in enumerate(n.obj_list(s.get("samples"), "syntology.samples"))
    ]
    _check_counts(s, "summary", report_summary, samples)
    _check_counts(s, "by_repo_kind", report_by_repo_kind, samples)
    return report, report_repos, samples


class _SampleView:
    """Lets the model's report helpers count parsed samples."""

    __slots__ = ("repo", "repo_kind", "status")

    def __init__(self, sample: dict):
        self.status, self.repo_kind, self.repo = (
            sample["status"],
            sample["repo_kind"],
            sample["repo"],
        )

    @property
    def ran(self) -> bool:
        return self.status.startswith("ran")


def _check_counts(report: dict, key: str, derive, samples: list[dict]) -> None:
    given = report.get(key)
    if given is None:
        return
    derived = derive([_SampleView(s) for s in samples])
    if given != derived:
        raise RecordError(
            f"syntology.{key}",
            f"{json.dumps(given, sort_keys=True)} disagrees with the samples, "
            f"which give {json.dumps(derived, sort_keys=True)}",
        )


def _parse_sample(raw: dict, where: str, position: int) -> dict[str, Any]:
    status = n.one_line(raw.get("status"), f"{where}.status", max_length=64)
    if not status:
        raise RecordError(f"{where}.status", "missing")
    repo = n.one_line(raw.get("repo"), f"{where}.repo", max_length=500)
    if not repo:
        raise RecordError(f"{where}.repo", "missing (it names the repository)")
    level = raw.get("verification_level")
    mcp = n.obj(raw.get("mcp_get_code"), f"{where}.mcp_get_code")
    return {
        "position": position,
        "repo": repo,
        "repo_kind": n.one_line(raw.get("repo_kind"), f"{where}.repo_kind", max_length=64),
        "path": n.text(raw.get("path"), f"{where}.path", max_length=1000),
        "entry": n.text(raw.get("entry"), f"{where}.entry", max_length=500),
        "file_url": n.text(raw.get("file_url"), f"{where}.file_url", max_length=1500),
        "link_basis": n.one_line(raw.get("link_basis"), f"{where}.link_basis", max_length=64),
        "language": n.one_line(raw.get("language"), f"{where}.language", max_length=64),
        "status": status,
        "verification_level": n.integer(level, f"{where}.verification_level"),
        "contract_check": n.one_line(raw.get("contract_check"), f"{where}.contract_check") or None,
        "metamorphic_tier": n.one_line(raw.get("metamorphic_tier"), f"{where}.metamorphic_tier")
        or None,
        "behaviour_fingerprint": n.optional_flag(
            raw.get("behaviour_fingerprint"), f"{where}.behaviour_fingerprint"
        ),
        "licence": None
        if raw.get("licence") is None
        else n.one_line(raw.get("licence"), f"{where}.licence", max_length=100),
        "inline_ok": n.optional_flag(raw.get("inline_ok"), f"{where}.inline_ok"),
        "code_sha256_prefix": n.one_line(
            raw.get("code_sha256_prefix"), f"{where}.code_sha256_prefix", max_length=64
        ),
        "mcp_code_sha256": n.one_line(
            mcp.get("code_sha256"), f"{where}.mcp_get_code.code_sha256", max_length=64
        ),
        "extra": {key: value for key, value in raw.items() if key not in SAMPLE_KEYS},
    }
