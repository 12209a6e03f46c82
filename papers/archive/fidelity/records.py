"""Papers, code links, methods and datasets files against the database."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from papers.archive.fidelity.report import FileReport
from papers.archive.write.identity import dataset_slug
from papers.db import chunks, select_rows
from papers.models import CodeLink, Dataset, Method, Paper

# The keys each kind's parser reads; another key with a value is data the import drops.
READ = {
    # arXiv's metadata snapshot (papers.arxiv.snapshot): every key it has.
    "arxiv": {
        "id", "submitter", "authors", "title", "comments", "journal-ref", "doi", "report-no",
        "categories", "license", "abstract", "versions", "update_date", "authors_parsed",
    },
    "papers": {
        "paper_url", "id", "arxiv_id", "title", "abstract", "short_abstract", "authors",
        "date", "published", "proceeding", "conference", "conference_url_abs",
        "conference_url_pdf", "url_abs", "url_pdf", "tasks", "methods", "nips_id",
        "openreview_id",
    },
    "links": {
        "paper_url", "paper_title", "paper_arxiv_id", "paper_url_abs", "paper_url_pdf",
        "repo_url", "is_official", "mentioned_in_paper", "mentioned_in_github", "framework",
    },
    "methods": {
        "url", "id", "name", "full_name", "description", "paper", "introduced_year",
        "source_url", "source_title", "code_snippet_url", "num_papers", "collections",
    },
    # Records and datasets keep the keys they do not model (in `extra`).
    "datasets": None,
    "records": None,
}  # fmt: skip
# Our exports say which records staff edited (papers.archive.edits), which is read too.
for _read in filter(None, READ.values()):
    _read.add("edited_in_admin")
# Where a paper record's read values are kept (key → column): when the file gives one,
# the database must hold one.
STORED_PAPER = {
    "title": "title", "abstract": "abstract", "short_abstract": "short_abstract",
    "arxiv_id": "arxiv_id", "date": "published", "published": "published",
    "proceeding": "proceeding", "conference": "conference", "url_abs": "url_abs",
    "url_pdf": "url_pdf", "conference_url_abs": "conference_url_abs",
    "conference_url_pdf": "conference_url_pdf", "nips_id": "nips_id",
    "openreview_id": "openreview_id", "authors": "author_names",
}  # fmt: skip
# A method's parsed fields the database must hold when the file gives them.
STORED_METHOD = (
    "full_name", "description", "paper_title", "paper_url", "introduced_year", "source_url",
    "source_title", "code_snippet_url", "num_papers",
)  # fmt: skip


def papers(report: FileReport, items: list[tuple[dict, Any]]) -> None:
    keys: dict[str, Any] = {}
    raws: dict[str, dict] = {}
    for raw, parsed in items:
        paper = parsed if report.kind == "papers" else parsed.paper
        key = f"arXiv {paper.fields['arxiv_id']}" if paper.by_arxiv else paper.slug
        report.repeated += key in keys
        keys[key] = paper
        raws[key] = raw
        if READ[report.kind] is not None:
            report.drops(raw, READ[report.kind])
    report.distinct = len(keys)
    slugs = {k: p.slug for k, p in keys.items() if not p.by_arxiv}
    arxivs = {k: p.fields["arxiv_id"] for k, p in keys.items() if p.by_arxiv}
    only = ["id", "slug", "arxiv_id", "hidden", *set(STORED_PAPER.values())]
    by_slug = {r["slug"]: r for r in select_rows(Paper, "slug", slugs.values(), only)}
    by_arxiv = {}
    for row in select_rows(Paper, "arxiv_id", arxivs.values(), only):
        by_arxiv.setdefault(row["arxiv_id"], row)
    rows: dict[int, list[str]] = defaultdict(list)
    for key in keys:
        row = by_slug.get(slugs[key]) if key in slugs else by_arxiv.get(arxivs[key])
        if row is None:
            report.lost.append(key)
            continue
        report.found += 1
        rows[row["id"]].append(key)
        if row["hidden"]:
            report.hidden.append(key)
        if report.kind == "papers":
            report.not_stored_of(raws[key], row, STORED_PAPER)
    report.merged = [" + ".join(keys_) for keys_ in rows.values() if len(keys_) > 1]


def links(report: FileReport, items: list[tuple[dict, Any]]) -> None:
    keys = {}
    for raw, link in items:
        key = (link.paper.slug, link.repo.url)
        report.repeated += key in keys
        keys[key] = link
        report.drops(raw, READ["links"])
    report.distinct = len(keys)
    papers = {r["slug"]: r["id"] for r in select_rows(
        Paper, "slug", {slug for slug, _ in keys}, ["id", "slug"])}  # fmt: skip
    stored = set()
    for part in chunks(sorted(set(papers.values()))):
        stored.update(
            CodeLink.objects.filter(paper_id__in=part).values_list(
                "paper__slug", "repository__url"
            )
        )
    for key in keys:
        if key in stored:
            report.found += 1
        else:
            report.lost.append(f"{key[0]} → {key[1]}")


# --- methods and datasets ------------------------------------------------------------------


def methods(report: FileReport, items: list[tuple[dict, Any]]) -> None:
    keys = {}
    placeholders = 0
    for raw, method in items:
        report.repeated += method.slug in keys
        keys[method.slug] = method
        placeholders += bool(method.fields.get("year_uncertain"))
        report.drops(raw, READ["methods"])
    report.distinct = len(keys)
    only = ["slug", "hidden", *STORED_METHOD]
    stored = {r["slug"]: r for r in select_rows(Method, "slug", keys, only)}
    for slug, method in keys.items():
        row = stored.get(slug)
        if row is None:
            report.lost.append(slug)
            continue
        report.found += 1
        report.not_stored_of(method.fields, row, STORED_METHOD)
        if row["hidden"]:
            report.hidden.append(f"{method.fields['name']} ({slug})")
    report.notes.append(f"placeholder years (2000, shown as unknown): {placeholders:,}")


def datasets(report: FileReport, items: list[tuple[dict, Any]]) -> None:
    by_url, by_name = {}, {}
    for _raw, dataset in items:
        if dataset.slug:
            report.repeated += dataset.slug in by_url
            by_url[dataset.slug] = dataset
        else:
            name = dataset.fields["name"]
            report.repeated += name in by_name
            by_name[name] = dataset
    report.distinct = len(by_url) + len(by_name)
    only = ["id", "slug", "name", "hidden"]
    rows: dict[int, list[str]] = defaultdict(list)
    for row in select_rows(Dataset, "slug", by_url, only):
        rows[row["id"]].append(row["slug"])
        if row["hidden"]:
            report.hidden.append(row["name"])
    report.lost += sorted(set(by_url) - {k for keys in rows.values() for k in keys})
    named: dict[str, dict] = {}
    for row in sorted(select_rows(Dataset, "name", by_name, only), key=lambda r: r["id"]):
        best = named.get(row["name"])
        if best is None or row["slug"] == dataset_slug(row["name"]) != best["slug"]:
            named[row["name"]] = row
    for name in by_name:
        row = named.get(name)
        if row is None:
            report.lost.append(name)
            continue
        rows[row["id"]].append(name)
        if row["hidden"]:
            report.hidden.append(name)
    report.found = report.distinct - len(report.lost)
    report.merged = [" + ".join(keys) for keys in rows.values() if len(keys) > 1]
    if by_name:
        report.notes.append(
            f"known by name only: {len(by_name):,} (a name given again is the same dataset)"
        )
