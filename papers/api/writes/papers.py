"""Papers (by arXiv id) and their code links, added through the API."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from django.db.models import Max

from papers.api import shapes
from papers.api.writes.operations import Conflict, Invalid, Outcome, _contribute, paper_of
from papers.contributions.revisions import Actor, record
from papers.identifiers import arxiv_slug, parse_arxiv
from papers.models import Author, CodeLink, Paper, PaperAuthor, Repository


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
