"""Parse one raw record of each archive kind into plain, validated values.

Each parser takes the raw dict and returns dataclasses the loader writes; a value
that cannot be read raises RecordError naming its field (dotted path).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from papers.archive import normalise as n
from papers.archive.normalise import RecordError

# Which source wrote a paper's fields. A source never overwrites a non-empty value
# written by a higher-ranked one, so files give the same end state in any order.
RANK_STUB, RANK_DUMP, RANK_RECORD = 0, 1, 2


@dataclass(slots=True)
class PaperIn:
    slug: str
    rank: int
    fields: dict[str, Any]
    authors: list[str] | None = None
    tasks: list[str] | None = None
    methods: list[str] | None = None
    # (title, abstract, author names, search vector) computed ahead of the writer on
    # PostgreSQL (papers.archive.vectors), or None.
    search: tuple[str, str, str, str] | None = None


@dataclass(slots=True)
class RepoIn:
    url: str
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class LinkIn:
    paper: PaperIn
    repo: RepoIn
    fields: dict[str, Any]


@dataclass(slots=True)
class RecordIn:
    paper: PaperIn
    links: list[LinkIn]
    report: dict[str, Any] | None
    report_repos: list[tuple[RepoIn, str]]
    samples: list[dict[str, Any]]
    datasets_introduced: list[str]
    methods_introduced: list[str]


@dataclass(slots=True)
class MethodIn:
    slug: str
    fields: dict[str, Any]
    collections: list[dict[str, str]]


@dataclass(slots=True)
class DatasetIn:
    slug: str
    fields: dict[str, Any]
    tasks: list[str]


@dataclass(slots=True)
class TaskIn:
    slug: str
    fields: dict[str, Any]


@dataclass(slots=True)
class LeaderboardIn:
    task: str
    dataset: str
    dataset_name: str
    parent_dataset: str | None
    position: int
    fields: dict[str, Any]
    metrics: list[str]
    rows: list[dict[str, Any]]


@dataclass(slots=True)
class EvaluationIn:
    tasks: list[TaskIn]
    edges: list[tuple[str, str, int]]
    leaderboards: list[LeaderboardIn]
    stubs: list[PaperIn]


def _require_dict(raw: Any) -> dict:
    if not isinstance(raw, dict):
        raise RecordError("(record)", f"expected an object, got {type(raw).__name__}")
    return raw


def _published(raw: dict, key: str) -> dict[str, Any]:
    return {"published": n.date(raw.get(key), key)}


# --- papers-with-abstracts (and API-shaped papers) ------------------------------------


def parse_paper(raw: Any) -> PaperIn:
    raw = _require_dict(raw)
    if "paper_url" in raw or "id" not in raw:
        slug = n.paper_slug(raw.get("paper_url"), "paper_url") or n.url_slug(
            raw.get("paper_url"), "paper_url"
        )
        key = "paper_url"
    else:  # The API's shape: {"id": slug, "published": ...}
        slug, key = n.text(raw.get("id"), "id", max_length=255), "id"
    if not slug:
        raise RecordError(key, "missing (it is the paper's identity)")
    fields = {
        "title": n.one_line(raw.get("title"), "title"),
        "arxiv_id": n.arxiv_id(raw.get("arxiv_id")) or None,
        "nips_id": n.text(raw.get("nips_id"), "nips_id", max_length=64),
        "openreview_id": n.text(raw.get("openreview_id"), "openreview_id", max_length=64),
        "proceeding": n.one_line(raw.get("proceeding"), "proceeding", max_length=255),
        "conference": n.one_line(raw.get("conference"), "conference", max_length=255),
        "abstract": n.text(raw.get("abstract"), "abstract"),
        "short_abstract": n.text(raw.get("short_abstract"), "short_abstract"),
        "url_abs": n.text(raw.get("url_abs"), "url_abs", max_length=500),
        "url_pdf": n.text(raw.get("url_pdf"), "url_pdf", max_length=500),
        **_published(raw, "date" if "date" in raw else "published"),
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
        tasks=_names(raw.get("tasks"), "tasks"),
        methods=[m for m in methods if m],
    )


def _names(value: Any, field_name: str) -> list[str]:
    """Names from a list of strings or of objects with a name/task key."""
    if value in (None, ""):
        return []
    if not isinstance(value, list):
        raise RecordError(field_name, f"expected a list, got {type(value).__name__}")
    names = []
    for index, item in enumerate(value):
        if isinstance(item, dict):
            item = item.get("name") or item.get("task")
        name = n.one_line(item, f"{field_name}[{index}]")
        if name:
            names.append(name)
    return names


# --- links-between-papers-and-code ----------------------------------------------------


def parse_link(raw: Any) -> LinkIn:
    raw = _require_dict(raw)
    slug = n.paper_slug(raw.get("paper_url"), "paper_url")
    if not slug:
        raise RecordError("paper_url", "missing or not a paper URL (it names the paper)")
    repo_url = n.text(raw.get("repo_url"), "repo_url", max_length=500)
    if not repo_url:
        raise RecordError("repo_url", "missing (it names the repository)")
    if not repo_url.startswith(("http://", "https://")):
        raise RecordError("repo_url", f"not an http(s) URL: {repo_url!r}")
    stub = PaperIn(
        slug=slug,
        rank=RANK_STUB,
        fields={
            "title": n.one_line(raw.get("paper_title"), "paper_title"),
            "arxiv_id": n.arxiv_id(raw.get("paper_arxiv_id"), "paper_arxiv_id") or None,
            "url_abs": n.text(raw.get("paper_url_abs"), "paper_url_abs", max_length=500),
            "url_pdf": n.text(raw.get("paper_url_pdf"), "paper_url_pdf", max_length=500),
        },
    )
    return LinkIn(paper=stub, repo=RepoIn(repo_url), fields=_link_fields(raw))


def _link_fields(raw: dict, prefix: str = "") -> dict[str, Any]:
    return {
        "is_official": n.flag(raw.get("is_official"), f"{prefix}is_official"),
        "mentioned_in_paper": n.flag(raw.get("mentioned_in_paper"), f"{prefix}mentioned_in_paper"),
        "mentioned_in_github": n.flag(
            raw.get("mentioned_in_github"), f"{prefix}mentioned_in_github"
        ),
        "framework": n.one_line(raw.get("framework"), f"{prefix}framework", max_length=64),
    }


def _reach(value: Any, field_name: str) -> dict[str, Any]:
    reach = n.obj(value, field_name)
    return {
        "reach_status": n.one_line(reach.get("status"), f"{field_name}.status", max_length=32),
        "licence": n.one_line(reach.get("spdx"), f"{field_name}.spdx", max_length=100),
    }


# --- seed-shaped paper records ---------------------------------------------------------

RECORD_KEYS = (
    "about", "url", "title", "arxiv_id", "date", "proceeding", "authors", "abstract",
    "url_abs", "url_pdf", "source", "code_links", "tasks", "methods", "datasets_introduced",
    "methods_introduced", "results", "syntology", "arxiv_metadata", "syntology_extracted_results",
)  # fmt: skip
REPORT_KEYS = (
    "syntology_url", "atlas_url", "mcp", "developers", "read_at", "read_at_is", "claim",
    "repos", "summary", "by_repo_kind", "repo_kind_vocabulary", "n_pointer_only_for_licence",
    "samples",
)  # fmt: skip
SAMPLE_KEYS = (
    "code_sha256_prefix", "entry", "repo", "repo_kind", "path", "file_url", "link_basis",
    "language", "status", "verification_level", "contract_check", "metamorphic_tier",
    "behaviour_fingerprint", "licence", "inline_ok", "mcp_get_code",
)  # fmt: skip


def parse_record(raw: Any) -> RecordIn:
    from papers.models import report_by_repo_kind, report_summary

    raw = _require_dict(raw)
    slug = n.paper_slug(raw.get("url"), "url")
    if not slug:
        raise RecordError("url", "missing or not /paper/<slug> (it is the paper's identity)")
    source = n.obj(raw.get("source"), "source")
    extra = {key: value for key, value in raw.items() if key not in RECORD_KEYS}
    if raw.get("results"):
        extra["results"] = raw["results"]
    fields = {
        "title": n.one_line(raw.get("title"), "title"),
        "arxiv_id": n.arxiv_id(raw.get("arxiv_id")) or None,
        "proceeding": n.one_line(raw.get("proceeding"), "proceeding", max_length=255),
        "abstract": n.text(raw.get("abstract"), "abstract"),
        "url_abs": n.text(raw.get("url_abs"), "url_abs", max_length=500),
        "url_pdf": n.text(raw.get("url_pdf"), "url_pdf", max_length=500),
        "source_archive": n.one_line(source.get("archive"), "source.archive", max_length=255),
        "source_snapshot": n.one_line(source.get("snapshot"), "source.snapshot", max_length=32),
        "source_row_kind": n.one_line(source.get("row_kind"), "source.row_kind", max_length=64),
        "source_licence_url": n.text(
            source.get("licence_url"), "source.licence_url", max_length=500
        ),
        "arxiv_metadata": raw.get("arxiv_metadata"),
        "extracted_results": raw.get("syntology_extracted_results"),
        "extra": extra,
        **_published(raw, "date"),
    }
    paper = PaperIn(
        slug=slug,
        rank=RANK_RECORD,
        fields=fields,
        authors=n.text_list(raw.get("authors"), "authors"),
        tasks=_names(raw.get("tasks"), "tasks"),
        methods=_names(raw.get("methods"), "methods"),
    )
    links = []
    for index, link in enumerate(n.obj_list(raw.get("code_links"), "code_links")):
        where = f"code_links[{index}]."
        url = n.text(link.get("repo_url"), f"{where}repo_url", max_length=500)
        if not url:
            raise RecordError(f"{where}repo_url", "missing (it names the repository)")
        link_slug = n.paper_slug(link.get("paper_slug"), f"{where}paper_slug")
        if link_slug and link_slug != slug:
            raise RecordError(f"{where}paper_slug", f"{link_slug!r} is not this record's {slug!r}")
        repo = RepoIn(url, _reach(link.get("reach"), f"{where}reach") if "reach" in link else {})
        fields_ = _link_fields(link, where) | {"position": index}
        links.append(LinkIn(paper=paper, repo=repo, fields=fields_))

    report, report_repos, samples = None, [], []
    syntology = raw.get("syntology")
    if syntology is not None:
        s = n.obj(syntology, "syntology")
        report = {
            "has_report": True,
            "report_url": n.text(
                s.get("syntology_url"), "syntology.syntology_url", max_length=500
            ),
            "report_atlas_url": n.text(s.get("atlas_url"), "syntology.atlas_url", max_length=500),
            "report_developers_url": n.text(
                s.get("developers"), "syntology.developers", max_length=500
            ),
            "report_mcp": s.get("mcp"),
            "report_read_at": n.timestamp(s.get("read_at"), "syntology.read_at"),
            "report_read_at_is": n.text(
                s.get("read_at_is"), "syntology.read_at_is", max_length=500
            ),
            "report_claim": n.text(s.get("claim"), "syntology.claim"),
            "report_repo_kind_vocabulary": n.obj(
                s.get("repo_kind_vocabulary"), "syntology.repo_kind_vocabulary"
            ),
            "report_n_pointer_only_for_licence": n.integer(
                s.get("n_pointer_only_for_licence"), "syntology.n_pointer_only_for_licence"
            ),
        }
        for index, repo in enumerate(n.obj_list(s.get("repos"), "syntology.repos")):
            where = f"syntology.repos[{index}]"
            url = n.text(repo.get("url"), f"{where}.url", max_length=500)
            if not url:
                raise RecordError(f"{where}.url", "missing (it names the repository)")
            reach = _reach(repo.get("reach"), f"{where}.reach") if "reach" in repo else {}
            provenance = n.one_line(repo.get("provenance"), f"{where}.provenance", max_length=255)
            report_repos.append((RepoIn(url, reach), provenance))
        for index, sample in enumerate(n.obj_list(s.get("samples"), "syntology.samples")):
            samples.append(_parse_sample(sample, f"syntology.samples[{index}]", index))
        _check_counts(s, "summary", report_summary, samples)
        _check_counts(s, "by_repo_kind", report_by_repo_kind, samples)
    return RecordIn(
        paper=paper,
        links=links,
        report=report,
        report_repos=report_repos,
        samples=samples,
        datasets_introduced=_names(raw.get("datasets_introduced"), "datasets_introduced"),
        methods_introduced=_names(raw.get("methods_introduced"), "methods_introduced"),
    )


class _SampleView:
    """Lets the model's report helpers count parsed samples."""

    __slots__ = ("repo", "repo_kind", "status")

    def __init__(self, sample: dict):
        self.status, self.repo_kind, self.repo = (
            sample["status"],
            sample["repo_kind"],
            sample["repo"],
        )

    @property
    def ran(self) -> bool:
        return self.status.startswith("ran")


def _check_counts(report: dict, key: str, derive, samples: list[dict]) -> None:
    given = report.get(key)
    if given is None:
        return
    derived = derive([_SampleView(s) for s in samples])
    if given != derived:
        raise RecordError(
            f"syntology.{key}",
            f"{json.dumps(given, sort_keys=True)} disagrees with the samples, "
            f"which give {json.dumps(derived, sort_keys=True)}",
        )


def _parse_sample(raw: dict, where: str, position: int) -> dict[str, Any]:
    status = n.one_line(raw.get("status"), f"{where}.status", max_length=64)
    if not status:
        raise RecordError(f"{where}.status", "missing")
    repo = n.one_line(raw.get("repo"), f"{where}.repo", max_length=500)
    if not repo:
        raise RecordError(f"{where}.repo", "missing (it names the repository)")
    level = raw.get("verification_level")
    mcp = n.obj(raw.get("mcp_get_code"), f"{where}.mcp_get_code")
    return {
        "position": position,
        "repo": repo,
        "repo_kind": n.one_line(raw.get("repo_kind"), f"{where}.repo_kind", max_length=64),
        "path": n.text(raw.get("path"), f"{where}.path", max_length=1000),
        "entry": n.text(raw.get("entry"), f"{where}.entry", max_length=500),
        "file_url": n.text(raw.get("file_url"), f"{where}.file_url", max_length=1500),
        "link_basis": n.one_line(raw.get("link_basis"), f"{where}.link_basis", max_length=64),
        "language": n.one_line(raw.get("language"), f"{where}.language", max_length=64),
        "status": status,
        "verification_level": n.integer(level, f"{where}.verification_level"),
        "contract_check": n.one_line(raw.get("contract_check"), f"{where}.contract_check") or None,
        "metamorphic_tier": n.one_line(raw.get("metamorphic_tier"), f"{where}.metamorphic_tier")
        or None,
        "behaviour_fingerprint": n.optional_flag(
            raw.get("behaviour_fingerprint"), f"{where}.behaviour_fingerprint"
        ),
        "licence": None
        if raw.get("licence") is None
        else n.one_line(raw.get("licence"), f"{where}.licence", max_length=100),
        "inline_ok": n.optional_flag(raw.get("inline_ok"), f"{where}.inline_ok"),
        "code_sha256_prefix": n.one_line(
            raw.get("code_sha256_prefix"), f"{where}.code_sha256_prefix", max_length=64
        ),
        "mcp_code_sha256": n.one_line(
            mcp.get("code_sha256"), f"{where}.mcp_get_code.code_sha256", max_length=64
        ),
        "extra": {key: value for key, value in raw.items() if key not in SAMPLE_KEYS},
    }


# --- methods ------------------------------------------------------------------------------


def parse_method(raw: Any) -> MethodIn:
    raw = _require_dict(raw)
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
    paper = {"url": f"/paper/{paper}"} if isinstance(paper, str) else n.obj(paper, "paper")
    year = n.integer(raw.get("introduced_year"), "introduced_year")
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
                }
            )
    fields = {
        "name": name or slug,
        "full_name": n.one_line(raw.get("full_name"), "full_name"),
        "description": description,
        "paper_title": n.one_line(paper.get("title"), "paper.title"),
        "paper_url": n.text(paper.get("url"), "paper.url", max_length=500),
        "introduced_year": year,
        "year_uncertain": year is not None and (year <= 2000 or year > 2026),
        "source_url": n.text(raw.get("source_url"), "source_url", max_length=500),
        "source_title": n.one_line(raw.get("source_title"), "source_title"),
        "code_snippet_url": n.text(
            raw.get("code_snippet_url"), "code_snippet_url", max_length=500
        ),
        "num_papers": n.integer(raw.get("num_papers"), "num_papers"),
    }
    if n.looks_like_junk(name, description):
        fields["hidden"] = True  # flagged, never un-flagged by an import (staff can)
    return MethodIn(slug=slug, fields=fields, collections=collections)


# --- datasets -------------------------------------------------------------------------------


def parse_dataset(raw: Any) -> DatasetIn:
    from papers.models import uncertain_date

    raw = _require_dict(raw)
    if "contents" in raw and "url" not in raw:  # a derived search collection: id/contents
        raw = {
            "name": raw.get("id"),
            "description": raw.get("contents"),
            "variants": raw.get("variants"),
            "paper": {"title": raw.get("title")},
            "introduced_date": raw.get("date"),
        }
    name = n.one_line(raw.get("name"), "name", max_length=500)
    slug = n.url_slug(raw.get("url"), "url") or n.slug_of(name)
    if not slug:
        raise RecordError("url", "missing, and no name to derive it from (it is the identity)")
    description = n.text(raw.get("description"), "description")
    paper = n.obj(raw.get("paper"), "paper")
    introduced = n.date(raw.get("introduced_date"), "introduced_date")
    known = {
        "url", "name", "full_name", "homepage", "description", "paper", "introduced_date",
        "modalities", "languages", "variants", "num_papers", "tasks",
    }  # fmt: skip
    fields = {
        "name": name or slug,
        "full_name": n.one_line(raw.get("full_name"), "full_name"),
        "homepage": n.text(raw.get("homepage"), "homepage", max_length=500),
        "description": description,
        "paper_title": n.one_line(paper.get("title"), "paper.title"),
        "paper_url": n.text(paper.get("url"), "paper.url", max_length=500),
        "introduced_date": introduced,
        "date_uncertain": uncertain_date(introduced),
        "modalities": n.text_list(raw.get("modalities"), "modalities"),
        "languages": n.text_list(raw.get("languages"), "languages"),
        "variants": n.text_list(raw.get("variants"), "variants"),
        "num_papers": n.integer(raw.get("num_papers"), "num_papers"),
        "extra": {k: v for k, v in raw.items() if k not in known and v not in (None, "", [])},
    }
    if n.looks_like_junk(name, description):
        fields["hidden"] = True  # flagged, never un-flagged by an import (staff can)
    return DatasetIn(slug=slug, fields=fields, tasks=_names(raw.get("tasks"), "tasks"))


# --- evaluation tables ------------------------------------------------------------------------


def parse_evaluation(raw: Any) -> EvaluationIn:
    raw = _require_dict(raw)
    out = EvaluationIn(tasks=[], edges=[], leaderboards=[], stubs=[])
    _walk_task(raw, "", None, 0, out)
    return out


def _walk_task(raw: Any, where: str, parent: str | None, position: int, out: EvaluationIn) -> None:
    if not isinstance(raw, dict):
        raise RecordError(where or "(record)", "expected a task object")
    name = n.one_line(raw.get("task"), f"{where}task", max_length=500)
    if not name:
        raise RecordError(f"{where}task", "missing (it is the task's identity)")
    slug = n.slug_of(name)
    if not slug:
        raise RecordError(f"{where}task", f"no usable slug in {name!r}")
    out.tasks.append(
        TaskIn(
            slug=slug,
            fields={
                "name": name,
                "description": n.text(raw.get("description"), f"{where}description"),
                "categories": n.text_list(raw.get("categories"), f"{where}categories"),
                "source_link": _link_url(raw.get("source_link"), f"{where}source_link"),
            },
        )
    )
    if parent and parent != slug:
        out.edges.append((parent, slug, position))
    for index, dataset in enumerate(n.obj_list(raw.get("datasets"), f"{where}datasets")):
        _walk_dataset(dataset, f"{where}datasets[{index}].", slug, None, index, out)
    for index, sub in enumerate(n.obj_list(raw.get("subtasks"), f"{where}subtasks")):
        _walk_task(sub, f"{where}subtasks[{index}].", slug, index, out)


def _walk_dataset(
    raw: dict,
    where: str,
    task: str,
    parent: tuple[str, str] | None,
    position: int,
    out: EvaluationIn,
) -> None:
    name = n.one_line(raw.get("dataset"), f"{where}dataset", max_length=500)
    if not name and parent and raw.get("subdataset"):
        # A subdataset is named relative to its parent: SemEval 2018 → "General".
        sub = n.one_line(raw.get("subdataset"), f"{where}subdataset", max_length=400)
        name = f"{parent[1]} ({sub})"
    if not name:
        raise RecordError(f"{where}dataset", "missing (it names the dataset)")
    slug = n.slug_of(name)
    sota = n.obj(raw.get("sota"), f"{where}sota")
    metrics = n.text_list(sota.get("metrics"), f"{where}sota.metrics")
    rows = []
    seen: dict[str, int] = {}
    for index, row in enumerate(n.obj_list(sota.get("rows"), f"{where}sota.rows")):
        parsed = _parse_row(row, f"{where}sota.rows[{index}].", index)
        # Rows have no id: identity is their content key plus its occurrence count.
        occurrence = seen.get(parsed["row_key"], 0)
        seen[parsed["row_key"]] = occurrence + 1
        if occurrence:
            parsed["row_key"] = hashlib.sha1(
                f"{parsed['row_key']}#{occurrence}".encode()
            ).hexdigest()
        for metric in parsed["metrics"]:
            if metric not in metrics:
                metrics.append(metric)
        if parsed.pop("stub"):
            out.stubs.append(parsed.pop("stub_paper"))
        else:
            parsed.pop("stub_paper")
        rows.append(parsed)
    out.leaderboards.append(
        LeaderboardIn(
            task=task,
            dataset=slug,
            dataset_name=name,
            parent_dataset=parent[0] if parent else None,
            position=position,
            fields={
                "description": n.text(raw.get("description"), f"{where}description"),
                "dataset_links": n.obj_list(raw.get("dataset_links"), f"{where}dataset_links"),
                "dataset_citations": raw.get("dataset_citations") or [],
            },
            metrics=metrics,
            rows=rows,
        )
    )
    for index, sub in enumerate(n.obj_list(raw.get("subdatasets"), f"{where}subdatasets")):
        _walk_dataset(sub, f"{where}subdatasets[{index}].", task, (slug, name), index, out)


def _link_url(value: Any, where: str) -> str:
    """A link given as a URL or as {"title": …, "url": …}."""
    if isinstance(value, dict):
        return n.text(value.get("url"), f"{where}.url", max_length=500)
    return n.text(value, where, max_length=500)


def _parse_row(raw: dict, where: str, position: int) -> dict[str, Any]:
    from papers.models import parse_metric_value

    metrics_raw = n.obj(raw.get("metrics"), f"{where}metrics")
    metrics = {}
    for name, value in metrics_raw.items():
        if isinstance(value, dict | list):
            raise RecordError(f"{where}metrics.{name}", "expected a number or text")
        metrics[str(name)] = value
    model_name = n.one_line(raw.get("model_name"), f"{where}model_name", max_length=500)
    paper_title = n.one_line(raw.get("paper_title"), f"{where}paper_title")
    paper_url = n.text(raw.get("paper_url"), f"{where}paper_url", max_length=500)
    paper_date = n.one_line(raw.get("paper_date"), f"{where}paper_date", max_length=32)
    key = hashlib.sha1(
        json.dumps([model_name, paper_url, paper_title], ensure_ascii=False).encode()
    ).hexdigest()
    slug = n.paper_slug(paper_url, f"{where}paper_url")
    stub = None
    if slug:
        try:
            published = n.date(paper_date, f"{where}paper_date")
        except RecordError:
            published = None
        stub = PaperIn(
            slug=slug, rank=RANK_STUB, fields={"title": paper_title, "published": published}
        )
    return {
        "row_key": key,
        "position": position,
        "model_name": model_name,
        "paper_title": paper_title,
        "paper_url": paper_url,
        "paper_date": paper_date,
        "metrics": metrics,
        "metric_values": {name: parse_metric_value(v) for name, v in metrics.items()},
        "uses_additional_data": n.flag(
            raw.get("uses_additional_data"), f"{where}uses_additional_data"
        ),
        "code_links": n.obj_list(raw.get("code_links"), f"{where}code_links"),
        "model_links": raw.get("model_links") or [],
        "paper_slug": slug,
        "paper_arxiv": n.arxiv_from_url(paper_url, f"{where}paper_url"),
        "stub": stub is not None,
        "stub_paper": stub,
    }


PARSERS = {
    "records": parse_record,
    "papers": parse_paper,
    "links": parse_link,
    "methods": parse_method,
    "datasets": parse_dataset,
    "evaluation-tables": parse_evaluation,
}
