"""/paper/<slug>.json carries validators: a conditional GET of an unchanged record is a 304,
and a record changed by a re-import or an edit is served again."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.models import Author, CodeLink, Paper, Repository, Sample
from tests.archive_helpers import run_import, write

pytestmark = pytest.mark.django_db

SEED = "limits-to-depth-efficiencies-of-self"


def get(client, url, **headers):
    return client.get(url, headers=headers)


def test_paper_json_answers_304_to_a_conditional_get(client, seed_record_path):
    call_command("import_archive", str(seed_record_path), verbosity=0)
    first = client.get(f"/paper/{SEED}.json")
    assert first.status_code == 200 and first["ETag"] and first["Last-Modified"]
    assert json.loads(first.content) == json.loads(seed_record_path.read_text())
    assert get(client, f"/paper/{SEED}.json", if_none_match=first["ETag"]).status_code == 304
    since = get(client, f"/paper/{SEED}.json", if_modified_since=first["Last-Modified"])
    assert since.status_code == 304
    Sample.objects.filter(paper__slug=SEED, position=0).update(status="ran_violates")
    assert get(client, f"/paper/{SEED}.json", if_none_match=first["ETag"]).status_code == 200


def test_reimporting_a_changed_report_moves_last_modified(client, tmp_path, seed_record_path):
    record = json.loads(seed_record_path.read_text())
    run_import(write(tmp_path / "a.json", [record]))
    for model in (Paper, Author, CodeLink, Repository):
        model.objects.update(updated_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    first = client.get(f"/paper/{SEED}.json")
    record["syntology"]["samples"][0]["status"] = "ran_honours"
    record["syntology"]["summary"] = {
        "ran": 9,
        "ran_violates": 1,
        "ran_honours": 2,
        "ran_draft_wrong": 4,
    }
    assert run_import(write(tmp_path / "b.json", [record]))[0] == 0
    later = get(client, f"/paper/{SEED}.json", if_modified_since=first["Last-Modified"])
    assert later.status_code == 200
    assert later.json()["syntology"]["samples"][0]["status"] == "ran_honours"


def test_a_record_is_read_in_a_fixed_number_of_queries(client, make_paper, seed_record_path):
    """Seven queries; nine with an execution report, whose samples and repositories are
    read only then."""
    call_command("import_archive", str(seed_record_path), verbosity=0)
    plain = make_paper()
    for slug, queries in ((plain.slug, 7), (SEED, 9)):
        with CaptureQueriesContext(connection) as few:
            assert client.get(f"/paper/{slug}.json").status_code == 200
        assert len(few) == queries, [q["sql"] for q in few.captured_queries]
    seed = Paper.objects.get(slug=SEED)
    for i in range(3):
        repository = Repository.objects.create(url=f"https://github.com/more/repo{i}")
        seed.code_links.create(repository=repository, position=i + 1)
        author = Author.objects.create(slug=f"more-author-{i}", name=f"More Author {i}")
        seed.authorships.create(author=author, position=10 + i)
    with CaptureQueriesContext(connection) as many:
        assert client.get(f"/paper/{SEED}.json").status_code == 200
    assert len(many) == 9
