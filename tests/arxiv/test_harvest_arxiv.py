"""manage.py harvest_arxiv against a local stand-in for arXiv (tests/arxiv/fake_arxiv.py)
that serves real recorded pages and injects the faults arXiv's servers show."""

from __future__ import annotations

import datetime as dt
import io
import logging

import pytest
from django.core.management import call_command

from papers.archive.write.loader import Loader
from papers.arxiv import harvest
from papers.models import CodeLink, Harvest, Paper
from tests.arxiv.fake_arxiv import FakeArxiv, atom_error, atom_pages, nock_exchanges, oai_pages

RAW_IDS = {"0704.0471", "0704.0716", "0704.0874", "0704.1109", "0704.1114", "0704.1586"}

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch, settings):
    """The polite delay off, and every wait recorded instead of slept."""
    settings.ARXIV_POLITE_DELAY_MS = 0
    waits: list[float] = []
    monkeypatch.setattr(harvest, "sleep", waits.append)
    return waits


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("harvest_arxiv", *args, stdout=out, stderr=err)
        status = 0
    except SystemExit as exc:
        status = exc.code
    return status, out.getvalue(), err.getvalue()


def oai(fake: FakeArxiv, *args):
    return run("--set", "physics", "--base-url", fake.url, "--from", "2014-10-01", *args)


def arxiv_ids() -> list[str]:
    return sorted(Paper.objects.values_list("arxiv_id", flat=True))


def test_harvest_follows_the_tokens_to_the_end_through_503_dropped_and_malformed_pages(
    no_waiting,
):
    faults = [("first", "503"), ("t1", "drop"), ("t2", "malformed")]
    with FakeArxiv(oai_pages(), faults) as fake:
        status, out, err = oai(fake)
    assert status == 0, err
    assert set(arxiv_ids()) == RAW_IDS and len(arxiv_ids()) == 6
    assert 10.0 in no_waiting  # Retry-After honoured
    assert "asking again in 10 s" in err
    assert "retry 1 of 5" in err
    assert "6 records from 3 page(s)" in out
    assert "resumptionToken=t2" in fake.requests[-1]
    journal = Harvest.objects.get()
    assert (journal.outcome, journal.position, journal.token) == ("ok", 6, "")
    paper = Paper.objects.get(arxiv_id="0704.0471")
    assert paper.published == dt.date(2007, 4, 3)
    assert paper.arxiv_metadata["doi"] == "10.1103/PhysRevC.76.024606 10.1103/PhysRevC.76.039902"
    assert paper.author_names == "D.V. Shetty, S.J. Yennello, G.A. Souliotis"


def test_harvest_again_changes_nothing_and_starts_where_the_last_one_ended():
    with FakeArxiv(oai_pages()) as fake:
        assert oai(fake, "--until", "2014-10-05")[0] == 0
        status, out, err = run("--set", "physics", "--base-url", fake.url)
    assert status == 0, err
    assert "Nothing changed" in out
    assert "from=2014-10-05" in fake.requests[-3]
    assert len(arxiv_ids()) == 6


def test_refused_resumption_token_restarts_the_list_without_duplicates():
    with FakeArxiv(oai_pages(), [("t2", "bad-token")]) as fake:
        status, _out, err = oai(fake)
    assert status == 0, err
    assert "refused the resumption token" in err
    assert len(arxiv_ids()) == 6 == len(set(arxiv_ids()))
    assert Harvest.objects.get().position == 6


def test_killed_harvest_resumes_from_its_token_losing_and_duplicating_nothing(monkeypatch):
    real_write = Loader.write_batch
    calls = []

    def dies_on_second_page(self, kind, batch):
        calls.append(len(batch))
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process killed mid-page
        return real_write(self, kind, batch)

    with FakeArxiv(oai_pages()) as fake:
        monkeypatch.setattr(Loader, "write_batch", dies_on_second_page)
        with pytest.raises(KeyboardInterrupt):
            oai(fake)
        journal = Harvest.objects.get()
        assert (journal.outcome, journal.token, journal.position) == ("running", "t1", 3)
        assert len(arxiv_ids()) == 3
        monkeypatch.setattr(Loader, "write_batch", real_write)
        status, _out, err = run("--set", "physics", "--base-url", fake.url)
    assert status == 0, err
    assert "Resuming the unfinished harvest" in err
    assert "resumptionToken=t1" in fake.requests[-2]
    assert len(arxiv_ids()) == 6 == len(set(arxiv_ids()))
    assert Harvest.objects.count() == 1
    assert Harvest.objects.get().outcome == "ok"


def test_server_down_fails_the_harvest_which_the_next_run_resumes(caplog):
    with FakeArxiv(oai_pages(), [("t1", "down")]) as fake:
        status, out, err = oai(fake)
        assert status == 2
        assert "gave up after 5 retries" in err
        assert "NOT FINISHED" in out
        journal = Harvest.objects.get()
        assert (journal.outcome, journal.token, journal.position) == ("failed", "t1", 3)
        fake.down.clear()
        status, out, err = run("--set", "physics", "--base-url", fake.url)
    assert status == 0, err
    assert len(arxiv_ids()) == 6 == len(set(arxiv_ids()))


def test_three_failed_harvests_in_a_row_log_an_error(caplog):
    caplog.set_level(logging.ERROR, logger="papers.arxiv")
    with FakeArxiv({}) as fake:  # every page a 404
        for _ in range(2):
            assert oai(fake, "--restart")[0] == 2
        assert not caplog.records
        assert oai(fake, "--restart")[0] == 2
    assert "the last 3 harvests failed" in caplog.text


def test_arxiv_format_after_a_503_maps_old_style_ids_and_affiliations(no_waiting):
    throttled, complete = nock_exchanges()
    retry_after = dict(
        zip(throttled["rawHeaders"][::2], throttled["rawHeaders"][1::2], strict=True)
    )
    assert retry_after["Retry-After"] == "10"
    with FakeArxiv({"first": complete["response"].encode()}, [("first", "503")]) as fake:
        window = ("--from", "2015-01-01", "--until", "2015-01-03")
        prefix = ("--metadata-prefix", "arXiv")
        status, _out, err = run("--set", "cs", "--base-url", fake.url, *prefix, *window)
    assert status == 0, err
    assert "metadataPrefix=arXiv&" in fake.requests[-1]
    old = Paper.objects.get(arxiv_id="hep-th/9504118")
    assert old.slug == "arxiv-hep-th-9504118"
    assert old.paper_url == "/paper/arxiv-hep-th-9504118"
    kochen = Paper.objects.get(arxiv_id="1412.8544")
    assert kochen.author_names == "Sander Uijlen, Bas Westerbaan"
    assert kochen.arxiv_primary_category == "cs.DM"
    assert kochen.published == dt.date(2014, 12, 29)


def test_api_source_pages_until_an_empty_page_and_finds_code_in_comments():
    with FakeArxiv(atom_pages()) as fake:
        status, _out, err = run(
            "--source", "api", "--query", "all:testing", "--base-url", fake.url
        )
    assert status == 0, err
    assert Paper.objects.count() == 20
    link = CodeLink.objects.get(
        repository__url="https://github.com/ydecastro/super-resolution-testing"
    )
    assert link.mentioned_in_paper
    assert link.paper.code_link_count == 1
    legacy = Paper.objects.get(arxiv_id="1611.09520")
    assert legacy.title.startswith("Hierarchical Neural Representation of Dreamed Objects")
    assert "  " not in legacy.title and "\n" not in legacy.abstract
    assert any("opendatalab.github.io" in u for p in Paper.objects.all()
               for u in (p.arxiv_metadata or {}).get("project_links", []))  # fmt: skip


def test_api_error_is_reported_not_written():
    with FakeArxiv({0: atom_error()}) as fake:
        status, _out, err = run("--source", "api", "--query", "id:abc", "--base-url", fake.url)
    assert status == 2
    assert "the query API refused the query: incorrect id format for abc" in err
    assert Paper.objects.count() == 0


def test_dry_run_writes_nothing():
    with FakeArxiv(oai_pages()) as fake:
        status, out, err = oai(fake, "--dry-run")
    assert status == 0, err
    assert "Dry run: nothing was written." in out
    assert Paper.objects.count() == 0 and Harvest.objects.count() == 0


def test_bad_command_line_is_a_clear_error():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--source api needs --query"):
        call_command("harvest_arxiv", "--source", "api")
    with pytest.raises(CommandError, match="not a date"):
        call_command("harvest_arxiv", "--from", "yesterday")
