"""What keeps contributions from the site safe: CSRF on every form, a limit on writes an
hour (429 with Retry-After), links contributors add marked rel="nofollow ugc", a
description that is only links held for a moderator, the preview through the pages'
sanitiser; and what a reader sees once a result is live: its row ranked on the board."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from papers.models import CodeLink, LeaderboardRow, Proposal, Repository, Task
from papers.models.contributions import Status
from tests.contribute.conftest import make_user, signed_in

pytestmark = pytest.mark.django_db

FORM_URLS = [
    "/paper/paper-1/contribute/code",
    "/paper/paper-1/contribute/result",
    "/paper/paper-1/contribute/correction",
    "/sota/task-1-on-dataset-1/contribute/result",
    "/task/task-1/contribute/description",
    "/dataset/dataset-1/contribute/description",
    "/method/method-1/contribute/description",
    "/contribute/preview",
]
LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                      "LOCATION": "contribute-limits"}}  # fmt: skip


@pytest.fixture
def paper(make_paper):
    return make_paper()


@pytest.mark.parametrize("url", FORM_URLS)
def test_every_form_refuses_a_post_without_its_csrf_token(paper, trusted, url):
    client = Client(enforce_csrf_checks=True)
    client.force_login(trusted)
    assert (
        client.post(url, {"description": "x", "url": "https://github.com/a/b"}).status_code == 403
    )
    if url != "/contribute/preview":
        assert 'name="csrfmiddlewaretoken"' in client.get(url).content.decode()
    assert not CodeLink.objects.filter(repository__url="https://github.com/a/b").exists()


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_writes_over_the_hourly_limit_are_refused_with_retry_after(paper, trusted, htmx):
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "contribute-code"} if htmx else {}
    with override_settings(CACHES=LOCMEM, SITE_WRITES_PER_HOUR=2):
        cache.clear()
        client = signed_in(trusted)
        url = f"/paper/{paper.slug}/contribute/code"
        for n in (1, 2):
            ok = client.post(url, {"url": f"https://github.com/a/repo{n}"}, **headers)
            assert ok.status_code in (200, 302)
        refused = client.post(url, {"url": "https://github.com/a/repo3"}, **headers)
        cache.clear()
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 3601
    page = refused.content.decode()
    assert "Too many changes" in page
    assert ("<html" in page) is not htmx
    assert not Repository.objects.filter(url="https://github.com/a/repo3").exists()


def test_the_limit_counts_each_client_address_too(paper):
    with override_settings(CACHES=LOCMEM, SITE_WRITES_PER_HOUR_PER_ADDRESS=1):
        cache.clear()
        url = f"/paper/{paper.slug}/contribute/code"
        first = signed_in(make_user("trusted")).post(url, {"url": "https://github.com/a/one"})
        second = signed_in(make_user("staff")).post(url, {"url": "https://github.com/a/two"})
        cache.clear()
    assert first.status_code == 302
    assert second.status_code == 429


def test_a_contributed_code_link_is_nofollow_ugc_and_the_archive_s_is_not(paper, trusted):
    client = signed_in(trusted)
    client.post(f"/paper/{paper.slug}/contribute/code", {"url": "https://github.com/x/y"})
    for reader in (client, Client()):
        page = reader.get(f"/paper/{paper.slug}").content.decode()
        assert '<a href="https://github.com/x/y" rel="nofollow ugc">' in page
        assert '<a href="https://github.com/lab1/model1">' in page


def test_links_in_a_contributed_description_are_nofollow_ugc(paper, trusted):
    text = "Sorting images into classes, with labels checked by people: see [the site](https://example.org/x)."
    signed_in(trusted).post("/task/task-1/contribute/description", {"description": text})
    page = Client().get("/task/task-1").content.decode()
    assert '<a href="https://example.org/x" rel="nofollow ugc">the site</a>' in page


def test_an_archive_description_s_links_stay_nofollow_only(paper):
    Task.objects.filter(slug="task-1").update(description="See [the site](https://example.org/x).")
    page = Client().get("/task/task-1").content.decode()
    assert '<a href="https://example.org/x" rel="nofollow">the site</a>' in page


@pytest.mark.parametrize(
    "text",
    [
        "[cheap](https://spam.example/a) [pills](https://spam.example/b)",
        "https://spam.example/a https://spam.example/b",
        "Visit https://spam.example now!",
        "<a href='https://spam.example'>a long link text that says a lot of words</a>",
    ],
)
@pytest.mark.parametrize("level", ["trusted", "staff"])
def test_a_description_that_is_only_links_is_held_even_for_trusted_writers(paper, text, level):
    client = signed_in(make_user(level))
    response = client.post("/task/task-1/contribute/description", {"description": text})
    page = client.get(response["Location"]).content.decode()
    proposal = Proposal.objects.get()
    assert proposal.operation == "task_update" and proposal.status == Status.PENDING
    assert Task.objects.get(slug="task-1").description == ""
    assert f"Recorded as proposal #{proposal.pk}" in page
    assert "Text that is only links is held for a moderator." in page


def test_a_description_with_a_link_among_its_words_goes_live(paper, trusted):
    text = "Answering questions about a passage of text, as [SQuAD](https://example.org) asks."
    signed_in(trusted).post("/task/task-1/contribute/description", {"description": text})
    assert Task.objects.get(slug="task-1").description == text
    assert not Proposal.objects.exists()


def test_the_preview_is_rendered_and_sanitised_as_the_page_would(trusted):
    response = signed_in(trusted).post(
        "/contribute/preview",
        {"description": "**bold** <script>alert(1)</script> [x](javascript:alert(1)) "
         "[y](https://example.org) <img src=x onerror=alert(1)>"},
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 200
    assert "<strong>bold</strong>" in html
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert '<a href="https://example.org" rel="nofollow ugc">y</a>' in html


def test_the_preview_is_for_signed_in_readers_and_takes_posts_only(trusted):
    assert Client().post("/contribute/preview", {"description": "x"}).status_code == 302
    assert signed_in(trusted).get("/contribute/preview").status_code == 405


def test_the_description_form_previews_as_you_type_and_without_javascript(paper, trusted):
    client = signed_in(trusted)
    url = "/task/task-1/contribute/description"
    form = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    textarea = re.search(r"<textarea[^>]*name=\"description\"[^>]*>", form)[0]
    assert 'hx-post="/contribute/preview"' in textarea
    assert 'hx-trigger="input changed delay:500ms"' in textarea
    assert 'hx-target="#contribute-description-preview"' in textarea
    assert 'id="contribute-description-preview"' in form
    shown = client.post(url, {"description": "*new* <script>x</script>", "preview": "1"})
    assert shown.status_code == 200
    assert "<em>new</em>" in shown.content.decode()
    assert "<script>x" not in shown.content.decode()
    assert Task.objects.get(slug="task-1").description == ""  # a preview writes nothing


def _row_of(page: str, model: str) -> str:
    """The board table's row of `model`."""
    table = page[page.index('<table class="leaderboard-table">') :]
    rows = re.findall(r"<tr>.*?</tr>", table, re.S)
    return next(row for row in rows if model in row)


def test_a_live_result_appears_ranked_on_the_board_with_its_contributor(paper, trusted):
    client = signed_in(trusted)
    client.post(
        "/sota/task-1-on-dataset-1/contribute/result",
        {"paper": paper.arxiv_id, "model": "Reader net", "metric_0": "95.5"},
    )
    for reader in (client, Client()):
        page = reader.get("/sota/task-1-on-dataset-1").content.decode()
        row = _row_of(page, "Reader net")
        assert '<td class="num rank">1</td>' in row
        assert "contributed by trusted" in row
        assert '<td class="num rank">2</td>' in _row_of(page, "Model 1")
        assert "Reader net, 95.5" in page  # the chart's record
    assert LeaderboardRow.objects.get(model_name="Reader net").contributed_by == trusted


def test_an_approved_result_appears_ranked_on_the_board(paper, contributor):
    from papers.contributions.proposals import approve

    signed_in(contributor).post(
        "/sota/task-1-on-dataset-1/contribute/result",
        {"paper": paper.arxiv_id, "model": "Reader net", "metric_0": "80"},
    )
    assert "Reader net" not in Client().get("/sota/task-1-on-dataset-1").content.decode()
    approve(Proposal.objects.get(), make_user("staff"))
    page = Client().get("/sota/task-1-on-dataset-1").content.decode()
    assert '<td class="num rank">2</td>' in _row_of(page, "Reader net")
    assert "contributed by contributor" in _row_of(page, "Reader net")


@pytest.mark.parametrize(
    "page", ["/paper/paper-1", "/sota/task-1-on-dataset-1", "/task/task-1",
             "/dataset/dataset-1", "/method/method-1"],
)  # fmt: skip
def test_a_signed_in_reader_s_pages_make_as_many_queries_with_more_contributions(
    make_paper, trusted, page, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from papers.kept import refresh_all

    make_paper()
    refresh_all()  # the counts an import leaves, so that the lists are shown from the start
    client = signed_in(trusted)
    client.get(page)
    with CaptureQueriesContext(connection) as before:
        assert client.get(page).status_code == 200
    queries = len(before)  # now: the next request empties the log
    for n in range(3):  # rows and links by other contributors
        writer = signed_in(make_user("trusted", f"writer{n}"))
        writer.post("/paper/paper-1/contribute/code", {"url": f"https://github.com/more/r{n}"})
        writer.post(
            "/sota/task-1-on-dataset-1/contribute/result",
            {"paper": "paper-1", "model": f"More {n}", "metric_0": f"{90 + n}"},
        )
    assert queries > 3
    with django_assert_max_num_queries(queries):
        assert client.get(page).status_code == 200


def test_a_signed_in_reader_is_never_answered_with_a_visitor_s_copy_of_a_page(paper, trusted):
    url = f"/paper/{paper.slug}"
    with override_settings(CACHES=LOCMEM):
        cache.clear()
        etag = Client().get(url)["ETag"]
        reader = signed_in(trusted)
        mine = reader.get(url, HTTP_IF_NONE_MATCH=etag)
        again = reader.get(url, HTTP_IF_NONE_MATCH=mine["ETag"])
        cache.clear()
    assert mine.status_code == 200
    assert f'hx-get="{url}/contribute/code"' in mine.content.decode()
    assert again.status_code == 304  # their own copy is still theirs
