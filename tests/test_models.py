"""The data model: natural keys and constraints hold, archive values survive verbatim,
and the helpers that read the archive's loose values read them right."""

from __future__ import annotations

import datetime as dt

import pytest
from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.db import IntegrityError, transaction

from papers.kept.papers import refresh_counts
from papers.models import (
    CONTRIBUTIONS,
    JOURNALS,
    KEPT_FACTS,
    Author,
    CodeLink,
    Paper,
    PaperAuthor,
    Repository,
    Task,
    TaskEdge,
    uncertain_date,
)

MODELS = [
    m
    for m in apps.get_app_config("papers").get_models()
    if m not in (*KEPT_FACTS, *CONTRIBUTIONS, *JOURNALS)
]

pytestmark = pytest.mark.django_db


def test_duplicate_paper_slug_is_refused():
    Paper.objects.create(slug="attention", title="One")
    with pytest.raises(IntegrityError), transaction.atomic():
        Paper.objects.create(slug="attention", title="Two")


def test_a_paper_links_a_repository_once(make_paper):
    paper = make_paper()
    repository = paper.code_links.get().repository
    with pytest.raises(IntegrityError), transaction.atomic():
        CodeLink.objects.create(paper=paper, repository=repository)


def test_two_authors_cannot_share_a_position_on_a_paper(make_paper):
    paper = make_paper()
    newcomer = Author.objects.create(slug="newcomer", name="Newcomer")
    with pytest.raises(IntegrityError), transaction.atomic():
        PaperAuthor.objects.create(paper=paper, author=newcomer, position=0)


def test_a_task_cannot_be_its_own_subtask():
    task = Task.objects.create(slug="vision", name="Vision")
    with pytest.raises(IntegrityError), transaction.atomic():
        TaskEdge.objects.create(parent=task, child=task)


def test_an_unknown_sample_status_is_kept_verbatim_with_a_readable_label(make_paper):
    sample = make_paper().samples.get(position=1)
    sample.refresh_from_db()
    assert sample.status == "timed_out"
    assert sample.status_label == "Timed out"


def test_a_known_sample_status_shows_its_vocabulary_label(make_paper):
    sample = make_paper().samples.get(position=0)
    assert sample.status == "ran_honours"
    assert sample.status_label == "Ran, honours its contract"
    assert sample.contract_check_label == "Honours"
    assert sample.repo_kind_label == "Official"


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        (
            "https://github.com/facebookresearch/detectron2",
            ("github.com", "facebookresearch", "detectron2"),
        ),
        ("https://gitlab.com/group/subgroup/project", ("gitlab.com", "group/subgroup", "project")),
        ("https://github.com/owner/name.git", ("github.com", "owner", "name")),
        ("https://github.com/owner/name/", ("github.com", "owner", "name")),
        ("https://GitHub.com/Owner/Name", ("github.com", "Owner", "Name")),
    ],
)
def test_repository_parts_from_url(url, parts):
    assert Repository.parts_from_url(url) == parts


def test_saving_a_repository_fills_its_parts_from_the_url():
    repository = Repository.objects.create(url="https://gitlab.com/group/subgroup/project.git")
    assert (repository.host, repository.owner, repository.name) == (
        "gitlab.com",
        "group/subgroup",
        "project",
    )


def test_refresh_counts_follows_links_and_samples(make_paper):
    paper = make_paper()
    Paper.objects.filter(pk=paper.pk).update(
        code_link_count=0, has_official_code=False, sample_count=0
    )
    Paper.objects.filter(pk=paper.pk).update(frameworks={}, sample_statuses={"ran": 9})
    assert refresh_counts([paper.pk]) == 1
    paper.refresh_from_db()
    assert (paper.code_link_count, paper.has_official_code, paper.sample_count) == (1, True, 2)
    assert paper.frameworks == {"pytorch": 1}
    assert paper.sample_statuses == {"ran_honours": 1, "timed_out": 1}
    assert refresh_counts([paper.pk]) == 0  # nothing changed

    paper.code_links.all().delete()
    paper.samples.all().delete()
    refresh_counts([paper.pk])
    paper.refresh_from_db()
    assert (paper.code_link_count, paper.has_official_code, paper.sample_count) == (0, False, 0)
    assert (paper.frameworks, paper.sample_statuses) == ({}, {})


def test_refresh_counts_counts_each_framework_and_status_and_keeps_odd_values(make_paper):
    from papers.models import CodeLink, Repository, Sample

    paper = make_paper()
    for i, framework in enumerate(["pytorch", "", 'we"ird.fw', "pytorch"]):
        repository = Repository.objects.create(url=f"https://github.com/more/r{i}")
        CodeLink.objects.create(paper=paper, repository=repository, framework=framework)
    Sample.objects.create(paper=paper, position=2, repo="x/y", status='new "status"')
    refresh_counts([paper.pk])
    paper.refresh_from_db()
    assert paper.code_link_count == 5
    assert paper.frameworks == {"pytorch": 3, 'we"ird.fw': 1}  # no framework: not counted
    assert paper.sample_statuses == {"ran_honours": 1, "timed_out": 1, 'new "status"': 1}


def test_refresh_counts_sees_an_unofficial_link_as_code_but_not_official(make_paper):
    paper = make_paper()
    paper.code_links.update(is_official=False)
    refresh_counts([paper.pk])
    paper.refresh_from_db()
    assert (paper.code_link_count, paper.has_official_code) == (1, False)


def test_uncertain_dates():
    snapshot = dt.date.fromisoformat(settings.ARCHIVE_SNAPSHOT)
    assert uncertain_date(dt.date(1850, 1, 1))
    assert uncertain_date(snapshot + dt.timedelta(days=1))
    assert not uncertain_date(snapshot)
    assert not uncertain_date(dt.date(2020, 6, 22))
    assert not uncertain_date(None)


@pytest.mark.parametrize("model", MODELS, ids=[m.__name__ for m in MODELS])
def test_natural_key_round_trip(make_paper, model):
    make_paper()
    obj = model._default_manager.order_by("pk").first()
    key = obj.natural_key()
    assert model._default_manager.get_by_natural_key(*key) == obj
    # As loaddata reads a fixture dumped with natural keys: the row is found, not duplicated.
    dumped = serializers.serialize(
        "json", [obj], use_natural_foreign_keys=True, use_natural_primary_keys=True
    )
    (loaded,) = serializers.deserialize("json", dumped)
    assert loaded.object.pk == obj.pk


def test_the_newest_papers_with_code_are_read_down_the_newest_index_on_sqlite(db):
    """SQLite's planner answers `code_link_count > 0` from paper_codecount_idx when it
    can (every paper with code, then sorted: seconds at full scale); the term is written
    so that no index serves it, and the list is the same one either way."""
    from django.db import connection

    papers = [
        Paper.objects.create(
            slug=f"p{i}", title=f"P{i}", published=dt.date(2020, 1 + i, 1),
            code_link_count=1 + i % 2 if i in (1, 2) else 0,
        )
        for i in range(4)
    ]  # fmt: skip
    newest = Paper.objects.newest_with_code()
    assert list(newest) == list(Paper.objects.latest().with_code()) == [papers[2], papers[1]]
    sql = str(newest.query)
    assert ('+"papers_paper"."code_link_count" >' in sql) == (connection.vendor == "sqlite")


def test_a_few_linked_papers_are_read_by_their_ids_first(db):
    """An author's papers (fewer than querysets.DENSE) are read from the links and
    sorted: on PostgreSQL the ids are read first, so that its planner cannot walk the
    newest-first index over the whole archive looking for them."""
    from django.db import connection

    from papers import querysets
    from papers.models import PaperAuthor

    author = Author.objects.create(slug="ada", name="Ada")
    papers = [Paper.objects.create(slug=f"p{i}", title=f"P{i}") for i in range(3)]
    for position, paper in enumerate(papers[:2]):
        PaperAuthor.objects.create(paper=paper, author=author, position=position)
    linked = querysets.linked_papers(PaperAuthor.objects.filter(author=author), 0)
    assert sorted(linked.values_list("slug", flat=True)) == ["p0", "p1"]
    assert ("= ANY(ARRAY(SELECT" in str(linked.query)) == (connection.vendor == "postgresql")
