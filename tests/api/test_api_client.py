"""Scripts written against the original API work here: every read method of the real
paperswithcode-client 0.3.1, against a live server, parses into its models and says
what the database holds."""

from __future__ import annotations

import datetime as dt

import pytest
from paperswithcode import PapersWithCodeClient
from paperswithcode.models import EvaluationTableSyncRequest, TaskCreateRequest
from tea_client.errors import HttpClientError

from papers.models import (
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    Repository,
    Task,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client(live_server) -> PapersWithCodeClient:
    return PapersWithCodeClient(url=live_server.url)


@pytest.fixture
def papers(make_paper) -> list[Paper]:
    """Three papers with their whole graph; two in a proceeding, one never published."""
    first = make_paper(title="Attention for graphs", proceeding="NeurIPS 2020 12")
    second = make_paper(
        title="Sparse attention", proceeding="NeurIPS 2021 12", conference="neurips-2021-12"
    )
    third = make_paper(title="Undated work", published=None, arxiv_id="2201.00001")
    Task.objects.filter(slug="task-1").update(categories=["Computer Vision"])
    Task.objects.filter(slug="task-2").update(categories=["Computer Vision", "Medical"])
    return [first, second, third]


def authors_of(paper: Paper) -> list[str]:
    return [a.name or a.author.name for a in paper.authorships.order_by("position")]


def expected_paper(paper: Paper) -> dict:
    paper.refresh_from_db()
    return {
        "id": paper.slug,
        "arxiv_id": paper.arxiv_id,
        "nips_id": paper.nips_id or None,
        "url_abs": paper.url_abs,
        "url_pdf": paper.url_pdf,
        "title": paper.title,
        "abstract": paper.abstract,
        "authors": authors_of(paper),
        "published": paper.published,
        "conference": paper.conference or None,
        "conference_url_abs": None,
        "conference_url_pdf": None,
        "proceeding": paper.proceeding or None,
    }


def test_paper_list_and_detail_parse_into_the_database_values(client, papers):
    page = client.paper_list(items_per_page=2)
    assert page.count == Paper.objects.count() == 6  # three papers and their related papers
    assert (page.next_page, page.previous_page) == (2, None)
    second = client.paper_list(page=2, items_per_page=2)
    assert second.previous_page == 1
    for paper in papers:
        assert client.paper_get(paper.slug).dict() == expected_paper(paper)
    newest_first = [p.id for p in client.paper_list(items_per_page=50).results]
    assert newest_first.index(papers[1].slug) < newest_first.index(papers[0].slug)


def test_paper_filters_search_arxiv_title_and_abstract(client, papers):
    found = client.paper_list(q="sparse attention")
    assert [p.id for p in found.results] == [papers[1].slug]
    assert [p.id for p in client.paper_list(arxiv_id="arXiv:2201.00001v2").results] == [
        papers[2].slug
    ]
    assert {p.id for p in client.paper_list(title="ATTENTION").results} == {
        papers[0].slug,
        papers[1].slug,
    }
    Paper.objects.filter(pk=papers[2].pk).update(abstract="We study undated things.")
    assert [p.id for p in client.paper_list(abstract="undated thing").results] == [papers[2].slug]


def test_search_pairs_each_paper_with_its_official_repository(client, papers):
    page = client.search(q="attention")
    assert {r.paper.id for r in page.results} == {papers[0].slug, papers[1].slug}
    for result in page.results:
        link = Paper.objects.get(slug=result.paper.id).code_links.get()
        assert result.is_official is link.is_official is True
        assert result.repository.url == link.repository.url
        assert result.repository.framework == link.framework


def test_paper_sub_lists_hold_the_papers_rows(client, papers):
    paper = papers[0]
    repos = client.paper_repository_list(paper.slug)
    link = paper.code_links.get()
    assert [r.dict() for r in repos.results] == [
        {
            "url": link.repository.url,
            "owner": link.repository.owner,
            "name": link.repository.name,
            "description": "",
            "stars": 0,
            "framework": "pytorch",
            "is_official": True,
        }
    ]
    assert [t.id for t in client.paper_task_list(paper.slug).results] == ["task-1"]
    methods = client.paper_method_list(paper.slug).results
    assert [(m.id, m.name, m.paper) for m in methods] == [("method-1", "Method 1", paper.slug)]
    datasets = client.paper_dataset_list(paper.slug).results
    assert [(d.id, d.name, d.full_name, d.url) for d in datasets] == [
        ("dataset-1", "Dataset 1", None, None)
    ]
    [result] = client.paper_result_list(paper.slug).results
    row = LeaderboardRow.objects.get(paper=paper)
    assert (result.id, result.metrics, result.methodology, result.paper) == (
        row.row_key,
        {"Top-1 Accuracy": "89.09%"},
        "Model 1",
        paper.slug,
    )
    assert (result.best_rank, result.best_metric) == (1, "Top-1 Accuracy")


def test_repositories_by_list_owner_and_name(client, papers):
    repository = Repository.objects.get(url="https://github.com/lab2/model2")
    listed = client.repository_list(owner="lab2")
    assert [r.url for r in listed.results] == [repository.url]
    assert listed.results[0].is_official is None  # only known per paper
    assert client.repository_list(framework="pytorch").count == 3
    assert client.repository_list(framework="jax").count == 0
    assert client.repository_list(q="model3").results[0].name == "model3"
    assert [r.name for r in client.repository_owner_list("lab2").results] == ["model2"]
    got = client.repository_get("lab2", "model2")
    assert (got.url, got.owner, got.name, got.framework) == (
        repository.url,
        "lab2",
        "model2",
        "pytorch",
    )
    assert [p.id for p in client.repository_paper_list("lab2", "model2").results] == [
        papers[1].slug
    ]


def test_authors_and_their_papers(client, papers):
    page = client.author_list(full_name="author2")
    assert sorted(a.full_name for a in page.results) == ["First Author2", "Second Author2"]
    assert client.author_get("first-author2").full_name == "First Author2"
    assert [p.id for p in client.author_paper_list("first-author2").results] == [papers[1].slug]


def test_conferences_and_proceedings_come_from_the_papers_proceeding(client, papers):
    assert [c.dict() for c in client.conference_list().results] == [
        {"id": "neurips", "name": "NeurIPS"}
    ]
    assert client.conference_get("neurips").name == "NeurIPS"
    proceedings = client.proceeding_list("neurips").results
    assert [p.dict() for p in proceedings] == [
        {"id": "neurips-2020-12", "year": 2020, "month": 12},
        {"id": "neurips-2021-12", "year": 2021, "month": 12},
    ]
    assert client.proceeding_get("neurips", "neurips-2021-12").year == 2021
    found = client.proceeding_paper_list("neurips", "neurips-2020-12")
    assert [p.id for p in found.results] == [papers[0].slug]
    assert found.results[0].proceeding == "NeurIPS 2020 12"


def test_areas_tasks_and_their_graph(client, papers):
    assert [a.dict() for a in client.area_list().results] == [
        {"id": "computer-vision", "name": "Computer Vision"},
        {"id": "medical", "name": "Medical"},
    ]
    assert client.area_get("medical").name == "Medical"
    assert [t.id for t in client.area_task_list("computer-vision").results] == [
        "task-1",
        "task-2",
    ]
    assert client.task_list(name="subtask").count == 3
    task = Task.objects.get(slug="task-1")
    assert client.task_get("task-1").dict() == {
        "id": "task-1",
        "name": task.name,
        "description": task.description,
    }
    assert [t.id for t in client.task_child_list("task-1").results] == ["subtask-1"]
    assert [t.id for t in client.task_parent_list("subtask-1").results] == ["task-1"]
    assert [p.id for p in client.task_paper_list("task-1").results] == [papers[0].slug]
    assert [e.id for e in client.task_evaluation_list("task-1").results] == [
        "task-1--dataset-1",
        "task-1--dataset-1-test",
    ]


def test_datasets_and_methods(client, papers):
    Dataset.objects.filter(slug="dataset-2").update(
        full_name="The Second Dataset", homepage="https://example.org/d2"
    )
    assert client.dataset_list(name="dataset 2").results[0].dict() == {
        "id": "dataset-2",
        "name": "Dataset 2",
        "full_name": "The Second Dataset",
        "url": "https://example.org/d2",
    }
    assert client.dataset_list(q="second").count == 1
    assert client.dataset_get("dataset-2").url == "https://example.org/d2"
    assert [e.id for e in client.dataset_evaluation_list("dataset-2").results] == [
        "task-2--dataset-2"
    ]
    Method.objects.filter(slug="method-3").update(full_name="Third Method", description="Ok.")
    assert client.method_list(full_name="third").results[0].dict() == {
        "id": "method-3",
        "name": "Method 3",
        "full_name": "Third Method",
        "description": "Ok.",
        "paper": papers[2].slug,
    }
    assert client.method_get("method-3").paper == papers[2].slug


def test_evaluation_tables_metrics_and_results(client, papers):
    board = Leaderboard.objects.get(task__slug="task-1", dataset__slug="dataset-1")
    LeaderboardMetric.objects.create(leaderboard=board, name="Error rate", position=1)
    better = LeaderboardRow(
        leaderboard=board,
        row_key="better",
        position=1,
        model_name="Better",
        metrics={"Top-1 Accuracy": "91.5", "Error rate": 8.5},
        paper_date="2021-03-01",
    )
    better.save()
    assert client.evaluation_list(items_per_page=50).count == Leaderboard.objects.count()
    table = client.evaluation_get("task-1--dataset-1")
    assert (table.task, table.dataset, table.description) == ("task-1", "dataset-1", "")
    metrics = client.evaluation_metric_list("task-1--dataset-1").results
    assert [(m.id, m.name, m.is_loss) for m in metrics] == [
        ("top-1-accuracy", "Top-1 Accuracy", False),
        ("error-rate", "Error rate", True),
    ]
    assert client.evaluation_metric_get("task-1--dataset-1", "error-rate").is_loss is True
    results = client.evaluation_result_list("task-1--dataset-1").results
    assert [(r.id, r.best_rank, r.evaluated_on, r.paper) for r in results] == [
        ("better", 1, "2021-03-01", None),
        ("row-1", 2, None, papers[0].slug),
    ]
    got = client.evaluation_result_get("task-1--dataset-1", "better")
    assert got.metrics == {"Top-1 Accuracy": "91.5", "Error rate": 8.5}
    assert got.uses_additional_data is False


def test_unknown_ids_are_not_found(client, papers):
    for call in (
        lambda: client.paper_get("no-such-paper"),
        lambda: client.repository_get("nobody", "nothing"),
        lambda: client.author_get("nobody"),
        lambda: client.task_get("no-task"),
        lambda: client.evaluation_get("no-separator"),
        lambda: client.evaluation_result_get("task-1--dataset-1", "no-row"),
        lambda: client.conference_get("no-conference"),
    ):
        with pytest.raises(HttpClientError) as caught:
            call()
        assert caught.value.status_code == 404


def test_writes_without_a_token_are_refused_and_change_nothing(client, papers):
    before = Task.objects.count()
    for call in (
        lambda: client.task_add(TaskCreateRequest(name="New task")),
        lambda: client.task_delete("task-1"),
        lambda: client.dataset_delete("dataset-1"),
        lambda: client.evaluation_delete("task-1--dataset-1"),
        lambda: client.evaluation_synchronize(
            EvaluationTableSyncRequest(task="task-1", dataset="dataset-1")
        ),
    ):
        with pytest.raises(HttpClientError) as caught:
            call()
        assert caught.value.status_code == 401
    assert Task.objects.count() == before


def test_a_bad_parameter_is_named_in_the_error(client, papers):
    with pytest.raises(HttpClientError) as caught:
        client.paper_list(arxiv_id="not an id")
    assert caught.value.status_code == 400
    assert "arxiv_id" in str(caught.value)


def test_published_dates_parse_as_dates(client, papers):
    assert client.paper_get(papers[0].slug).published == dt.date(2020, 6, 22)
    assert client.paper_get(papers[2].slug).published is None


def test_execution_objects_leave_every_parsed_response_whole(client, papers):
    """Papers and results carry an extra `execution` object; the client parses every
    response it reads them in, and says what it said before."""
    reported = papers[0]
    Paper.objects.filter(pk=reported.pk).update(
        has_report=True, report_read_at=dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    )
    assert client.paper_get(reported.slug).title == reported.title
    assert {p.id for p in client.paper_list(items_per_page=50).results} >= {reported.slug}
    table = f"{reported.tasks.first().slug}--{reported.datasets.first().slug}"
    results = client.evaluation_result_list(table).results
    assert [r.paper for r in results] == [reported.slug]
    assert client.search(q="attention").count >= 1
