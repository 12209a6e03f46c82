"""Parse a links-between-papers-and-code record."""

from __future__ import annotations

from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers.common import edited, require_dict
from papers.archive.read.parsers.shapes import RANK_STUB, LinkIn, PaperIn, RepoIn


def parse_link(raw: Any) -> LinkIn:
    raw = require_dict(raw)
    slug = n.paper_slug(raw.get("paper_url"), "paper_url")
    if not slug:
        raise RecordError("paper_url", "missing or not a paper URL (it names the paper)")
    repo_url = n.text(raw.get("repo_url"), "repo_url", max_length=500)
    if not repo_url:
        raise RecordError("repo_url", "missing (it names the repository)")
    if not repo_url.startswith(("http://", "https://")):
        raise RecordError("repo_url", f"not an http(s) URL: {repo_url!r}")
    stub = PaperIn(
        slug=slug,
        rank=RANK_STUB,
        fields={
            "title": n.one_line(raw.get("paper_title"), "paper_title"),
            "arxiv_id": n.arxiv_id(raw.get("paper_arxiv_id"), "paper_arxiv_id") or None,
            "url_abs": n.text(raw.get("paper_url_abs"), "paper_url_abs", max_length=500),
            "url_pdf": n.text(raw.get("paper_url_pdf"), "paper_url_pdf", max_length=500),
        },
    )
    return LinkIn(paper=stub, repo=RepoIn(repo_url), fields=link_fields(raw), edited=edited(raw))


def link_fields(raw: dict, prefix: str = "") -> dict[str, Any]:
    return {
        "is_official": n.flag(raw.get("is_official"), f"{prefix}is_official"),
        "mentioned_in_paper": n.flag(raw.get("mentioned_in_paper"), f"{prefix}mentioned_in_paper"),
        "mentioned_in_github": n.flag(
            raw.get("mentioned_in_github"), f"{prefix}mentioned_in_github"
        ),
        "framework": n.one_line(raw.get("framework"), f"{prefix}framework", max_length=64),
    }


def reach(value: Any, field_name: str) -> dict[str, Any]:
    reach = n.obj(value, field_name)
    return {
        "reach_status": n.one_line(reach.get("status"), f"{field_name}.status", max_length=32),
        "licence": n.one_line(reach.get("spdx"), f"{field_name}.spdx", max_length=100),
    }
