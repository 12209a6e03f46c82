"""The API's HTTP behaviour: JSON errors, paging, validators, execution reports, and a
query count per endpoint that does not grow with the data."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from papers.api.http import MAX_ITEMS_PER_PAGE
from papers.kept.counts import refresh_paper_count
from papers.models import Paper, Sample

pytestmark = pytest.mark.django_db

SEED = "limits-to-depth-efficiencies-of-self"


@pytest.fixture
def two(make_paper) -> list[Paper]:
    """Two papers (and their related papers) in one proceeding, their tasks in one area."""
    from papers.models import Task

    papers = [
        make_paper(title="Attention one", proceeding="ICML 2020 7"),
        make_paper(title="Attention two", proceeding="ICML 2020 7"),
    ]
    Task.objects.filter(slug__startswith="task-").update(categories=["Vision"])
    return papers


def get(client, url, **headers):
    return client.get(url, headers=headers)


# (url, queries): every endpoint, with the queries it runs whatever the page size.
ENDPOINTS = [
    ("/api/v1/search/", 4),
    ("/api/v1/search/?q=attention", 4),
    ("/api/v1/papers/", 3),
    ("/api/v1/papers/?q=attention", 3),
    ("/api/v1/papers/?title=attention&abstract=", 3),
    ("/api/v1/papers/paper-1/", 2),
    ("/api/v1/papers/paper-1/repositories/", 3),
    ("/api/v1/papers/paper-1/datasets/", 3),
    ("/api/v1/papers/paper-1/tasks/", 3),
    ("/api/v1/papers/paper-1/methods/", 3),
    ("/api/v1/papers/paper-1/results/", 5),
    ("/api/v1/papers/paper-1/samples/?status=ran_honours", 4),
    ("/api/v1/repositories/", 3),
    ("/api/v1/repositories/?framework=pytorch&stars=0", 3),
    ("/api/v1/repositories/lab1", 3),
    ("/api/v1/repositories/lab1/model1/", 2),
    ("/api/v1/repositories/lab1/model1/papers/", 4),
    ("/api/v1/repositories/lab1/model1/samples/", 4),
    ("/api/v1/authors/", 2),
    ("/api/v1/authors/first-author1/", 1),
    ("/api/v1/authors/first-author1/papers/", 4),
    ("/api/v1/conferences/", 1),
    ("/api/v1/conferences/icml/", 1),
    ("/api/v1/conferences/icml/proceedings/", 1),
    ("/api/v1/conferences/icml/proceedings/icml-2020-7/", 1),
    ("/api/v1/conferences/icml/proceedings/icml-2020-7/papers/", 4),
    ("/api/v1/areas/", 1),
    ("/api/v1/areas/vision/", 1),
    ("/api/v1/areas/vision/tasks/", 2),
    ("/api/v1/tasks/", 2),
    ("/api/v1/tasks/task-1/", 1),
    ("/api/v1/tasks/task-1/parents/", 3),
    ("/api/v1/tasks/task-1/children/", 3),
    ("/api/v1/tasks/task-1/papers/", 4),
    ("/api/v1/tasks/task-1/evaluations/", 3),
    ("/api/v1/datasets/", 2),
    ("/api/v1/datasets/dataset-1/", 1),
    ("/api/v1/datasets/dataset-1/evaluations/", 3),
    ("/api/v1/methods/", 2),
    ("/api/v1/methods/method-1/", 1),
    ("/api/v1/evaluations/", 2),
    ("/api/v1/evaluations/task-1--dataset-1/", 1),
    ("/api/v1/evaluations/task-1--dataset-1/metrics/", 2),
    ("/api/v1/evaluations/task-1--dataset-1/metrics/top-1-accuracy/", 2),
    ("/api/v1/evaluations/task-1--dataset-1/results/", 6),
    ("/api/v1/evaluations/task-1--dataset-1/results/row-1/", 7),
]


def _widen(make_paper, count: int) -> None:
    """More papers in every list the endpoints above read (same proceeding, and the
    first paper's repository, author, task, method, dataset and leaderboard)."""
    from papers.models import (
        Author,
        CodeLink,
        Leaderboard,
        LeaderboardRow,
        PaperAuthor,
        PaperDataset,
        PaperMethod,
        PaperTask,
        Repository,
        Task,
    )

    first = Paper.objects.get(slug="paper-1")
    for _ in range(count):
        paper = make_paper(title="Attention more", proceeding="ICML 2020 7")
        PaperAuthor.objects.create(
            paper=paper, author=Author.objects.get(slug="first-author1"), position=9
        )
        CodeLink.objects.create(
            paper=paper, repository=Repository.objects.get(url="https://github.com/lab1/model1")
        )
        task = Task.objects.get(slug="task-1")
        PaperTask.objects.create(paper=paper, task=task)
        PaperMethod.objects.create(paper=paper, method_id=first.methods.get().id)
        PaperDataset.objects.create(paper=paper, dataset_id=first.datasets.get().id)
        LeaderboardRow.objects.create(
            leaderboard=Leaderboard.objects.get(task=task, dataset__slug="dataset-1"),
            row_key=f"more-{paper.pk}",
            paper=first,
            metrics={"Top-1 Accuracy": "50%"},
        )
        lab1 = Repository.objects.get(url="https://github.com/lab1/model1")
        Sample.objects.filter(paper=paper).update(repository=lab1)
        for sample in Sample.objects.filter(paper=paper):
            sample.pk, sample.paper, sample.position = None, first, sample.position + 10 * paper.pk
            sample.save()
    Task.objects.filter(slug__startswith="task-").update(categories=["Vision"])
    _contribute_all()


def _contribute_all() -> None:
    """Every record marked as contributed by one user: where a record comes from is read
    with it, never a query per contributed row."""
    import datetime as dt

    from django.apps import apps
    from django.contrib.auth import get_user_model

    from papers.models.base import Record

    user, _ = get_user_model().objects.get_or_create(username="contributor")
    for model in apps.get_app_config("papers").get_models():
        if issubclass(model, Record) and hasattr(model, "contributed_by"):
            model.objects.update(contributed_by=user, contributed_at=dt.datetime.now(dt.UTC))


@pytest.mark.parametrize(("url", "queries"), ENDPOINTS)
def test_query_count_is_fixed_per_endpoint(client, two, make_paper, url, queries):
    refresh_paper_count()  # as an import leaves it
    with CaptureQueriesContext(connection) as few:
        response = client.get(url)
    assert response.status_code == 200, response.content
    assert len(few) == queries, [q["sql"] for q in few.captured_queries]
    _widen(make_paper, 4)
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).status_code == 200
    assert len(many) == queries, [q["sql"] for q in many.captured_queries]


def test_every_endpoint_answers_without_its_trailing_slash(client, two):
    for url, _ in ENDPOINTS:
        path, _, query = url.partition("?")
        trimmed = path.rstrip("/") + ("?" + query if query else "")
        assert client.get(trimmed).status_code == 200, trimmed


def test_unknown_paths_and_ids_are_json_404s(client, two):
    for url in (
        "/api/v1/nothing-here/",
        "/api/v1/papers/no-such-paper/",
        "/api/v1/papers/no-such-paper/samples/",
        "/api/v1/repositories/nobody/",
        "/api/v1/evaluations/task-1--no-dataset/results/",
        "/api/v1/evaluations/task-1--dataset-1/metrics/no-metric/",
        "/api/v1/areas/no-area/tasks/",
        "/api/v1/conferences/icml/proceedings/icml-1999/",
    ):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response["Content-Type"] == "application/json"
        assert response.json()["status"] == 404


def test_a_nul_in_an_api_path_is_a_json_400(client):
    response = client.get("/api/v1/papers/%00/")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "NUL" in response.json()["error"]


def test_hidden_papers_are_not_served(client, two):
    Paper.objects.filter(slug="paper-2").update(hidden=True)
    assert client.get("/api/v1/papers/paper-2/").status_code == 404
    slugs = [p["id"] for p in client.get("/api/v1/papers/").json()["results"]]
    assert "paper-2" not in slugs and "paper-1" in slugs


@pytest.mark.parametrize(
    ("method", "url", "status"),
    [
        ("post", "/api/v1/papers/", 401),
        ("patch", "/api/v1/tasks/task-1/", 401),
        ("delete", "/api/v1/tasks/task-1/", 401),
        ("post", "/api/v1/rpc/evaluation-synchronize/", 401),
        ("put", "/api/v1/papers/", 405),
        ("post", "/api/v1/tasks/task-1/", 405),
        ("patch", "/api/v1/authors/", 405),
    ],
)
def test_anonymous_writes_are_refused_with_json(client, two, method, url, status):
    response = getattr(client, method)(url, data="{}", content_type="application/json")
    assert response.status_code == status, url
    assert response.json()["status"] == status
    assert client.get("/api/v1/tasks/task-1/").status_code == 200


@pytest.mark.parametrize(
    ("url", "parameter"),
    [
        ("/api/v1/papers/?page=0", "page"),
        ("/api/v1/papers/?page=abc", "page"),
        ("/api/v1/papers/?page=99999999999999999999999", "page"),
        ("/api/v1/papers/?items_per_page=-3", "items_per_page"),
        ("/api/v1/papers/?arxiv_id=banana", "arxiv_id"),
        ("/api/v1/papers/?title=%00", "title"),
        ("/api/v1/papers/?titel=attention", "titel"),
        ("/api/v1/papers/paper-1/?page=2", "page"),
        ("/api/v1/repositories/?stars=many", "stars"),
        ("/api/v1/repositories/?owner=" + "x" * 300, "owner"),
        ("/api/v1/papers/paper-1/samples/?status=%00", "status"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(client, two, url, parameter):
    response = client.get(url)
    assert response.status_code == 400
    body = response.json()
    assert body["parameter"] == parameter
    assert body["error"].startswith(f"{parameter}: ")


def test_pages_link_to_each_other_and_cap_their_size(client, two):
    body = client.get("/api/v1/papers/?items_per_page=1&page=2").json()
    assert body["count"] == 4
    assert [len(body["results"])] == [1]
    assert body["previous"].endswith("/api/v1/papers/?items_per_page=1&page=1")
    assert body["next"].endswith("/api/v1/papers/?items_per_page=1&page=3")
    capped = client.get(f"/api/v1/papers/?items_per_page={MAX_ITEMS_PER_PAGE * 10}").json()
    assert capped["next"] is None and len(capped["results"]) == 4
    beyond = client.get("/api/v1/papers/?page=50").json()
    assert (beyond["count"], beyond["results"], beyond["next"]) == (4, [], None)
    filtered = client.get("/api/v1/papers/?title=attention&items_per_page=1").json()
    assert "title=attention" in filtered["next"]


def test_a_search_pages_through_its_ranked_window_only(client, two, monkeypatch):
    from papers.api import lists

    both = client.get("/api/v1/papers/?q=attention").json()
    assert [p["id"] for p in both["results"]] and both["count"] == 2
    monkeypatch.setattr(lists, "SEARCH_WINDOW", 1)
    one = client.get("/api/v1/papers/?q=attention&items_per_page=1").json()
    assert (one["count"], len(one["results"]), one["next"]) == (1, 1, None)
    assert client.get("/api/v1/papers/?q=attention&page=2").json()["results"] == []


def test_a_conditional_get_of_an_unchanged_object_is_304(client, two):
    first = client.get("/api/v1/papers/paper-1/")
    assert first["ETag"] and first["Last-Modified"]
    assert 'rel="license"' in first["Link"]
    again = get(client, "/api/v1/papers/paper-1/", if_none_match=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    since = get(client, "/api/v1/papers/paper-1/", if_modified_since=first["Last-Modified"])
    assert since.status_code == 304
    Paper.objects.filter(slug="paper-1").update(title="Renamed")
    changed = get(client, "/api/v1/papers/paper-1/", if_none_match=first["ETag"])
    assert changed.status_code == 200 and changed.json()["title"] == "Renamed"


def test_a_list_has_an_etag_that_changes_with_its_content(client, two):
    first = client.get("/api/v1/papers/")
    assert get(client, "/api/v1/papers/", if_none_match=first["ETag"]).status_code == 304
    Paper.objects.filter(slug="paper-2").update(title="Renamed")
    assert get(client, "/api/v1/papers/", if_none_match=first["ETag"]).status_code == 200


def test_paper_samples_filter_like_the_site_and_carry_the_claim(client, two):
    body = client.get("/api/v1/papers/paper-1/samples/?status=timed_out").json()
    assert body["count"] == 1
    [sample] = body["results"]
    assert (sample["paper"], sample["status"], sample["entry"]) == ("paper-1", "timed_out", "main")
    assert body["summary"] == {"ran_honours": 1, "timed_out": 1}
    assert "not a correctness claim" in body["claim"]
    both = client.get("/api/v1/papers/paper-1/samples/?language=python&repo_kind=official").json()
    assert both["count"] == 2
    honours = client.get("/api/v1/papers/paper-1/samples/?contract_check=HONOURS").json()
    assert [s["status"] for s in honours["results"]] == ["ran_honours"]


def test_repository_samples_span_its_papers(client, two, make_paper):
    _widen(make_paper, 1)
    body = client.get("/api/v1/repositories/lab1/model1/samples/?status=timed_out").json()
    assert body["count"] == 3
    assert {s["paper"] for s in body["results"]} == {"paper-1", "paper-3"}
    assert body["summary"] == {"ran_honours": 3, "timed_out": 3}
    assert "not a correctness claim" in body["claim"]


def test_the_seed_report_through_the_api_matches_the_record(client, seed_record_path):
    call_command("import_archive", str(seed_record_path), verbosity=0)
    record = json.loads(seed_record_path.read_text())
    body = client.get(f"/api/v1/papers/{SEED}/samples/?items_per_page=100").json()
    assert [{k: v for k, v in s.items() if k != "paper"} for s in body["results"]] == (
        record["syntology"]["samples"]
    )
    assert body["summary"] == dict(
        sorted(record["syntology"]["summary"].items(), key=lambda kv: (-kv[1], kv[0]))
    )
    assert body["claim"] == record["syntology"]["claim"]
    api = client.get(f"/api/v1/papers/{SEED}/").json()
    assert (api["title"], api["authors"], api["proceeding"]) == (
        record["title"],
        record["authors"],
        record["proceeding"],
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.sampled_from([url.split("?")[0] for url, _ in ENDPOINTS]),
    name=st.sampled_from(
        ["page", "items_per_page", "q", "arxiv_id", "title", "stars", "status", "x", "full_name"]
    ),
    value=st.text(max_size=40) | st.integers().map(str),
)
def test_no_parameter_gives_a_500(client, two, path, name, value):
    response = client.get(path, {name: value})
    assert response.status_code in (200, 400), (path, name, value, response.content[:300])
    assert response["Content-Type"] == "application/json"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(segment=st.text(min_size=1, max_size=30).filter(lambda s: "/" not in s))
def test_no_id_gives_a_500(client, two, segment):
    from urllib.parse import quote

    for template in ("/api/v1/papers/{}/", "/api/v1/evaluations/{}/results/", "/api/v1/areas/{}/"):
        response = client.get(template.format(quote(segment)))
        assert response.status_code in (200, 400, 404), (template, segment)  # 400: a NUL


def _documented_error(response, status: int) -> dict:
    """An API error in the documented shape: JSON with the status and a message."""
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == status and body["error"] and body["message"] == body["error"]
    return body


def test_every_api_error_is_json_in_the_documented_shape(two, monkeypatch, settings):
    from django.db import OperationalError
    from django.test import Client

    from papers.api import views

    client = Client(raise_request_exception=False)
    # 400 from Django itself, before any view: a Host header the site does not serve.
    _documented_error(client.get("/api/v1/papers/", headers={"Host": "evil.example"}), 400)
    fields = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    _documented_error(client.get(f"/api/v1/papers/?{fields}"), 400)
    _documented_error(client.get("/api/v1/papers/no-such-paper/"), 404)
    refused = _documented_error(client.get("/api/v1/rpc/evaluation-synchronize/"), 405)
    assert "takes POST" in refused["error"]
    response = client.get("/api/v1/rpc/evaluation-synchronize/")
    assert response["Allow"] == "POST"
    _documented_error(client.post("/api/v1/rpc/evaluation-synchronize/"), 401)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(views, "get_paper", broken)
    _documented_error(client.get("/api/v1/papers/paper-1/"), 500)

    def outage(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(views, "get_paper", outage)
    unavailable = client.get("/api/v1/papers/paper-1/")
    _documented_error(unavailable, 503)
    assert int(unavailable["Retry-After"]) > 0
    # The site's own pages keep their HTML error pages.
    page = client.get("/paper/paper-1", headers={"Host": "evil.example"})
    assert page.status_code == 400 and "<h1>Bad request</h1>" in page.content.decode()


def test_script_urls_stored_in_the_archive_are_not_handed_out(client, make_paper):
    """The pages never link a `javascript:` or `data:` URL from a record; the API, whose
    clients may put its URLs in links of their own, leaves them out too."""
    from papers.models import Dataset, Repository

    paper = make_paper()
    Paper.objects.filter(pk=paper.pk).update(
        url_abs="javascript:alert(1)", url_pdf=" JAVASCRIPT:alert(2)"
    )
    Repository.objects.filter(url="https://github.com/lab1/model1").update(
        url="javascript:alert(3)//github.com/lab1/model1"
    )
    Dataset.objects.filter(slug="dataset-1").update(homepage="data:text/html,<script>")
    Sample.objects.filter(paper=paper).update(file_url="javascript:alert(4)")
    bodies = [
        client.get(url).content.decode()
        for url in (
            "/api/v1/papers/paper-1/",
            "/api/v1/papers/?q=attention",
            "/api/v1/papers/paper-1/repositories/",
            "/api/v1/search/?q=attention",
            "/api/v1/datasets/dataset-1/",
            "/api/v1/papers/paper-1/datasets/",
            "/api/v1/papers/paper-1/samples/",
        )
    ]
    for body in bodies:
        assert "javascript:" not in body.lower() and "data:text" not in body, body
    detail = client.get("/api/v1/papers/paper-1/").json()
    assert detail["url_abs"] == "" and detail["url_pdf"] == ""
    # Real links are served as they are.
    Paper.objects.filter(pk=paper.pk).update(url_abs="https://arxiv.org/abs/2101.00001")
    assert client.get("/api/v1/papers/paper-1/").json()["url_abs"].startswith("https://arxiv")


def test_title_and_abstract_filters_match_words_in_their_own_field(client, make_paper):
    """`title` and `abstract` are searches of that field alone (words, stemmed, through
    the full-text index), joined to `q`."""
    in_title = make_paper(title="Sparse attention for graphs", abstract="We study convolutions.")
    in_abstract = make_paper(
        title="Convolutions everywhere", abstract="Sparse attention, studied."
    )

    def slugs(query: str) -> set[str]:
        response = client.get(f"/api/v1/papers/?{query}")
        assert response.status_code == 200, response.content
        return {paper["id"] for paper in response.json()["results"]}

    assert slugs("title=attention") == {in_title.slug}
    assert slugs("abstract=attention") == {in_abstract.slug}
    assert slugs("title=ATTENTIONS") == {in_title.slug}  # stemmed, any case
    assert slugs("title=%22sparse+attention%22") == {in_title.slug}
    assert slugs("title=%22attention+sparse%22") == set()  # a phrase keeps its order
    assert slugs("title=attention&abstract=convolution") == {in_title.slug}
    assert slugs("q=convolutions&abstract=attention") == {in_abstract.slug}
    assert slugs("title=zqxjvw") == set()


def test_a_title_filter_of_only_common_words_is_a_400_naming_it(client, make_paper):
    make_paper(title="The art of the state")
    response = client.get("/api/v1/papers/?title=of+the")
    assert response.status_code == 400
    body = response.json()
    assert body["parameter"] == "title"
    assert "no words to search for" in body["error"]
