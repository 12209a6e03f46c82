"""Parse a papers-with-abstracts record (or an API-shaped paper page)."""

from __future__ import annotations

from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers.common import edited, names, published, require_dict
from papers.archive.read.parsers.shapes import RANK_DUMP, PaperIn


def parse_paper(raw: Any) -> PaperIn:
    raw = require_dict(raw)
    by_arxiv = False
    if "paper_url" in raw or "id" not in raw:
        slug, key = n.paper_slug(raw.get("paper_url"), "paper_url"), "paper_url"
    else:  # The API's shape: {"id": slug, "published": ...}
        slug, key = n.paper_slug(raw.get("id"), "id", bare=True), "id"
    arxiv = n.arxiv_id(raw.get("arxiv_id")) or n.arxiv_from_url(raw.get("url_abs"), "url_abs")
    if not slug and arxiv:
        # No paper URL (crawled API records often lack it): the arXiv id keys the paper.
        slug, by_arxiv = n.arxiv_slug(arxiv), True
    if not slug:
        raise RecordError(key, "missing, and no arxiv_id or arXiv url_abs to key the paper by")
    fields = {
        "title": n.one_line(raw.get("title"), "title"),
        "arxiv_id": arxiv or None,
        "nips_id": n.text(raw.get("nips_id"), "nips_id", max_length=64),
        "openreview_id": n.text(raw.get("openreview_id"), "openreview_id", max_length=64),
        "proceeding": n.one_line(raw.get("proceeding"), "proceeding", max_length=255),
        "conference": n.one_line(raw.get("conference"), "conference", max_length=255),
        "conference_url_abs": n.text(
            raw.get("conference_url_abs"), "conference_url_abs", max_length=500
        ),
        "conference_url_pdf": n.text(
            raw.get("conference_url_pdf"), "conference_url_pdf", max_length=500
        ),
        "abstract": n.text(raw.get("abstract"), "abstract"),
        "short_abstract": n.text(raw.get("short_abstract"), "short_abstract"),
        "url_abs": n.text(raw.get("url_abs"), "url_abs", max_length=500),
        "url_pdf": n.text(raw.get("url_pdf"), "url_pdf", max_length=500),
        **published(raw, "date" if "date" in raw else "published"),
    }
    methods = [
        n.one_line(m.get("name") if isinstance(m, dict) else m, f"methods[{i}]")
        for i, m in enumerate(raw.get("methods") or [])
    ]
    return PaperIn(
        slug=slug,
        rank=RANK_DUMP,
        fields=fields,
        authors=n.text_list(raw.get("authors"), "authors"),
        tasks=names(raw.get("tasks"), "tasks"),
        methods=[m for m in methods if m],
        by_arxiv=by_arxiv,
        edited=edited(raw),
    )
