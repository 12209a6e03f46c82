"""Parse one raw record of each archive kind into plain, validated values.

Each parser takes the raw dict and returns dataclasses the loader writes; a value
that cannot be read raises RecordError naming its field (dotted path).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from papers.archive.read import normalise as n
from papers.archive.read.normalise import RecordError
from papers.metrics import json_safe_metrics, stated_lower_is_better

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
    # PostgreSQL (papers.archive.engines.postgresql.vectors), or None.
    search: tuple[str, str, str, str] | None = None
    # Keyed by its arXiv id (the record had no paper URL): `slug` is provisional
    # (n.arxiv_slug), and the paper that has this arXiv id, if any, is the one updated.
    by_arxiv: bool = False
    edited: bool = False  # the record says staff edited it (see edited())


@dataclass(slots=True)
class RepoIn:
    url: str
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class LinkIn:
    paper: PaperIn
    repo: RepoIn
    fields: dict[str, Any]
    edited: bool = False


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
    edited: bool = False


@dataclass(slots=True)
class DatasetIn:
    slug: str  # "" for a dataset known only by its name, which is then its identity
    fields: dict[str, Any]
    tasks: list[str]
    edited: bool = False


@dataclass(slots=True)
class TaskIn:
    """A node of an evaluation-tables tree. Its identity is its path of names from the
    top-level task: the loader (papers.archive.write.identity) gives it the slug of its name
    unless another node holds that slug, then one qualified by its parent's."""

    path: tuple[str, ...]
    fields: dict[str, Any]
    position: int = 0  # among its parent's subtasks
    # What the node holds (description, datasets, subtasks): the same subtask repeated
    # under several parents holds the same, and is one task.
    content_key: str = ""
    # Only named ({"task": …}): a mention of a task given in full elsewhere.
    reference: bool = False
    # The slug a `url` gives (our exports name a task whose slug its name would not
    # give): then the identity, whatever the path.
    slug: str = ""

    @property
    def name(self) -> str:
        return self.path[-1]


@dataclass(slots=True)
class LeaderboardIn:
    task: tuple[str, ...]  # the task node's path
    # The dataset: its name, and its slug where the board gives one (our exports do where
    # the name would not lead to it), which is then its identity.
    dataset: tuple[str, str]
    parent: tuple[str, str] | None  # the parent board's dataset, for a subdataset
    position: int  # in the task's boards, source order, subdatasets after their parent
    fields: dict[str, Any]
    metrics: list[str]
    rows: list[dict[str, Any]]
    # Metric name → the direction the board's description states for it, if any.
    stated: dict[str, bool | None]


@dataclass(slots=True)
class EvaluationIn:
    tasks: list[TaskIn]
    leaderboards: list[LeaderboardIn]
    stubs: list[PaperIn]


def edited(raw: dict) -> bool:
    """Whether a record says staff edited it (`"edited_in_admin": true`, which exports
    write): the import marks its row edited, so that later imports leave it alone. Papers,
    code links, methods and datasets are marked once every file is written (another
    file may still fill them: papers.archive.edits); the rest as they are written."""
    return raw.get("edited_in_admin") is True


def _edited_field(raw: dict) -> dict[str, bool]:
    return {"edited_in_admin": True} if edited(raw) else {}


def _require_dict(raw: Any) -> dict:
    if not isinstance(raw, dict):
        raise RecordError("(record)", f"expected an object, got {type(raw).__name__}")
    return raw


def _published(raw: dict, key: str) -> dict[str, Any]:
    return {"published": n.date(raw.get(key), key)}


# --- papers-with-abstracts (and API-shaped papers) ------------------------------------


def parse_paper(raw: Any) -> PaperIn:
    raw = _require_dict(raw)
    by_arxiv = False
    if "paper_url" in raw or "id" not in raw:
        slug, key = n.paper_slug(raw.get("paper_url"), "paper_url"), "paper_url"
    else:  # The API's shape: {"id": slug, "published": ...}
        slug, key = n.paper_slug(raw.get("id"), "id", bare=True), "id"
    arxiv = n.arxiv_id(raw.get("arxiv_id")) or n.arxiv_from_url(raw.get("url_abs"), "url_abs")
    if not slug and arxiv:
        # No paper URL (crawled API records often lack it): the arXiv id keys the paper.
        slug, by_arxiv = n.arxiv_slug(arxiv), True
    if not slug:
        raise RecordError(key, "missing, and no arxiv_id or arXiv url_abs to key the paper by")
    fields = {
        "title": n.one_line(raw.get("title"), "title"),
        "arxiv_id": arxiv or None,
        "nips_id": n.text(raw.get("nips_id"), "nips_id", max_length=64),
        "openreview_id": n.text(raw.get("openreview_id"), "openreview_id", max_length=64),
        "proceeding": n.one_line(raw.get("proceeding"), "proceeding", max_length=255),
        "conference": n.one_line(raw.get("conference"), "conference", max_length=255),
        "conference_url_abs": n.text(
            raw.get("conference_url_abs"), "conference_url_abs", max_length=500
        ),
        "conference_url_pdf": n.text(
            raw.get("conference_url_pdf"), "conference_url_pdf", max_length=500
        ),
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
        by_arxiv=by_arxiv,
        edited=edited(raw),
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
    return LinkIn(paper=stub, repo=RepoIn(repo_url), fields=_link_fields(raw), edited=edited(raw))


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
    raw = _require_dict(raw)
    slug = n.paper_slug(raw.get("url"), "url")
    if not slug:
        raise RecordError("url", "missing or not /paper/<slug> (it is the paper's identity)")
    paper = _record_paper(raw, slug)
    links = _record_links(raw, paper)
    report, report_repos, samples = None, [], []
    syntology = raw.get("syntology")
    if syntology is not None:
        report, report_repos, samples = _record_report(n.obj(syntology, "syntology"))
    return RecordIn(
        paper=paper,
        links=links,
        report=report,
        report_repos=report_repos,
        samples=samples,
        datasets_introduced=_names(raw.get("datasets_introduced"), "datasets_introduced"),
        methods_introduced=_names(raw.get("methods_introduced"), "methods_introduced"),
    )


def _record_paper(raw: dict, slug: str) -> PaperIn:
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
    return PaperIn(
        slug=slug,
        rank=RANK_RECORD,
        fields=fields,
        authors=n.text_list(raw.get("authors"), "authors"),
        tasks=_names(raw.get("tasks"), "tasks"),
        methods=_names(raw.get("methods"), "methods"),
    )


def _record_links(raw: dict, paper: PaperIn) -> list[LinkIn]:
    slug = paper.slug
    links = []
    for index, link in enumerate(n.obj_list(raw.get("code_links"), "code_links")):
        where = f"code_links[{index}]."
        url = n.text(link.get("repo_url"), f"{where}repo_url", max_length=500)
        if not url:
            raise RecordError(f"{where}repo_url", "missing (it names the repository)")
        link_slug = n.paper_slug(link.get("paper_slug"), f"{where}paper_slug", bare=True)
        if link_slug and link_slug != slug:
            raise RecordError(f"{where}paper_slug", f"{link_slug!r} is not this record's {slug!r}")
        repo = RepoIn(url, _reach(link.get("reach"), f"{where}reach") if "reach" in link else {})
        fields = _link_fields(link, where) | {"position": index}
        links.append(LinkIn(paper=paper, repo=repo, fields=fields))
    return links


def _record_report(s: dict) -> tuple[dict, list[tuple[RepoIn, str]], list[dict]]:
    """A record's Syntology report: the paper's report fields, its repositories (with
    their provenance) and its samples, whose counts must agree with its summaries."""
    from papers.models import report_by_repo_kind, report_summary

    report = {
        "has_report": True,
        "report_url": n.text(s.get("syntology_url"), "syntology.syntology_url", max_length=500),
        "report_atlas_url": n.text(s.get("atlas_url"), "syntology.atlas_url", max_length=500),
        "report_developers_url": n.text(
            s.get("developers"), "syntology.developers", max_length=500
        ),
        "report_mcp": s.get("mcp"),
        "report_read_at": n.timestamp(s.get("read_at"), "syntology.read_at"),
        "report_read_at_is": n.text(s.get("read_at_is"), "syntology.read_at_is", max_length=500),
        "report_claim": n.text(s.get("claim"), "syntology.claim"),
        "report_repo_kind_vocabulary": n.obj(
            s.get("repo_kind_vocabulary"), "syntology.repo_kind_vocabulary"
        ),
        "report_n_pointer_only_for_licence": n.integer(
            s.get("n_pointer_only_for_licence"), "syntology.n_pointer_only_for_licence"
        ),
    }
    report_repos = []
    for index, repo in enumerate(n.obj_list(s.get("repos"), "syntology.repos")):
        where = f"syntology.repos[{index}]"
        url = n.text(repo.get("url"), f"{where}.url", max_length=500)
        if not url:
            raise RecordError(f"{where}.url", "missing (it names the repository)")
        reach = _reach(repo.get("reach"), f"{where}.reach") if "reach" in repo else {}
        provenance = n.one_line(repo.get("provenance"), f"{where}.provenance", max_length=255)
        report_repos.append((RepoIn(url, reach), provenance))
    samples = [
        _parse_sample(sample, f"syntology.samples[{index}]", index)
        for index, sample in enumerate(n.obj_list(s.get("samples"), "syntology.samples"))
    ]
    _check_counts(s, "summary", report_summary, samples)
    _check_counts(s, "by_repo_kind", report_by_repo_kind, samples)
    return report, report_repos, samples


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
                    **_edited_field(item),
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
    from papers.models import uncertain_year

    year = n.integer(raw.get(key), key)
    if year is None:
        return {}
    return {"introduced_year": year, "year_uncertain": uncertain_year(year)}


# --- datasets -------------------------------------------------------------------------------


def parse_dataset(raw: Any) -> DatasetIn:
    from papers.models import uncertain_date

    raw = _require_dict(raw)
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
    tasks = _names(raw.get("tasks"), "tasks")
    return DatasetIn(slug=slug, fields=fields, tasks=tasks, edited=edited(raw))


# --- evaluation tables ------------------------------------------------------------------------


def parse_evaluation(raw: Any) -> EvaluationIn:
    raw = _require_dict(raw)
    out = EvaluationIn(tasks=[], leaderboards=[], stubs=[])
    _walk_task(raw, "", (), 0, out)
    return out


def _walk_task(
    raw: Any, where: str, parent: tuple[str, ...], position: int, out: EvaluationIn
) -> None:
    if not isinstance(raw, dict):
        raise RecordError(where or "(record)", "expected a task object")
    name = n.one_line(raw.get("task"), f"{where}task", max_length=500)
    if not name:
        raise RecordError(f"{where}task", "missing (it is the task's identity)")
    if not n.slug_of(name):
        raise RecordError(f"{where}task", f"no usable slug in {name!r}")
    path = (*parent, name)
    if path.count(name) > 1:
        raise RecordError(f"{where}task", f"{name!r} is nested under itself")
    description = n.text(raw.get("description"), f"{where}description")
    datasets = n.obj_list(raw.get("datasets"), f"{where}datasets")
    subtasks = n.obj_list(raw.get("subtasks"), f"{where}subtasks")
    link = raw.get("source_link")
    node = TaskIn(
        path=path,
        position=position,
        slug=n.url_slug(raw.get("url"), f"{where}url"),
        fields={
            "name": name,
            "description": description,
            "categories": n.text_list(raw.get("categories"), f"{where}categories"),
            "source_link": _link_url(link, f"{where}source_link"),
            "source_link_title": n.one_line(link.get("title"), f"{where}source_link.title")
            if isinstance(link, dict)
            else "",
            **_edited_field(raw),
        },
        content_key=hashlib.sha1(
            json.dumps(
                [
                    description,
                    [n.one_line(d.get("dataset"), "dataset") for d in datasets],
                    [n.one_line(t.get("task"), "task") for t in subtasks],
                ],
                ensure_ascii=False,
            ).encode()
        ).hexdigest(),
        reference=not (description or datasets or subtasks),
    )
    out.tasks.append(node)
    _Boards(path).walk_all(datasets, where, None, out)
    for index, sub in enumerate(subtasks):
        _walk_task(sub, f"{where}subtasks[{index}].", path, index, out)


class _Boards:
    """A task's leaderboards in source order: each board's position counts every board of
    the task before it, a subdataset's right after its parent's."""

    def __init__(self, task: tuple[str, ...]):
        self.task = task
        self.position = 0

    def walk_all(self, items: list[dict], where: str, parent: tuple[str, str] | None, out) -> None:
        """Sibling boards. A task's datasets given twice (by names equal but for case or
        surrounding space) are one board, whose rows the loader merges. Subdatasets of one
        parent may share a name (nlp-progress has four called "Example" under one parent,
        each with results of its own): the second and later are told apart by their place
        among them ("Smaller Datasets (Example) #2"), never merged."""
        seen: dict[str, int] = {}
        key = "subdatasets" if parent else "datasets"
        for index, raw in enumerate(items):
            at = f"{where}{key}[{index}]."
            name = _board_name(raw, at, parent[0] if parent else None)
            folded = name.casefold()
            seen[folded] = seen.get(folded, 0) + 1
            if parent and seen[folded] > 1:
                name = f"{name} #{seen[folded]}"
            dataset = (name, n.url_slug(raw.get("dataset_url"), f"{at}dataset_url"))
            self.walk(raw, at, dataset, parent, out)

    def walk(
        self,
        raw: dict,
        where: str,
        dataset: tuple[str, str],
        parent: tuple[str, str] | None,
        out,
    ) -> None:
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
            stub = parsed.pop("stub_paper")
            if stub is not None:
                out.stubs.append(stub)
            rows.append(parsed)
        description = n.text(raw.get("description"), f"{where}description")
        out.leaderboards.append(
            LeaderboardIn(
                task=self.task,
                dataset=dataset,
                parent=parent,
                position=self.position,
                fields={
                    "description": description,
                    "dataset_links": n.obj_list(raw.get("dataset_links"), f"{where}dataset_links"),
                    "dataset_citations": raw.get("dataset_citations") or [],
                    **_edited_field(raw),
                },
                metrics=metrics,
                rows=rows,
                stated={
                    name: stated_lower_is_better(description, name, len(metrics))
                    for name in metrics
                },
            )
        )
        self.position += 1
        subs = n.obj_list(raw.get("subdatasets"), f"{where}subdatasets")
        self.walk_all(subs, where, dataset, out)


def _board_name(raw: dict, where: str, parent: str | None) -> str:
    name = n.one_line(raw.get("dataset"), f"{where}dataset", max_length=500)
    if not name and parent and raw.get("subdataset"):
        # A subdataset is named relative to its parent: SemEval 2018 → "General".
        sub = n.one_line(raw.get("subdataset"), f"{where}subdataset", max_length=400)
        name = f"{parent} ({sub})"[:490]
    if not name:
        raise RecordError(f"{where}dataset", "missing (it names the dataset)")
    return name


def _link_url(value: Any, where: str) -> str:
    """A link given as a URL or as {"title": …, "url": …}."""
    if isinstance(value, dict):
        return n.text(value.get("url"), f"{where}.url", max_length=500)
    return n.text(value, where, max_length=500)


def _parse_row(raw: dict, where: str, position: int) -> dict[str, Any]:
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
        "metrics": json_safe_metrics(metrics),
        "uses_additional_data": n.flag(
            raw.get("uses_additional_data"), f"{where}uses_additional_data"
        ),
        "code_links": n.obj_list(raw.get("code_links"), f"{where}code_links"),
        "model_links": raw.get("model_links") or [],
        "paper_slug": slug,
        "paper_arxiv": n.arxiv_from_url(paper_url, f"{where}paper_url"),
        "stub_paper": stub,
        **_edited_field(raw),
    }


PARSERS = {
    "records": parse_record,
    "papers": parse_paper,
    "links": parse_link,
    "methods": parse_method,
    "datasets": parse_dataset,
    "evaluation-tables": parse_evaluation,
}
