"""Pages. Thin views: querying lives in querysets, formatting in templates."""

from django.db.models import Count, Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from papers.models import (
    Author,
    CodeLink,
    Dataset,
    LeaderboardRow,
    Method,
    Paper,
    PaperAuthor,
    PaperTask,
    Repository,
    Sample,
    Task,
)
from papers.vocabularies import STATUS_EXPLANATIONS, RepoKind, SampleStatus

PAGE_LIST = 50  # papers listed on an author/task/method/dataset/repository page


def _paper_list(queryset):
    """Papers for a list, with their first authors, in a constant number of queries."""
    return queryset.visible().prefetch_related(
        Prefetch("authorships", PaperAuthor.objects.select_related("author").order_by("position"))
    )[:PAGE_LIST]


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "papers/home.html",
        {
            "paper_count": Paper.objects.visible().count(),
            "repository_count": Repository.objects.count(),
            "sample_count": Sample.objects.count(),
            "status_counts": Sample.objects.status_counts(),
            "latest": _paper_list(Paper.objects.latest()),
        },
    )


@require_GET
def about(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "papers/about.html",
        {
            "statuses": [(s, s.label, STATUS_EXPLANATIONS[s]) for s in SampleStatus],
            "repo_kinds": list(RepoKind),
        },
    )


@require_GET
def paper_detail(request: HttpRequest, slug: str) -> HttpResponse:
    paper = get_object_or_404(
        Paper.objects.visible().prefetch_related(
            Prefetch(
                "authorships", PaperAuthor.objects.select_related("author").order_by("position")
            ),
            Prefetch(
                "code_links",
                CodeLink.objects.select_related("repository").order_by(
                    "-is_official", "position", "id"
                ),
            ),
            Prefetch("task_links", PaperTask.objects.select_related("task").order_by("position")),
            "methods",
            "datasets",
            "datasets_introduced",
            "methods_introduced",
            Prefetch(
                "results",
                LeaderboardRow.objects.select_related("leaderboard__task", "leaderboard__dataset"),
            ),
        ),
        slug=slug,
    )
    samples = list(paper.samples.select_related("repository").order_by("position"))
    return render(
        request,
        "papers/paper.html",
        {
            "paper": paper,
            "samples": samples,
            "status_counts": paper.samples.status_counts() if samples else {},
        },
    )


@require_GET
def author_detail(request: HttpRequest, slug: str) -> HttpResponse:
    author = get_object_or_404(Author, slug=slug)
    papers = _paper_list(
        Paper.objects.filter(authorships__author=author).order_by("-published", "id")
    )
    return render(request, "papers/author.html", {"author": author, "papers": papers})


@require_GET
def repository_detail(request: HttpRequest, host: str, owner: str, name: str) -> HttpResponse:
    repository = (
        Repository.objects.filter(host=host, owner=owner, name=name).order_by("id").first()
    )
    if repository is None:
        return render(request, "404.html", status=404)
    papers = _paper_list(
        Paper.objects.filter(code_links__repository=repository).order_by("-published", "id")
    )
    return render(
        request,
        "papers/repository.html",
        {
            "repository": repository,
            "papers": papers,
            "status_counts": repository.samples.status_counts(),
        },
    )


@require_GET
def task_detail(request: HttpRequest, slug: str) -> HttpResponse:
    task = get_object_or_404(Task.objects.prefetch_related("parents", "subtasks"), slug=slug)
    papers = _paper_list(Paper.objects.filter(task_links__task=task).order_by("-published", "id"))
    return render(request, "papers/task.html", {"task": task, "papers": papers})


@require_GET
def method_detail(request: HttpRequest, slug: str) -> HttpResponse:
    method = get_object_or_404(
        Method.objects.select_related("introduced_by").prefetch_related("collections"), slug=slug
    )
    papers = _paper_list(
        Paper.objects.filter(method_links__method=method).order_by("-published", "id")
    )
    return render(request, "papers/method.html", {"method": method, "papers": papers})


@require_GET
def dataset_detail(request: HttpRequest, slug: str) -> HttpResponse:
    dataset = get_object_or_404(
        Dataset.objects.select_related("introduced_by").prefetch_related("tasks"), slug=slug
    )
    papers = _paper_list(
        Paper.objects.filter(dataset_links__dataset=dataset).order_by("-published", "id")
    )
    boards = dataset.leaderboards.select_related("task").annotate(n_rows=Count("rows"))
    return render(
        request,
        "papers/dataset.html",
        {"dataset": dataset, "papers": papers, "leaderboards": boards},
    )
