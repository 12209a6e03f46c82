"""Papers (by arXiv id) and their code links, added through the API."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit, urlunsplit

from django.db.models import Max

from papers.api import shapes
from papers.api.writes.operations import (
    Conflict,
    Invalid,
    Outcome,
    _contribute,
    _given,
    paper_of,
)
from papers.contributions.revisions import Actor, delete, record, snapshot
from papers.identifiers import arxiv_slug, parse_arxiv
from papers.models import (
    Author,
    CodeLink,
    Dataset,
    Method,
    Paper,
    PaperAuthor,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Repository,
    Task,
)


def paper_add(data: dict, target: dict, actor: Actor) -> Outcome:
    arxiv = parse_arxiv(data["arxiv_id"])
    if not arxiv:
        raise Invalid("arxiv_id", f"not an arXiv id: {data['arxiv_id']!r}")
    existing = Paper.objects.filter(arxiv_id=arxiv).first()
    if existing is not None:
        raise Conflict(f"the paper {existing.slug!r} has arXiv id {arxiv}")
    paper = Paper(
        slug=arxiv_slug(arxiv),
        arxiv_id=arxiv,
        title=data.get("title") or "",
        abstract=data.get("abstract") or "",
        published=data.get("published") or None,
        url_abs=data.get("url_abs") or f"https://arxiv.org/abs/{arxiv}",
        url_pdf=data.get("url_pdf") or f"https://arxiv.org/pdf/{arxiv}",
    )
    _contribute(paper, actor)
    paper.save()
    for position, name in enumerate(data.get("authors") or []):
        author, _ = Author.objects.get_or_create(
            slug=Author.slug_for(name)[:255] or "author", defaults={"name": name}
        )
        PaperAuthor.objects.create(paper=paper, author=author, position=position, name=name)
    record(paper, {}, actor)
    return Outcome(201, paper, papers={paper.pk})


def normalise_repository_url(url: str) -> str:
    """https, lower-case host without www., no trailing slash, no .git."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = parts.path.rstrip("/").removesuffix(".git").rstrip("/")
    return urlunsplit(("https", host, path, "", ""))


def code_link_add(data: dict, target: dict, actor: Actor) -> Outcome:
    paper = paper_of(target["paper_id"], None)
    url = normalise_repository_url(data["url"])
    if not Repository.parts_from_url(url)[1]:
        raise Invalid("url", "names no repository (https://host/owner/name)")
    repository = Repository.objects.filter(url__iexact=url).first()
    if repository is None:
        repository = Repository(url=url)
        _contribute(repository, actor)
        repository.save()
    if CodeLink.objects.filter(paper=paper, repository=repository).exists():
        raise Conflict(f"{paper.slug} already links {repository.url}")
    top = paper.code_links.aggregate(top=Max("position"))["top"]
    link = CodeLink(
        paper=paper,
        repository=repository,
        framework=(data.get("framework") or "").lower(),
        is_official=bool(data.get("is_official")),
        position=0 if top is None else top + 1,
    )
    _contribute(link, actor)
    link.save()
    record(link, {}, actor)
    shape = shapes.repository(repository, link.framework, is_official=link.is_official)
    return Outcome(201, {**shape, **shapes.provenance(link)}, papers={paper.pk})


# A paper's links to records, by the body's field: (the record's model, the link's).
LINKS = {
    "tasks": (Task, PaperTask),
    "methods": (Method, PaperMethod),
    "datasets": (Dataset, PaperDataset),
}


def named_records(model, field_name: str, names: list[str]) -> list:
    """The records the names give (each an id or a name, any case), in order."""
    found = []
    for text in names:
        record_ = (
            model.objects.filter(slug=text).first()
            or model.objects.filter(name__iexact=text).order_by("id").first()
        )
        if record_ is None:
            noun = model._meta.verbose_name
            raise Invalid(field_name, f"no {noun} with id or name {text!r}")
        if record_ not in found:
            found.append(record_)
    return found


def _relink(paper: Paper, field_name: str, names: list[str], actor: Actor) -> None:
    """The paper's links of one kind made the list given: links added and removed, each
    with its revision (listed in the paper's history)."""
    model, link_model = LINKS[field_name]
    key = model._meta.model_name
    wanted = named_records(model, field_name, names)
    links = {getattr(link, f"{key}_id"): link for link in link_model.objects.filter(paper=paper)}
    for link in links.values():
        if getattr(link, f"{key}_id") not in {r.pk for r in wanted}:
            delete(link, actor)
    top = max((link.position for link in links.values()), default=-1)
    for found in wanted:
        if found.pk not in links:
            top += 1
            extra = {"name": found.name} if hasattr(link_model, "name") else {}
            link = link_model.objects.create(paper=paper, position=top, **{key: found}, **extra)
            record(link, {}, actor)


def paper_update(data: dict, target: dict, actor: Actor) -> Outcome:
    from papers.kept import linked_records

    paper = paper_of(target["paper_id"], None)
    fed_before = linked_records([paper.pk])
    before = snapshot(paper)
    if _given(data, "title"):
        if not data["title"]:
            raise Invalid("title", "a paper needs a title")
        paper.title = data["title"]
    if _given(data, "published"):
        paper.published = dt.date.fromisoformat(data["published"]) if data["published"] else None
    if _given(data, "arxiv_id"):
        arxiv = parse_arxiv(data["arxiv_id"]) if data["arxiv_id"] else ""
        if data["arxiv_id"] and not arxiv:
            raise Invalid("arxiv_id", f"not an arXiv id: {data['arxiv_id']!r}")
        if arxiv and Paper.objects.filter(arxiv_id=arxiv).exclude(pk=paper.pk).exists():
            raise Invalid("arxiv_id", f"another paper has arXiv id {arxiv}")
        paper.arxiv_id = arxiv or None
    _contribute(paper, actor)
    paper.save()
    record(paper, before, actor)
    for field_name in LINKS:
        if _given(data, field_name):
            _relink(paper, field_name, data[field_name], actor)
    return Outcome(200, paper, papers={paper.pk}, records=fed_before)
