"""Parse a methods record or a datasets record (or a derived search collection's)."""

from __future__ import annotations

from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError
from papers.archive.read.parsers.common import edited, edited_field, names, require_dict
from papers.archive.read.parsers.shapes import DatasetIn, MethodIn
from papers.models import uncertain_date, uncertain_year


def parse_method(raw: Any) -> MethodIn:
    raw = require_dict(raw)
    name = n.one_line(raw.get("name"), "name", max_length=500)
    slug = (
        n.url_slug(raw.get("url"), "url")
        or n.text(raw.get("id"), "id", max_length=255)  # the API's shape
        or n.slug_of(name)
    )
    if not slug:
        raise RecordError("url", "missing, and no name to derive it from (it is the identity)")
    description = n.text(raw.get("description"), "description")
    paper = raw.get("paper")
    if isinstance(paper, str):  # the API's shape names the paper by its slug
        paper = {"url": n.pwc_paper_url(n.text(paper, "paper", max_length=255))}
    paper = n.obj(paper, "paper")
    collections = []
    for index, item in enumerate(n.obj_list(raw.get("collections"), "collections")):
        where = f"collections[{index}]"
        cname = n.one_line(item.get("collection") or item.get("name"), f"{where}.collection")
        if cname:
            collections.append(
                {
                    "slug": n.slug_of(cname),
                    "name": cname[:500],
                    "area_id": n.one_line(item.get("area_id"), f"{where}.area_id", max_length=255),
                    "area": n.one_line(item.get("area"), f"{where}.area", max_length=255),
                    **edited_field(item),
                }
            )
    fields = {
        "name": name or slug,
        "full_name": n.one_line(raw.get("full_name"), "full_name"),
        "description": description,
        "paper_title": n.one_line(paper.get("title"), "paper.title"),
        "paper_url": n.text(paper.get("url"), "paper.url", max_length=500),
        **_year(raw, "introduced_year"),
        "source_url": n.text(raw.get("source_url"), "source_url", max_length=500),
        "source_title": n.one_line(raw.get("source_title"), "source_title"),
        "code_snippet_url": n.text(
            raw.get("code_snippet_url"), "code_snippet_url", max_length=500
        ),
        "num_papers": n.integer(raw.get("num_papers"), "num_papers"),
    }
    return MethodIn(slug=slug, fields=fields, collections=collections, edited=edited(raw))


def _year(raw: dict, key: str) -> dict[str, Any]:
    """The introduced year and whether it is a placeholder. A record without one says
    nothing of either, so a year flagged before stays flagged."""
    year = n.integer(raw.get(key), key)
    if year is None:
        return {}
    return {"introduced_year": year, "year_uncertain": uncertain_year(year)}


def parse_dataset(raw: Any) -> DatasetIn:
    raw = require_dict(raw)
    if "contents" in raw and "url" not in raw:  # a derived search collection: id/contents
        raw = {
            "name": raw.get("id"),
            "description": raw.get("contents"),
            "variants": raw.get("variants"),
            "paper": {"title": raw.get("title"), "year": raw.get("year")},
            "introduced_date": raw.get("date"),
        }
    name = n.one_line(raw.get("name"), "name", max_length=500)
    slug = n.url_slug(raw.get("url"), "url")
    if not slug and not name:
        raise RecordError("url", "missing, and no name to know the dataset by (its identity)")
    description = n.text(raw.get("description"), "description")
    paper = n.obj(raw.get("paper"), "paper")
    introduced = n.date(raw.get("introduced_date"), "introduced_date")
    known = {
        "url", "name", "full_name", "homepage", "description", "paper", "introduced_date",
        "modalities", "languages", "variants", "num_papers", "tasks", "edited_in_admin",
    }  # fmt: skip
    fields = {
        "name": name or slug,
        "full_name": n.one_line(raw.get("full_name"), "full_name"),
        "homepage": n.text(raw.get("homepage"), "homepage", max_length=500),
        "description": description,
        "paper_title": n.one_line(paper.get("title"), "paper.title"),
        "paper_url": n.text(paper.get("url"), "paper.url", max_length=500),
        "paper_year": n.integer(paper.get("year"), "paper.year"),
        "modalities": n.text_list(raw.get("modalities"), "modalities"),
        "languages": n.text_list(raw.get("languages"), "languages"),
        "variants": n.text_list(raw.get("variants"), "variants"),
        "num_papers": n.integer(raw.get("num_papers"), "num_papers"),
        "extra": {k: v for k, v in raw.items() if k not in known and v not in (None, "", [])},
        "in_dump": True,
    }
    if introduced is not None:  # a record without a date says nothing of its certainty
        fields |= {"introduced_date": introduced, "date_uncertain": uncertain_date(introduced)}
    tasks = names(raw.get("tasks"), "tasks")
    return DatasetIn(slug=slug, fields=fields, tasks=tasks, edited=edited(raw))
