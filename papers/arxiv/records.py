"""One arXiv record, from whichever of arXiv's shapes, as the importer's values.

`Entry` is what every shape gives (the snapshot's JSON Lines, OAI-PMH `arXiv` and
`arXivRaw`, the query API's Atom); `to_record()` maps it:

- the paper is keyed by its arXiv id (new "2101.00001" or old "hep-th/9504118" style,
  the version cut off and kept): a paper the archive already has with that id is the
  one updated, whatever its slug, and a new one gets the archive's slug for a paper
  known by its arXiv id (papers.identifiers.arxiv_slug: "arxiv-2101.00001", stable,
  and never a Papers with Code slug, which holds no dot, so it cannot clash);
- title and abstract with white space normalised, LaTeX kept (pages render it as they
  do the archive's abstracts);
- authors as names, through the archive's author identity rule (Author.slug_for);
- published = the first version's date; the versions, the latest version, the update
  date, comments, journal reference, DOIs, report number and licence kept in
  `arxiv_metadata`; categories in their own columns (the first is the primary);
- repository URLs in the abstract and comments become code links "mentioned in the
  paper"; project pages are kept in `arxiv_metadata["project_links"]`.

arXiv's metadata ranks as a papers dump (RANK_DUMP): it never overwrites what a full
archive record wrote, and fills what none did.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import re
from dataclasses import dataclass, field

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers.shapes import RANK_DUMP, LinkIn, PaperIn, RecordIn, RepoIn
from papers.arxiv import code
from papers.identifiers import ARXIV_NEW, ARXIV_OLD

_RFC_DATE = re.compile(r"^[A-Z][a-z]{2}, (\d{1,2}) ([A-Z][a-z]{2}) (\d{4}) ")
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
_VERSIONED = re.compile(r"^(?:arXiv:)?(?P<id>.+?)(?P<v>v\d+)?$")


@dataclass(slots=True)
class Entry:
    arxiv_id: str  # as given, with or without a version or "arXiv:" / URL
    title: str = ""
    abstract: str = ""
    authors: list[str] = field(default_factory=list)
    # [(version "v1", its date)], oldest first; a shape without per-version dates gives
    # [("", first date)] (OAI `arXiv`'s `created`).
    versions: list[tuple[str, dt.date | None]] = field(default_factory=list)
    updated: dt.date | None = None
    categories: list[str] = field(default_factory=list)  # primary first
    comments: str = ""
    journal_ref: str = ""
    doi: str = ""
    report_no: str = ""
    licence: str = ""
    submitter: str = ""


def split_id(raw: str) -> tuple[str, str]:
    """("2101.00001", "v2") from "arXiv:2101.00001v2", "http://arxiv.org/abs/2101.00001v2",
    "oai:arXiv.org:2101.00001"; raises RecordError for anything else."""
    text = raw.strip().removeprefix("oai:arXiv.org:")
    text = text.rsplit("/abs/", 1)[-1]
    match = _VERSIONED.match(text)
    bare, version = (match.group("id"), match.group("v") or "") if match else ("", "")
    if not (ARXIV_NEW.fullmatch(bare) or ARXIV_OLD.fullmatch(bare)):
        raise RecordError("id", f"not an arXiv id: {raw!r}")
    return bare, version


def rfc_date(value: str | None, field_name: str) -> dt.date | None:
    """A date from "Mon, 2 Apr 2007 19:18:42 GMT" (arXivRaw, the snapshot) or ISO 8601."""
    if not value or not value.strip():
        return None
    text = value.strip()
    if text[:4].isdigit():
        return n.date(text, field_name)
    if match := _RFC_DATE.match(text):  # the usual shape, read without email.utils
        day, month, year = match.groups()
        if month in _MONTHS:
            try:
                return dt.date(int(year), _MONTHS[month], int(day))
            except ValueError:
                raise RecordError(field_name, f"not a date: {value!r}") from None
    try:
        return email.utils.parsedate_to_datetime(text).date()
    except (TypeError, ValueError):
        raise RecordError(field_name, f"not a date: {value!r}") from None


def split_authors(text: str) -> list[str]:
    """arXiv's author string ("A. Smith, B. Jones and C. Lee") as names; parenthesised
    affiliations dropped."""
    text = re.sub(r"\([^()]*\)", " ", " ".join(text.split()))
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


def _metadata(entry: Entry, latest: str, comments: str, projects: list[str]) -> dict:
    """What arXiv says beyond the columns (Paper.arxiv_metadata), without empty values."""
    metadata = {
        "version": latest,
        "versions": [
            {"version": v, "date": d.isoformat() if d else None} for v, d in entry.versions
        ],
        "updated": entry.updated.isoformat() if entry.updated else None,
        "comments": comments,
        "journal_ref": n.one_line(entry.journal_ref, "journal-ref", max_length=1000),
        "doi": n.one_line(entry.doi, "doi", max_length=500),
        "report_no": n.one_line(entry.report_no, "report-no", max_length=500),
        "licence": n.one_line(entry.licence, "license", max_length=500),
        "submitter": n.one_line(entry.submitter, "submitter", max_length=500),
        "project_links": projects,
    }
    return {k: v for k, v in metadata.items() if v not in ("", None, [])}


def to_record(entry: Entry) -> RecordIn:
    arxiv, given_version = split_id(entry.arxiv_id)
    title = n.one_line(entry.title, "title")
    if not title:
        raise RecordError("title", "missing")
    versions = entry.versions
    published = next((d for _, d in versions if d), None)
    latest = versions[-1][0] if versions and versions[-1][0] else given_version
    categories = []
    for c in entry.categories:
        for part in c.split():
            if part not in categories:
                categories.append(part)
    comments = n.one_line(entry.comments, "comments", max_length=5000)
    abstract = " ".join(n.text(entry.abstract, "abstract").split())
    found_code, projects = code.find(abstract, comments)
    metadata = _metadata(entry, latest, comments, projects)
    primary = categories[0][:32] if categories else ""
    paper = PaperIn(
        slug=n.arxiv_slug(arxiv),
        rank=RANK_DUMP,
        fields={
            "title": title,
            "arxiv_id": arxiv,
            "abstract": abstract,
            "published": published,
            "url_abs": f"https://arxiv.org/abs/{arxiv}",
            "url_pdf": f"https://arxiv.org/pdf/{arxiv}",
            "source_archive": "arXiv",
            "arxiv_metadata": metadata,
            "arxiv_primary_category": primary,
            "arxiv_categories": " ".join(categories)[:500],
        },
        authors=[a for a in (n.one_line(x, "authors") for x in entry.authors) if a],
        by_arxiv=True,
    )
    links = [
        LinkIn(paper=paper, repo=RepoIn(url), fields={"mentioned_in_paper": True})
        for url in found_code
    ]
    return RecordIn(
        paper=paper,
        links=links,
        report=None,
        report_repos=[],
        samples=[],
        datasets_introduced=[],
        methods_introduced=[],
    )
