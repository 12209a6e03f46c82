"""How records are named from outside.

Papers: arXiv ids (new "2006.12467" and old "hep-th/9901001" styles, bare, versioned or
inside an arXiv URL) and the slug of a paper known only by its arXiv id. The importer
reads records with these rules and the pages and the API look papers up with them
(PaperQuerySet.named_by), so both agree on what names a paper.

Leaderboards and their metrics: a board's page is /sota/<task>-on-<dataset>, its API id
"<task>--<dataset>"; a metric's id is the slug of its name. The pages, the API and the
links out of descriptions (papers.outlinks) read them with these rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.utils.text import slugify

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


# An arXiv id as people paste it into the admin's search: 2006.12467, arXiv:2006.12467v3,
# an abs or pdf URL, or an old-style id (hep-th/9901001).
_PASTED_ARXIV_ID = re.compile(
    r"^(?:https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/|arxiv:)?"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})(?:v\d+)?(?:\.pdf)?$",
    re.IGNORECASE,
)


def arxiv_id_from(text: str) -> str | None:
    """The bare arXiv id in `text` as pasted (no prefix, no version), or None."""
    match = _PASTED_ARXIV_ID.match(text.strip())
    return match.group("id") if match else None


# --- leaderboards and metrics -------------------------------------------------------------

BOARD_SEPARATOR = "-on-"  # /sota/<task>-on-<dataset>
EVALUATION_SEPARATOR = "--"  # slugify() never writes two hyphens, so task slugs have none


def board_slug(task_slug: str, dataset_slug: str) -> str:
    """A board's page slug: "image-classification-on-imagenet"."""
    return f"{task_slug}{BOARD_SEPARATOR}{dataset_slug}"


def board_splits(slug: str) -> list[tuple[str, str]]:
    """Every (task, dataset) a board's page slug may name: task and dataset slugs may
    hold "-on-" themselves, so each place it occurs is a split."""
    splits, start = [], 0
    while (at := slug.find(BOARD_SEPARATOR, start)) != -1:
        task, dataset = slug[:at], slug[at + len(BOARD_SEPARATOR) :]
        if task and dataset:
            splits.append((task, dataset))
        start = at + 1
    return splits


def evaluation_id(task_slug: str, dataset_slug: str) -> str:
    """A board's API id: "image-classification--imagenet"."""
    return f"{task_slug}{EVALUATION_SEPARATOR}{dataset_slug}"


def split_evaluation_id(value: str) -> tuple[str, str] | None:
    task_slug, sep, dataset_slug = value.partition(EVALUATION_SEPARATOR)
    return (task_slug, dataset_slug) if sep and task_slug and dataset_slug else None


def metric_ids(metrics: Sequence) -> list[str]:
    """Metric ids: the slug of the name ("top-1-accuracy"), numbered when two names slug
    alike, and "metric-<n>" for a name with no letters or digits."""
    ids, seen = [], set()
    for index, m in enumerate(metrics):
        base = slugify(m.name) or f"metric-{index + 1}"
        candidate, n = base, 1
        while candidate in seen:
            n += 1
            candidate = f"{base}-{n}"
        seen.add(candidate)
        ids.append(candidate)
    return ids
