"""Pages. Thin views: querying lives in querysets, formatting in templates."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from papers.models import Author, Dataset, Method, Paper, Repository, Sample, Task


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "papers/home.html",
        {
            "paper_count": Paper.objects.visible().count(),
            "repository_count": Repository.objects.count(),
            "status_counts": Sample.objects.status_counts(),
            "latest": Paper.objects.latest()[:10],
        },
    )


@require_GET
def paper_detail(request: HttpRequest, slug: str) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.visible(), slug=slug)
    return render(request, "papers/paper.html", {"paper": paper})


@require_GET
def author_detail(request: HttpRequest, slug: str) -> HttpResponse:
    author = get_object_or_404(Author, slug=slug)
    return render(request, "papers/author.html", {"author": author})


@require_GET
def repository_detail(request: HttpRequest, host: str, owner: str, name: str) -> HttpResponse:
    repository = get_object_or_404(Repository, host=host, owner=owner, name=name)
    return render(request, "papers/repository.html", {"repository": repository})


@require_GET
def task_detail(request: HttpRequest, slug: str) -> HttpResponse:
    task = get_object_or_404(Task, slug=slug)
    return render(request, "papers/task.html", {"task": task})


@require_GET
def method_detail(request: HttpRequest, slug: str) -> HttpResponse:
    method = get_object_or_404(Method, slug=slug)
    return render(request, "papers/method.html", {"method": method})


@require_GET
def dataset_detail(request: HttpRequest, slug: str) -> HttpResponse:
    dataset = get_object_or_404(Dataset, slug=slug)
    return render(request, "papers/dataset.html", {"dataset": dataset})
