"""The number of shown papers the unfiltered lists and the home page give is kept
(papers.kept.counts) and is always the number a count of the table gives: after an
import, after papers are added, hidden, shown again or deleted through the ORM, the API
or a harvest, and when a write could not tell what it changed."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from papers.contributions.tokens import issue
from papers.kept import after_write, refresh_all
from papers.kept.counts import NAME, archive_counts, paper_count
from papers.models import KeptFact, Paper

pytestmark = pytest.mark.django_db


def _kept() -> int | None:
    return KeptFact.objects.filter(name=NAME).values_list("number", flat=True).first()


def _assert_exact() -> None:
    assert paper_count() == Paper.objects.visible().count()


def _api_count(client: Client) -> int:
    return json.loads(client.get("/api/v1/papers/").content)["count"]


def test_an_import_keeps_the_count_and_the_list_gives_it_without_counting(
    make_paper, django_assert_num_queries
):
    for _ in range(3):
        make_paper()
    Paper.objects.filter(slug="paper-2").update(hidden=True)  # bulk: no signal
    refresh_all()
    shown = Paper.objects.visible().count()
    assert _kept() == shown
    client = Client()
    assert _api_count(client) == shown
    # The kept number is one indexed read; no COUNT over the papers table.
    with django_assert_num_queries(3) as queries:
        client.get("/api/v1/papers/")
    assert not any('COUNT(*)' in q["sql"] and '"papers_paper"' in q["sql"]
                   for q in queries.captured_queries)  # fmt: skip


def test_papers_added_hidden_shown_and_deleted_move_the_kept_count(make_paper):
    first = make_paper()
    refresh_all()
    start = _kept()
    second = Paper.objects.create(slug="second", title="Second")
    assert _kept() == start + 1
    second.hidden = True
    second.save()
    assert _kept() == start
    second.save()  # saved again unchanged: no move
    assert _kept() == start
    second.hidden = False
    second.save(update_fields=["hidden"])
    assert _kept() == start + 1
    first.title = "Retitled"
    first.save(update_fields=["title"])
    partial = Paper.objects.only("id", "title").get(pk=second.pk)  # `hidden` not loaded
    partial.title = "Renamed"
    partial.save()
    assert _kept() == start + 1
    # Built by hand, not read: what the row held before is what counts.
    Paper(pk=second.pk, slug="second", title="Second", hidden=True).save()
    assert _kept() == start
    Paper(pk=second.pk, slug="second", title="Second", hidden=True).save()
    assert _kept() == start
    Paper.objects.filter(pk=first.pk).delete()
    assert _kept() == start - 1
    Paper.objects.get(pk=second.pk).delete()  # hidden: no move
    assert _kept() == start - 1
    _assert_exact()


def test_without_a_kept_count_the_list_counts_and_the_next_write_keeps_one(make_paper):
    paper = make_paper()
    KeptFact.objects.filter(name=NAME).delete()
    _assert_exact()
    after_write(papers=[paper.pk])
    assert _kept() == Paper.objects.visible().count()


def test_papers_added_through_the_api_are_counted(make_paper):
    make_paper()
    refresh_all()
    before = _kept()
    user = get_user_model().objects.create_user("staffer", is_staff=True)
    _, key = issue(user, "staff")
    writer = Client(headers={"Authorization": f"Token {key}"})
    answer = writer.post(
        "/api/v1/papers/",
        {"arxiv_id": "2401.00001", "title": "New"},
        content_type="application/json",
    )
    assert answer.status_code == 201, answer.content
    assert _kept() == before + 1
    assert _api_count(Client()) == Paper.objects.visible().count() == _kept()


def _archive_exact() -> None:
    from papers.models import Repository, Sample

    assert archive_counts() == {
        "repositories": Repository.objects.count(),
        "statuses": Sample.objects.status_counts(),
    }


def test_the_home_pages_repository_and_status_counts_are_kept_and_follow_writes(
    make_paper, seed_record_path
):
    """The home page reads the repositories and samples by status as kept (no count of
    either table per request), and a write that adds samples or code moves them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    make_paper()
    refresh_all()
    _archive_exact()
    with CaptureQueriesContext(connection) as captured:
        assert Client().get("/").status_code == 200
    assert not any(
        'FROM "papers_sample"' in q["sql"] or 'FROM "papers_repository"' in q["sql"]
        for q in captured.captured_queries
    ), captured.captured_queries
    user = get_user_model().objects.create(username="pusher")
    _, key = issue(user, "trusted", "test")
    record = json.loads(seed_record_path.read_text())
    response = Client(headers={"Authorization": f"Token {key}"}).post(
        "/api/v1/records/", record, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    assert sum(archive_counts()["statuses"].values()) >= len(record["syntology"]["samples"])
    _archive_exact()
