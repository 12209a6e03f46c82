"""Write a paper as a record in the seed shape (the import format is the export format)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import Prefetch, QuerySet

from papers.models import (
    CodeLink,
    Dataset,
    Method,
    Paper,
    PaperAuthor,
    PaperMethod,
    PaperTask,
    ReportRepository,
    Sample,
    report_by_repo_kind,
    report_summary,
)


def _record_lookups(with_report: bool = True) -> list:
    """What a record reads, each relation narrowed to the columns it uses (compiling and
    reading the full width of every joined table is most of a record's time)."""
    lookups = [
        Prefetch(
            "authorships",
            PaperAuthor.objects.select_related("author")
            .only("paper_id", "position", "name", "author__name", "author__updated_at")
            .order_by("position"),
        ),
        Prefetch(
            "code_links",
            CodeLink.objects.select_related("repository")
            .only(*CODE_LINK_COLUMNS, *(f"repository__{c}" for c in REPOSITORY_COLUMNS))
            .order_by("position", "id"),
        ),
        Prefetch(
            "task_links",
            PaperTask.objects.select_related("task")
            .only("paper_id", "position", "name", "task__name", "task__updated_at")
            .order_by("position"),
        ),
        Prefetch(
            "method_links",
            PaperMethod.objects.select_related("method")
            .only("paper_id", "position", "name", "method__name", "method__updated_at")
            .order_by("position"),
        ),
        Prefetch("datasets_introduced", Dataset.objects.only(*INTRODUCED_COLUMNS)),
        Prefetch("methods_introduced", Method.objects.only(*INTRODUCED_COLUMNS)),
    ]
    if with_report:
        lookups += [
            Prefetch(
                "report_repositories",
                ReportRepository.objects.select_related("repository")
                .only(
                    "paper_id",
                    "position",
                    "provenance",
                    *(f"repository__{c}" for c in REPOSITORY_COLUMNS),
                )
                .order_by("position"),
            ),
            Prefetch("samples", Sample.objects.order_by("position")),
        ]
    return lookups


CODE_LINK_COLUMNS = (
    "paper_id", "position", "is_official", "mentioned_in_paper", "mentioned_in_github",
    "framework", "updated_at",
)  # fmt: skip
REPOSITORY_COLUMNS = ("url", "reach_status", "licence", "updated_at")
INTRODUCED_COLUMNS = ("id", "name", "introduced_by_id", "updated_at")


def records_queryset(papers: QuerySet[Paper] | None = None) -> QuerySet[Paper]:
    """Papers with everything a record needs, in a constant number of queries."""
    papers = Paper.objects.all() if papers is None else papers
    return papers.prefetch_related(*_record_lookups())


def record_paper(papers: QuerySet[Paper], slug: str) -> Paper:
    """One paper with everything its record needs: seven queries, nine when it has an
    execution report (most papers have none, and their report rows are not asked for).

    The same querysets as records_queryset(), each run for this one paper and kept where
    prefetch_related would keep it: prefetching's machinery, built for many objects,
    costs a third of a single record's time.
    """
    paper = papers.get(slug=slug)
    paper._prefetched_objects_cache = {}
    for lookup in _record_lookups(with_report=paper.has_report):
        relation = Paper._meta.get_field(lookup.prefetch_through).remote_field.name
        rows = lookup.queryset.filter(**{relation: paper})
        list(rows)  # evaluated once; the related manager's .all() returns these rows
        paper._prefetched_objects_cache[lookup.prefetch_through] = rows
    return paper


def record_last_modified(paper: Paper) -> dt.datetime:
    """The newest change among the rows a record is written from (fetched through
    records_queryset() or record_paper(), so this reads no more rows). Samples and report
    repositories have no timestamps of their own: whatever replaces them touches the paper."""
    stamps = [paper.updated_at]
    for link in paper.code_links.all():
        stamps += [link.updated_at, link.repository.updated_at]
    if paper.has_report:
        stamps += [rr.repository.updated_at for rr in paper.report_repositories.all()]
    stamps += [a.author.updated_at for a in paper.authorships.all()]
    stamps += [t.task.updated_at for t in paper.task_links.all()]
    stamps += [m.method.updated_at for m in paper.method_links.all()]
    stamps += [d.updated_at for d in paper.datasets_introduced.all()]
    stamps += [m.updated_at for m in paper.methods_introduced.all()]
    return max(stamps)


def _reach(repository) -> dict | None:
    if not repository.reach_status and not repository.licence:
        return None
    return {"status": repository.reach_status or None, "spdx": repository.licence or None}


def export_record(paper: Paper) -> dict:
    """The record of a paper fetched through records_queryset()."""
    record = {
        "about": dict(settings.ARCHIVE_ABOUT),
        "url": f"/paper/{paper.slug}",
        "title": paper.title,
        "arxiv_id": paper.arxiv_id,
        "date": paper.published.isoformat() if paper.published else None,
        "proceeding": paper.proceeding or None,
        "authors": [a.name or a.author.name for a in paper.authorships.all()],
        "abstract": paper.abstract,
        "url_abs": paper.url_abs or None,
        "url_pdf": paper.url_pdf or None,
        "source": {
            "archive": paper.source_archive,
            "snapshot": paper.source_snapshot,
            "licence_url": paper.source_licence_url,
            "row_kind": paper.source_row_kind,
        },
        "code_links": [],
        "tasks": [t.name or t.task.name for t in paper.task_links.all()],
        "methods": [m.name or m.method.name for m in paper.method_links.all()],
        "datasets_introduced": sorted(d.name for d in paper.datasets_introduced.all()),
        "methods_introduced": sorted(m.name for m in paper.methods_introduced.all()),
        "results": paper.extra.get("results", []),
        "syntology": _report(paper) if paper.has_report else None,
        "arxiv_metadata": paper.arxiv_metadata,
        "syntology_extracted_results": paper.extracted_results,
    }
    for link in paper.code_links.all():
        entry = {
            "paper_slug": paper.slug,
            "repo_url": link.repository.url,
            "is_official": int(link.is_official),
            "mentioned_in_paper": int(link.mentioned_in_paper),
            "mentioned_in_github": int(link.mentioned_in_github),
            "framework": link.framework or None,
        }
        reach = _reach(link.repository)
        if reach is not None:
            entry["reach"] = reach
        record["code_links"].append(entry)
    for key, value in paper.extra.items():
        if key != "results":
            record[key] = value
    return record


def _report(paper: Paper) -> dict:
    samples = list(paper.samples.all())
    repos = []
    for rr in paper.report_repositories.all():
        entry = {"provenance": rr.provenance, "url": rr.repository.url}
        reach = _reach(rr.repository)
        if reach is not None:
            entry["reach"] = reach
        repos.append(entry)
    return {
        "syntology_url": paper.report_url,
        "atlas_url": paper.report_atlas_url,
        "mcp": paper.report_mcp,
        "developers": paper.report_developers_url,
        "read_at": paper.report_read_at.isoformat() if paper.report_read_at else None,
        "read_at_is": paper.report_read_at_is,
        "claim": paper.report_claim,
        "repos": repos,
        "summary": report_summary(samples),
        "by_repo_kind": report_by_repo_kind(samples),
        "repo_kind_vocabulary": paper.report_repo_kind_vocabulary,
        "n_pointer_only_for_licence": paper.report_n_pointer_only_for_licence,
        "samples": [export_sample(s) for s in samples],
    }


def export_sample(sample: Sample) -> dict:
    """A sample as the record's `syntology.samples` entry (the API's sample endpoints too)."""
    return {
        "code_sha256_prefix": sample.code_sha256_prefix,
        "entry": sample.entry,
        "repo": sample.repo,
        "repo_kind": sample.repo_kind,
        "path": sample.path,
        "file_url": sample.file_url,
        "link_basis": sample.link_basis,
        "language": sample.language,
        "status": sample.status,
        "verification_level": sample.verification_level,
        "contract_check": sample.contract_check,
        "metamorphic_tier": sample.metamorphic_tier,
        "behaviour_fingerprint": sample.behaviour_fingerprint,
        "licence": sample.licence,  # null stays null
        "inline_ok": sample.inline_ok,
        "mcp_get_code": {"code_sha256": sample.mcp_code_sha256},
        **sample.extra,
    }
