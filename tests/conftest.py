"""Shared fixtures. The suite runs on whichever engine DATABASE_URL names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.db import connection

# Session fixtures of the production tests (collected static files, a migrated database).
from tests.servers import (  # noqa: F401
    collected_static,
    migrated_sqlite,
    private_cluster,
    private_redis,
    private_replica,
    small_archive,
)

REALDATA = Path(__file__).resolve().parent.parent.parent / "shared" / "realdata"
SEEDS = Path(__file__).resolve().parent.parent.parent / "shared" / "seeds"
SEED_RECORD = SEEDS / "000_4232d225b0289023.txt"


def pytest_report_header(config):
    from django.conf import settings

    db = settings.DATABASES["default"]
    return f"database: {db['ENGINE'].rsplit('.', 1)[-1]} {db.get('HOST') or ''} {db['NAME']}"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Fail loudly (not skip) when the configured database cannot be reached."""
    with django_db_blocker.unblock():
        connection.ensure_connection()


def pytest_sessionstart(session):
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("postgresql"):
        import psycopg

        try:
            psycopg.connect(
                dbname=db["NAME"],
                user=db["USER"],
                password=db["PASSWORD"],
                host=db["HOST"],
                port=db["PORT"] or None,
                connect_timeout=3,
            ).close()
        except psycopg.OperationalError as exc:
            pytest.exit(
                f"DATABASE_URL names PostgreSQL at {db['HOST']}:{db['PORT']}, "
                f"which cannot be reached: {exc}",
                returncode=3,
            )


# Session fixtures that start a process: a test using one is marked `servers`.
SERVER_FIXTURES = {
    "collected_static",
    "migrated_sqlite",
    "private_cluster",
    "private_redis",
    "private_replica",
    "small_archive",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SERVER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.servers)


@pytest.fixture(scope="session")
def browser_type_launch_args():
    """pytest-playwright launches the system Chromium (tests/browser.py)."""
    from tests.browser import LAUNCH_ARGS

    return LAUNCH_ARGS


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def page_js(request, browser):
    """A page with JavaScript on, then off: a flow must work both ways
    (`page.js` says which)."""
    context = browser.new_context(java_script_enabled=request.param)
    page = context.new_page()
    page.js = request.param
    yield page
    context.close()


def realdata(path: str) -> Path:
    """A file under ../shared/realdata; the test is skipped where the folder is absent
    (a fresh clone), but never in CI, where shared/ is always laid beside the checkout."""
    full = REALDATA / path
    if not full.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{full} is missing in CI")
        pytest.skip(f"{full} not present")
    return full


@pytest.fixture
def seed_record_path() -> Path:
    if not SEED_RECORD.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{SEED_RECORD} is missing in CI")
        pytest.skip(f"{SEED_RECORD} not present")
    return SEED_RECORD


@pytest.fixture
def seed_paper(db):
    """The seed record as fixtures/seed.json holds it (tests/archive/test_fixtures.py keeps the
    fixture equal to importing the record), with the browse counts an import leaves: the
    page guards need no file outside the repository."""
    from django.core.management import call_command

    from papers.kept import refresh_all as refresh_browse_counts
    from papers.models import Paper

    call_command("loaddata", "seed", verbosity=0)
    refresh_browse_counts()
    return Paper.objects.get(slug="limits-to-depth-efficiencies-of-self")


@pytest.fixture
def make_paper(db):
    """A factory: each call builds one paper with the graph around it, all rows new.

    The paper has two authors, a repository linked as official code and read by the
    report, two samples (one with a status the vocabulary does not know, "timed_out"),
    a task with a subtask, a method in a collection, a dataset, a leaderboard with a
    sub-leaderboard, a metric and a row, and a related paper (a second Paper row).
    Counts are refreshed, as an import leaves them.
    """
    import datetime as dt
    import itertools

    from papers.kept.papers import refresh_counts
    from papers.models import (
        Author,
        CodeLink,
        Collection,
        Dataset,
        Leaderboard,
        LeaderboardMetric,
        LeaderboardRow,
        Method,
        Paper,
        PaperAuthor,
        PaperDataset,
        PaperMethod,
        PaperTask,
        RelatedPaper,
        ReportRepository,
        Repository,
        Sample,
        Task,
        TaskEdge,
    )

    counter = itertools.count(1)

    def make(
        *,
        title: str | None = None,
        arxiv_id: str | None = None,
        authors: list[str] | None = None,
        published: dt.date | None = dt.date(2020, 6, 22),
        **fields,
    ) -> Paper:
        i = next(counter)
        paper = Paper.objects.create(
            slug=f"paper-{i}",
            title=title or f"Paper {i} about attention",
            arxiv_id=arxiv_id or f"2101.{i:05d}",
            published=published,
            **fields,
        )
        for position, name in enumerate(authors or [f"First Author{i}", f"Second Author{i}"]):
            author, _ = Author.objects.get_or_create(
                slug=Author.slug_for(name), defaults={"name": name}
            )
            PaperAuthor.objects.create(paper=paper, author=author, position=position)
        paper.refresh_author_names()

        repository = Repository.objects.create(url=f"https://github.com/lab{i}/model{i}")
        CodeLink.objects.create(
            paper=paper, repository=repository, is_official=True, framework="pytorch"
        )
        ReportRepository.objects.create(paper=paper, repository=repository, provenance="official")
        common = {"paper": paper, "repository": repository, "repo": f"lab{i}/model{i}"}
        Sample.objects.create(
            **common,
            position=0,
            path="model.py",
            entry="forward",
            language="python",
            repo_kind="official",
            status="ran_honours",
            contract_check="HONOURS",
        )
        Sample.objects.create(
            **common,
            position=1,
            path="train.py",
            entry="main",
            language="python",
            repo_kind="official",
            status="timed_out",
        )

        task = Task.objects.create(slug=f"task-{i}", name=f"Task {i}")
        subtask = Task.objects.create(slug=f"subtask-{i}", name=f"Subtask {i}")
        TaskEdge.objects.create(parent=task, child=subtask)
        collection = Collection.objects.create(slug=f"collection-{i}", name=f"Collection {i}")
        method = Method.objects.create(slug=f"method-{i}", name=f"Method {i}", introduced_by=paper)
        method.collections.add(collection)
        dataset = Dataset.objects.create(
            slug=f"dataset-{i}", name=f"Dataset {i}", introduced_by=paper
        )
        dataset.tasks.add(task)
        split = Dataset.objects.create(slug=f"dataset-{i}-test", name=f"Dataset {i} test")
        PaperTask.objects.create(paper=paper, task=task)
        PaperMethod.objects.create(paper=paper, method=method)
        PaperDataset.objects.create(paper=paper, dataset=dataset)

        board = Leaderboard.objects.create(task=task, dataset=dataset)
        Leaderboard.objects.create(task=task, dataset=split, parent=board)
        LeaderboardMetric.objects.create(leaderboard=board, name="Top-1 Accuracy")
        LeaderboardRow.objects.create(
            leaderboard=board,
            row_key=f"row-{i}",
            model_name=f"Model {i}",
            paper=paper,
            metrics={"Top-1 Accuracy": "89.09%"},
        )

        related = Paper.objects.create(slug=f"related-{i}", title=f"Related paper {i}")
        RelatedPaper.objects.create(paper=paper, related=related, score=0.9, rank=0)

        refresh_counts([paper.pk, related.pk])
        paper.refresh_from_db()
        return paper

    return make


@pytest.fixture
def graph(make_paper):
    """Two papers at one venue on the fixture's tasks, which sit in an area: every API
    endpoint and MCP tool then has something to list."""
    from papers.models import Task

    papers = [
        make_paper(title="Attention one", proceeding="ICML 2020 7"),
        make_paper(title="Attention two", proceeding="ICML 2020 7"),
    ]
    Task.objects.filter(slug__startswith="task-").update(categories=["Vision"])
    return papers
