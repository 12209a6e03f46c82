"""The arXiv query API's Atom pages as Entries (both its formats: the legacy one, with the
`arxiv:` namespace declared on each element and text hard-wrapped, and the current one).
Parsed with defusedxml, as OAI-PMH pages are (papers.arxiv.oai)."""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from papers.archive.read.normalise import RecordError
from papers.arxiv.oai import PageError
from papers.arxiv.records import Entry, rfc_date

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"


@dataclass
class Feed:
    entries: list[Entry | RecordError] = field(default_factory=list)
    total: int = 0
    start: int = 0
    error: str = ""  # the API's error entry ("Error" titled), its summary


def parse_feed(body: bytes) -> Feed:
    try:
        root = fromstring(body)
    except (ParseError, DefusedXmlException) as exc:
        raise PageError(f"malformed XML: {exc}") from None
    if root.tag != f"{ATOM}feed":
        raise PageError(f"not an Atom feed (root element {root.tag!r})")
    feed = Feed(total=_int(root, f"{OPENSEARCH}totalResults"),
                start=_int(root, f"{OPENSEARCH}startIndex"))  # fmt: skip
    for node in root.findall(f"{ATOM}entry"):
        if _text(node, f"{ATOM}title").strip() == "Error" and "/api/errors" in _text(
            node, f"{ATOM}id"
        ):
            feed.error = " ".join(_text(node, f"{ATOM}summary").split())
            return feed
        try:
            feed.entries.append(_entry(node))
        except RecordError as exc:
            feed.entries.append(exc)
    return feed


def _text(parent: Element, tag: str) -> str:
    found = parent.find(tag)
    return (found.text or "") if found is not None else ""


def _int(parent: Element, tag: str) -> int:
    text = _text(parent, tag).strip()
    return int(text) if text.isdigit() else 0


def _entry(node: Element) -> Entry:
    published = rfc_date(_text(node, f"{ATOM}published"), "published")
    primary = node.find(f"{ARXIV}primary_category")
    categories = [primary.get("term", "")] if primary is not None else []
    for category in node.findall(f"{ATOM}category"):
        term = category.get("term", "")
        # MSC and ACM codes ("14C20, 14M99") are given as categories too: arXiv's own
        # have a dot or are an archive name, and no comma or space.
        if term and "," not in term and " " not in term and term not in categories:
            categories.append(term)
    return Entry(
        arxiv_id=_text(node, f"{ATOM}id"),
        title=_text(node, f"{ATOM}title"),
        abstract=_text(node, f"{ATOM}summary"),
        authors=[" ".join(_text(a, f"{ATOM}name").split()) for a in node.findall(f"{ATOM}author")],
        # The API gives the first version's date and the latest's, not each version's.
        versions=[("v1", published)] if published else [],
        updated=rfc_date(_text(node, f"{ATOM}updated"), "updated"),
        categories=[c for c in categories if c],
        comments=_text(node, f"{ARXIV}comment"),
        journal_ref=_text(node, f"{ARXIV}journal_ref"),
        doi=_text(node, f"{ARXIV}doi"),
    )
