"""/api/v1: papers, search, repositories, authors, conferences and execution reports.

Tasks, datasets, methods, areas and evaluation tables are in papers.api.taxonomy.
Each endpoint runs a fixed number of queries whatever the page size (tests assert it):
typically the object, the count, the page, and one query for what every row of the
page needs (authors, frameworks).
"""

from __future__ import annotations

from django import forms
from django.db.models import Exists, OuterRef, Q
from django.http import Http404, HttpRequest
from django.views.decorators.csrf import csrf_exempt

from papers import search as fulltext
from papers.api import shapes
from papers.api.http import (
    PageForm,
    Payload,
    Text,
    endpoint,
    error,
    newest,
    page_of,
    parameters,
    requested_page,
)
from papers.api.lists import (
    NEWEST,
    PAPER_COLUMNS,
    NoParameters,
    method_row,
    methods_with_paper,
    paper_list_page,
    paper_page,
    paper_rows,
    ranked_results,
    repository_rows,
    searched_papers,
    sourced,
    with_source,
)
from papers.api.openapi import (
    BOOLEAN,
    INTEGER,
    STRING,
    declare,
    not_served,
    page,
    ref,
    register,
)
from papers.forms import QueryText, SampleFilterForm
from papers.identifiers import parse_arxiv
from papers.kept.counts import paper_count
from papers.models import (
    Author,
    CodeLink,
    Dataset,
    Method,
    Paper,
    PaperAuthor,
    Repository,
    Sample,
    Task,
)
from papers.vocabularies import STATUS_CLAIM

SEARCH_RESULT = register(
    "SearchResult",
    {
        "type": "object",
        "properties": {
            "paper": ref("Paper"),
            "repository": {"anyOf": [ref("Repository"), {"type": "null"}]},
            "is_official": BOOLEAN,
        },
        "required": ["paper", "repository", "is_official"],
        "additionalProperties": False,
    },
)
SAMPLE_PAGE = page(
    ref("Sample"),
    claim={**STRING, "description": "What a status says, and what it does not."},
    summary={
        "type": "object",
        "additionalProperties": INTEGER,
        "description": "Every sample by status, unfiltered.",
    },
)


class SearchQuery(PageForm):
    q = QueryText()

    def clean_q(self) -> str:
        return (self.cleaned_data.get("q") or "").replace("\x00", " ")[:10_000]


class PaperQuery(SearchQuery):
    """`title` and `abstract` are searched as `q` is (words, stemmed, through the
    full-text index), each kept to its field."""

    arxiv_id = Text()
    title = Text()
    abstract = Text()

    def _field_words(self, name: str) -> fulltext.ParsedQuery | None:
        value = self.cleaned_data.get(name) or ""
        if not value.strip():
            return None
        parsed = fulltext.parse(value, typing=False, field=name)
        if parsed.empty:
            raise forms.ValidationError(
                f"no words to search for in {value[:80]!r} (common words such as "
                "'the' and 'of' are not searched alone)"
            )
        return parsed

    def clean_title(self) -> fulltext.ParsedQuery | None:
        return self._field_words("title")

    def clean_abstract(self) -> fulltext.ParsedQuery | None:
        return self._field_words("abstract")

    def clean_arxiv_id(self) -> str:
        value = self.cleaned_data.get("arxiv_id") or ""
        found = parse_arxiv(value)
        if found is None:
            raise forms.ValidationError(f"not an arXiv id: {value!r}")
        return found


class SampleQuery(PageForm, SampleFilterForm):
    """The site's sample filters (status, contract_check, language, repo_kind) and paging."""


# --- helpers ------------------------------------------------------------------------------


def has_words(q: str) -> bool:
    return not fulltext.parse(q, typing=False).empty


def get_paper(paper_id: str) -> Paper:
    return with_source(Paper.objects.visible(), *PAPER_COLUMNS).get(slug=paper_id)


# --- search and papers ---------------------------------------------------------------------


@declare(
    "Search papers, each with its best implementation",
    response=page(SEARCH_RESULT),
    query=SearchQuery,
)
@endpoint
def search(request: HttpRequest) -> Payload:
    """Papers with their best implementation (official first), like the site's search."""
    params = parameters(request, SearchQuery)
    page = requested_page(params)
    base = Paper.objects.visible()
    if not has_words(params["q"]):
        count = paper_count()
        papers = list(with_source(base.order_by(*NEWEST), *PAPER_COLUMNS)[page.offset : page.stop])
    else:
        count, papers = searched_papers(params["q"], base, page)
    best: dict[int, CodeLink] = {}
    links = (
        CodeLink.objects.filter(paper_id__in=[p.id for p in papers])
        .select_related("repository")
        .order_by("paper_id", "-is_official", "position", "id")
    )
    for link in links:
        best.setdefault(link.paper_id, link)
    results = []
    for row, p in zip(paper_rows(papers), papers, strict=True):
        link = best.get(p.id)
        results.append(
            {
                "paper": row,
                "repository": shapes.repository(link.repository, link.framework) if link else None,
                "is_official": bool(link and link.is_official),
            }
        )
    return Payload(page_of(request, page, count, results))


@declare("Papers: search or filter", response=page(ref("Paper")), query=PaperQuery)
@endpoint
def paper_list(request: HttpRequest) -> Payload:
    params = parameters(request, PaperQuery)
    papers = Paper.objects.visible()
    if params["arxiv_id"]:
        papers = papers.filter(arxiv_id=params["arxiv_id"])
    # The title and abstract filters are searches kept to their field, joined to `q`:
    # the full-text index answers them, ranked as `q` is.
    parsed = fulltext.parse(params["q"], typing=False)
    for kept in (params["title"], params["abstract"]):
        if kept is not None:
            parsed = parsed.joined(kept)
    count = paper_count() if parsed.empty and not params["arxiv_id"] else None
    return Payload(paper_list_page(request, parsed, papers, requested_page(params), count))


@declare("A paper", response=ref("Paper"), query=NoParameters)
@endpoint
def paper_detail(request: HttpRequest, paper_id: str) -> Payload:
    parameters(request, NoParameters)
    paper = get_paper(paper_id)
    rows = (
        PaperAuthor.objects.filter(paper=paper)
        .order_by("position")
        .values_list("name", "author__name", "author__updated_at")
    )
    names, changed = [], paper.updated_at
    for spelled, name, updated_at in rows:
        names.append(spelled or name)
        changed = newest(changed, updated_at)
    return Payload(shapes.paper(paper, names), changed)


@declare(
    "A paper's code: its repositories, official first",
    response=page(ref("Repository")),
    query=PageForm,
)
@endpoint
def paper_repositories(request: HttpRequest, paper_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    paper = get_paper(paper_id)
    links = CodeLink.objects.filter(paper=paper).select_related("repository")
    rows = links.order_by("-is_official", "position", "id")[page.offset : page.stop]
    results = [
        shapes.repository(link.repository, link.framework, is_official=link.is_official)
        for link in rows
    ]
    return Payload(page_of(request, page, links.count(), results))


@declare("A paper's datasets", response=page(ref("Dataset")), query=PageForm)
@endpoint
def paper_datasets(request: HttpRequest, paper_id: str) -> Payload:
    """The datasets the paper uses, and those it introduces."""
    page = requested_page(parameters(request, PageForm))
    paper = get_paper(paper_id)
    datasets = (
        sourced(Dataset)
        .filter(Q(paper_links__paper=paper) | Q(introduced_by=paper))
        .distinct()
        .order_by("name", "id")
    )
    rows = datasets[page.offset : page.stop]
    return Payload(page_of(request, page, datasets.count(), map(shapes.dataset, rows)))


@declare("A paper's tasks", response=page(ref("Task")), query=PageForm)
@endpoint
def paper_tasks(request: HttpRequest, paper_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    paper = get_paper(paper_id)
    tasks = sourced(Task).filter(paper_links__paper=paper).order_by("paper_links__position")
    rows = tasks[page.offset : page.stop]
    return Payload(page_of(request, page, tasks.count(), map(shapes.task, rows)))


@declare("A paper's methods", response=page(ref("Method")), query=PageForm)
@endpoint
def paper_methods(request: HttpRequest, paper_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    paper = get_paper(paper_id)
    methods = Method.objects.filter(paper_links__paper=paper).order_by("paper_links__position")
    rows = methods_with_paper(methods)[page.offset : page.stop]
    return Payload(page_of(request, page, methods.count(), map(method_row, rows)))


@declare(
    "A paper's results, each with its rank on its leaderboard",
    response=page(ref("Result")),
    query=PageForm,
)
@endpoint
def paper_results(request: HttpRequest, paper_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    paper = get_paper(paper_id)
    rows = paper.results.order_by("leaderboard_id", "position", "id")
    count = rows.count()
    shown = rows.select_related("paper", "contributed_by", "verification")[page.offset : page.stop]
    results = ranked_results(list(shown))
    return Payload(page_of(request, page, count, results))


@declare("A paper's execution report: its samples", response=SAMPLE_PAGE, query=SampleQuery)
@endpoint
def paper_samples(request: HttpRequest, paper_id: str) -> Payload:
    """The paper's execution report, filtered as on the site; `summary` counts every
    sample of the paper by status, and `claim` says what a status means."""
    params = parameters(request, SampleQuery)
    page = requested_page(params)
    paper = Paper.objects.visible().only("id", "slug", "report_claim").get(slug=paper_id)
    samples = Sample.objects.filter(paper=paper, **SampleQuery.filters_of(params))
    rows = samples.order_by("position")[page.offset : page.stop]
    results = [shapes.sample(s, paper.slug) for s in rows]
    return Payload(
        page_of(
            request,
            page,
            samples.count(),
            results,
            claim=paper.report_claim or STATUS_CLAIM,
            summary=paper.samples.status_counts(),
        )
    )


# --- repositories -------------------------------------------------------------------------


class RepositoryQuery(PageForm):
    q = Text()
    owner = Text()
    name = Text()
    stars = forms.IntegerField(required=False, min_value=0, max_value=2**31 - 1)
    framework = Text()


REPOSITORY_ORDER = ("host", "owner", "name", "id")


def get_repository(owner: str, name: str) -> Repository:
    """owner/name as the client names a repository; GitHub first where hosts share it."""
    found = (
        Repository.objects.filter(owner=owner, name=name)
        .annotate(elsewhere=~Q(host="github.com"))
        .order_by("elsewhere", "id")
        .first()
    )
    if found is None:
        raise Http404
    return found


@declare("Repositories", response=page(ref("Repository")), query=RepositoryQuery)
@endpoint
def repository_list(request: HttpRequest) -> Payload:
    params = parameters(request, RepositoryQuery)
    page = requested_page(params)
    repositories = Repository.objects.all()
    if q := params["q"]:
        repositories = repositories.filter(Q(url__icontains=q) | Q(description__icontains=q))
    for key in ("owner", "name"):
        if params[key]:
            repositories = repositories.filter(**{key: params[key]})
    if params["stars"]:  # unknown stars are shown as 0, so stars=0 keeps them
        repositories = repositories.filter(stars__gte=params["stars"])
    if params["framework"]:
        repositories = repositories.filter(
            Exists(
                CodeLink.objects.filter(repository=OuterRef("pk"), framework=params["framework"])
            )
        )
    rows = list(repositories.order_by(*REPOSITORY_ORDER)[page.offset : page.stop])
    return Payload(page_of(request, page, repositories.count(), repository_rows(rows)))


@declare("An owner's repositories", response=page(ref("Repository")), query=PageForm)
@endpoint
def repository_owner_list(request: HttpRequest, owner: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    repositories = Repository.objects.filter(owner=owner)
    count = repositories.count()
    if not count:
        raise Http404
    rows = list(repositories.order_by(*REPOSITORY_ORDER)[page.offset : page.stop])
    return Payload(page_of(request, page, count, repository_rows(rows)))


@declare("A repository", response=ref("Repository"), query=NoParameters)
@endpoint
def repository_detail(request: HttpRequest, owner: str, name: str) -> Payload:
    parameters(request, NoParameters)
    repository = get_repository(owner, name)
    return Payload(repository_rows([repository])[0], repository.updated_at)


@declare("The papers a repository implements", response=page(ref("Paper")), query=PageForm)
@endpoint
def repository_papers(request: HttpRequest, owner: str, name: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    repository = get_repository(owner, name)
    papers = Paper.objects.visible().filter(code_links__repository=repository)
    return Payload(paper_page(request, papers, page))


@declare("The samples run from a repository", response=SAMPLE_PAGE, query=SampleQuery)
@endpoint
def repository_samples(request: HttpRequest, owner: str, name: str) -> Payload:
    """The samples run from this repository, over every paper that links it."""
    params = parameters(request, SampleQuery)
    page = requested_page(params)
    repository = get_repository(owner, name)
    samples = Sample.objects.filter(repository=repository, **SampleQuery.filters_of(params))
    rows = samples.select_related("paper").only(
        *(f.name for f in Sample._meta.concrete_fields), "paper__slug"
    )
    results = [
        shapes.sample(s, s.paper.slug)
        for s in rows.order_by("paper_id", "position")[page.offset : page.stop]
    ]
    return Payload(
        page_of(
            request,
            page,
            samples.count(),
            results,
            claim=STATUS_CLAIM,
            summary=repository.samples.status_counts(),
        )
    )


# --- authors ------------------------------------------------------------------------------


class AuthorQuery(PageForm):
    q = Text()
    full_name = Text()


@declare("Authors", response=page(ref("Author")), query=AuthorQuery)
@endpoint
def author_list(request: HttpRequest) -> Payload:
    params = parameters(request, AuthorQuery)
    page = requested_page(params)
    authors = Author.objects.all()
    for key in ("q", "full_name"):
        if params[key]:
            authors = authors.filter(name__icontains=params[key])
    rows = authors.order_by("slug")[page.offset : page.stop]
    return Payload(page_of(request, page, authors.count(), map(shapes.author, rows)))


@declare("An author", response=ref("Author"), query=NoParameters)
@endpoint
def author_detail(request: HttpRequest, author_id: str) -> Payload:
    parameters(request, NoParameters)
    author = Author.objects.get(slug=author_id)
    return Payload(shapes.author(author), author.updated_at)


@declare("An author's papers, newest first", response=page(ref("Paper")), query=PageForm)
@endpoint
def author_papers(request: HttpRequest, author_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    author = Author.objects.get(slug=author_id)
    papers = Paper.objects.visible().filter(authorships__author=author).distinct()
    return Payload(paper_page(request, papers, page))


# --- conferences and proceedings, derived from the papers' `proceeding` ---------------------


class ConferenceQuery(PageForm):
    q = Text()
    name = Text()


def proceedings() -> list[str]:
    """Every distinct `proceeding` ("NeurIPS 2019 12") of a visible paper, sorted."""
    return list(
        Paper.objects.visible()
        .exclude(proceeding="")
        .order_by("proceeding")
        .values_list("proceeding", flat=True)
        .distinct()
    )


def conferences() -> dict[str, str]:
    """Conference id → name ("neurips" → "NeurIPS"), in name order."""
    found: dict[str, str] = {}
    for text in proceedings():
        name = shapes.proceeding_parts(text)[0]
        found.setdefault(shapes.conference_id(text), name)
    return dict(sorted(found.items(), key=lambda item: (item[1].casefold(), item[0])))


def conference_proceedings(conference_id: str) -> list[str]:
    found = [text for text in proceedings() if shapes.conference_id(text) == conference_id]
    if not found:
        raise Http404
    return found


@declare("Conferences", response=page(ref("Conference")), query=ConferenceQuery)
@endpoint
def conference_list(request: HttpRequest) -> Payload:
    params = parameters(request, ConferenceQuery)
    page = requested_page(params)
    rows = [
        shapes.conference(name)
        for name in conferences().values()
        if all(params[k].casefold() in name.casefold() for k in ("q", "name"))
    ]
    return Payload(page_of(request, page, len(rows), page.slice(rows)))


@declare("A conference", response=ref("Conference"), query=NoParameters)
@endpoint
def conference_detail(request: HttpRequest, conference_id: str) -> Payload:
    parameters(request, NoParameters)
    name = conferences().get(conference_id)
    if name is None:
        raise Http404
    return Payload(shapes.conference(name))


@declare("A conference's proceedings", response=page(ref("Proceeding")), query=PageForm)
@endpoint
def proceeding_list(request: HttpRequest, conference_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    found = [shapes.proceeding(text) for text in conference_proceedings(conference_id)]
    unique = list({p["id"]: p for p in found}.values())
    return Payload(page_of(request, page, len(unique), page.slice(unique)))


def proceeding_texts(conference_id: str, proceeding_id: str) -> list[str]:
    texts = [
        text
        for text in conference_proceedings(conference_id)
        if shapes.proceeding_id(text) == proceeding_id
    ]
    if not texts:
        raise Http404
    return texts


@declare("A proceeding", response=ref("Proceeding"), query=NoParameters)
@endpoint
def proceeding_detail(request: HttpRequest, conference_id: str, proceeding_id: str) -> Payload:
    parameters(request, NoParameters)
    return Payload(shapes.proceeding(proceeding_texts(conference_id, proceeding_id)[0]))


@declare("A proceeding's papers", response=page(ref("Paper")), query=PageForm)
@endpoint
def proceeding_papers(request: HttpRequest, conference_id: str, proceeding_id: str) -> Payload:
    page = requested_page(parameters(request, PageForm))
    texts = proceeding_texts(conference_id, proceeding_id)
    return Payload(paper_page(request, Paper.objects.visible().filter(proceeding__in=texts), page))


# --- the rest -------------------------------------------------------------------------------


@not_served("a write of the original API; this API answers it with a 405")
@csrf_exempt
def read_only(request: HttpRequest, *args, **kwargs):
    """Write-only endpoints of the original API (evaluation-synchronize): its writes are
    routed to papers.api.writes; a read, or another method, is a 405 naming POST."""
    response = error(405, f"{request.method} is not allowed: {request.path} takes POST")
    response["Allow"] = "POST"
    return response


@csrf_exempt
def not_found(request: HttpRequest, *args, **kwargs):
    return error(404, f"no such endpoint: {request.path}")
