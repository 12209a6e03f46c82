"""How a paper is named from outside: arXiv ids (new "2006.12467" and old "hep-th/9901001"
styles, bare, versioned or inside an arXiv URL) and the slug of a paper known only by its
arXiv id. The importer reads records with these rules and the pages and the API look
papers up with them (PaperQuerySet.named_by), so both agree on what names a paper."""

from __future__ import annotations

import re

ARXIV_NEW = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?")
ARXIV_OLD = re.compile(r"([a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?")
ARXIV_SLUG_PREFIX = "arxiv-"
# A Papers with Code slug, as a search box might hold one: lowercase words and hyphens.
PAPER_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{2,254}$")


def parse_arxiv(raw: str) -> str | None:
    """The bare arXiv id in `raw` ("arXiv:2006.12467v3" → "2006.12467"); "" for a URL that
    is not arXiv's or holds no id; None when `raw` is neither a URL nor an arXiv id."""
    if not raw:
        return ""
    if "://" in raw and "arxiv" not in raw.lower():
        return ""
    candidate = raw.rsplit("/abs/", 1)[-1].rsplit("/pdf/", 1)[-1]
    candidate = candidate.removeprefix("arXiv:").removeprefix("arxiv:").removesuffix(".pdf")
    match = ARXIV_NEW.fullmatch(candidate) or ARXIV_OLD.fullmatch(candidate)
    if match:
        return match.group(1)
    return "" if "://" in raw else None


def arxiv_slug(arxiv: str) -> str:
    """The slug of a paper known only by its arXiv id: "arxiv-2006.12467" ("/" of an old
    id as "-"). Papers with Code's own slugs never hold a dot, so it cannot clash."""
    return ARXIV_SLUG_PREFIX + arxiv.replace("/", "-")


def arxiv_of_slug(slug: str) -> str:
    """The arXiv id a slug made by arxiv_slug() keys, or ""."""
    if not slug.startswith(ARXIV_SLUG_PREFIX):
        return ""
    rest = slug.removeprefix(ARXIV_SLUG_PREFIX)
    if match := ARXIV_NEW.fullmatch(rest):
        return match.group(1)
    head, _, number = rest.rpartition("-")
    old = f"{head}/{number}"
    return old if ARXIV_OLD.fullmatch(old) else ""
