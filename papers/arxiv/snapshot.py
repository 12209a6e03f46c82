"""arXiv's bulk metadata snapshot (JSON Lines, one record a line), as the importer's
kind "arxiv": `manage.py import_archive arxiv-metadata-oai-snapshot.json`."""

from __future__ import annotations

from typing import Any

from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers.shapes import RecordIn
from papers.arxiv.records import Entry, rfc_date, split_authors, to_record

# The keys that tell a snapshot line from the archive's own records.
SNAPSHOT_KEYS = frozenset({"id", "versions", "categories", "abstract"})


def looks_like_snapshot(keys) -> bool:
    return "authors_parsed" in keys or keys >= SNAPSHOT_KEYS


def _text(raw: dict, key: str) -> str:
    value = raw.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RecordError(key, f"expected text, got {type(value).__name__}")
    return value


def parse_snapshot(raw: Any) -> RecordIn:
    if not isinstance(raw, dict):
        raise RecordError("(record)", f"expected an object, got {type(raw).__name__}")
    arxiv_id = raw.get("id")
    if not isinstance(arxiv_id, str | int | float) or isinstance(arxiv_id, bool):
        raise RecordError("id", "missing")
    versions = []
    given = raw.get("versions") or []
    if not isinstance(given, list):
        raise RecordError("versions", f"expected a list, got {type(given).__name__}")
    for index, item in enumerate(given):
        if not isinstance(item, dict):
            raise RecordError(f"versions[{index}]", "expected an object")
        versions.append(
            (str(item.get("version") or ""), rfc_date(item.get("created"), f"versions[{index}]"))
        )
    return to_record(
        Entry(
            arxiv_id=str(arxiv_id),
            title=_text(raw, "title"),
            abstract=_text(raw, "abstract"),
            authors=_authors(raw),
            versions=versions,
            updated=rfc_date(_text(raw, "update_date"), "update_date"),
            categories=_text(raw, "categories").split(),
            comments=_text(raw, "comments"),
            journal_ref=_text(raw, "journal-ref"),
            doi=_text(raw, "doi"),
            report_no=_text(raw, "report-no"),
            licence=_text(raw, "license"),
            submitter=_text(raw, "submitter"),
        )
    )


def _authors(raw: dict) -> list[str]:
    """`authors_parsed` ([last, first, suffix], Unicode) when given, else the TeX-escaped
    `authors` string split."""
    parsed = raw.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        names = []
        for index, parts in enumerate(parsed):
            if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
                raise RecordError(f"authors_parsed[{index}]", "expected a list of names")
            last, first, suffix = ([*list(parts), "", "", ""])[:3]
            name = " ".join(p.strip() for p in (first, last, suffix) if p and p.strip())
            if name:
                names.append(name)
        return names
    return split_authors(_text(raw, "authors"))
