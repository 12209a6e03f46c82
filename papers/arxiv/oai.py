"""OAI-PMH ListRecords pages (metadataPrefix `arXiv` or `arXivRaw`) as Entries.

Parsed with defusedxml: the pages come from the network, and the standard library's
parsers expand entities (a "billion laughs" page would take the harvester's memory)
where defusedxml refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from papers.archive.read.normalise import RecordError
from papers.arxiv.records import Entry, rfc_date, split_authors

OAI = "{http://www.openarchives.org/OAI/2.0/}"
ARXIV = "{http://arxiv.org/OAI/arXiv/}"
ARXIV_RAW = "{http://arxiv.org/OAI/arXivRaw/}"
PREFIXES = ("arXiv", "arXivRaw")


class PageError(Exception):
    """The page cannot be read as OAI-PMH (malformed XML, not OAI-PMH at all)."""


@dataclass
class Page:
    entries: list[Entry | RecordError] = field(default_factory=list)
    deleted: int = 0
    token: str = ""  # "" on the last page (no token, or an empty one)
    complete_size: int | None = None
    error_code: str = ""  # OAI-PMH's <error code="…">
    error_text: str = ""


def parse_page(body: bytes) -> Page:
    try:
        root = fromstring(body)
    except (ParseError, DefusedXmlException) as exc:
        raise PageError(f"malformed XML: {exc}") from None
    if root.tag != f"{OAI}OAI-PMH":
        raise PageError(f"not an OAI-PMH response (root element {root.tag!r})")
    page = Page()
    error = root.find(f"{OAI}error")
    if error is not None:
        page.error_code = error.get("code", "")
        page.error_text = (error.text or "").strip()
        return page
    listing = root.find(f"{OAI}ListRecords")
    if listing is None:
        raise PageError("no ListRecords element")
    for record in listing.findall(f"{OAI}record"):
        header = record.find(f"{OAI}header")
        if header is not None and header.get("status") == "deleted":
            page.deleted += 1
            continue
        metadata = record.find(f"{OAI}metadata")
        try:
            page.entries.append(_entry(metadata))
        except RecordError as exc:
            page.entries.append(exc)
    token = listing.find(f"{OAI}resumptionToken")
    if token is not None:
        page.token = (token.text or "").strip()
        size = token.get("completeListSize")
        page.complete_size = int(size) if size and size.isdigit() else None
    return page


def _text(parent: Element, tag: str) -> str:
    found = parent.find(tag)
    return (found.text or "") if found is not None else ""


def _entry(metadata: Element | None) -> Entry:
    if metadata is None or not len(metadata):
        raise RecordError("metadata", "missing")
    node = metadata[0]
    if node.tag == f"{ARXIV}arXiv":
        return _arxiv(node)
    if node.tag == f"{ARXIV_RAW}arXivRaw":
        return _arxiv_raw(node)
    raise RecordError("metadata", f"not arXiv or arXivRaw metadata ({node.tag})")


def _arxiv(node: Element) -> Entry:
    ns = ARXIV
    authors = []
    for author in node.iterfind(f"{ns}authors/{ns}author"):
        parts = (_text(author, f"{ns}forenames"), _text(author, f"{ns}keyname"),
                 _text(author, f"{ns}suffix"))  # fmt: skip
        name = " ".join(p.strip() for p in parts if p.strip())
        if name:
            authors.append(name)
    created = rfc_date(_text(node, f"{ns}created"), "created")
    return Entry(
        arxiv_id=_text(node, f"{ns}id"),
        title=_text(node, f"{ns}title"),
        abstract=_text(node, f"{ns}abstract"),
        authors=authors,
        versions=[("", created)] if created else [],
        updated=rfc_date(_text(node, f"{ns}updated"), "updated"),
        categories=_text(node, f"{ns}categories").split(),
        comments=_text(node, f"{ns}comments"),
        journal_ref=_text(node, f"{ns}journal-ref"),
        doi=_text(node, f"{ns}doi"),
        report_no=_text(node, f"{ns}report-no"),
        licence=_text(node, f"{ns}license"),
    )


def _arxiv_raw(node: Element) -> Entry:
    ns = ARXIV_RAW
    versions = [
        (v.get("version", ""), rfc_date(_text(v, f"{ns}date"), f"version {v.get('version')}"))
        for v in node.iterfind(f"{ns}version")
    ]
    return Entry(
        arxiv_id=_text(node, f"{ns}id"),
        title=_text(node, f"{ns}title"),
        abstract=_text(node, f"{ns}abstract"),
        authors=split_authors(_text(node, f"{ns}authors")),
        versions=versions,
        updated=versions[-1][1] if versions else None,
        categories=_text(node, f"{ns}categories").split(),
        comments=_text(node, f"{ns}comments"),
        journal_ref=_text(node, f"{ns}journal-ref"),
        doi=_text(node, f"{ns}doi"),
        report_no=_text(node, f"{ns}report-no"),
        licence=_text(node, f"{ns}license"),
        submitter=_text(node, f"{ns}submitter"),
    )
