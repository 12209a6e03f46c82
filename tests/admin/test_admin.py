"""The admin: every model is there and renders, every list runs a fixed number of
queries, staff edits are kept from the next import, and search finds papers."""

from __future__ import annotations

from collections import defaultdict
from html.parser import HTMLParser

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.core import checks
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from papers.admin.base import RecordAdmin
from papers.models import (
    CONTRIBUTIONS,
    JOURNALS,
    KEPT_FACTS,
    Author,
    CodeLink,
    Leaderboard,
    LeaderboardMetric,
    Paper,
    Record,
    RelatedPaper,
    Sample,
)

# The archive's records (contributions' admin: tests/admin/test_contributions_admin.py).
MODELS = [
    m
    for m in apps.get_app_config("papers").get_models()
    if m not in (*KEPT_FACTS, *CONTRIBUTIONS, *JOURNALS)
]
MODEL_IDS = [model.__name__ for model in MODELS]


def admin_url(model, view: str, *args) -> str:
    return reverse(f"admin:papers_{model._meta.model_name}_{view}", args=args)


def change_url(obj) -> str:
    return admin_url(type(obj), "change", obj.pk)


class FormValues(HTMLParser):
    """What a browser would submit from the form with id `form_id`, buttons aside."""

    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.values: dict[str, list[str]] = defaultdict(list)
        self.select: tuple[str, bool, list[list]] | None = None
        self.textarea: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
            return
        name = attrs.get("name")
        if not self.inside:
            return
        if tag == "input" and name:
            kind = (attrs.get("type") or "text").lower()
            if kind in {"submit", "button", "image", "reset", "file"}:
                return
            if kind in {"checkbox", "radio"}:
                if "checked" in attrs:
                    self.values[name].append(attrs.get("value") or "on")
                return
            self.values[name].append(attrs.get("value") or "")
        elif tag == "select" and name:
            self.select = (name, "multiple" in attrs, [])
        elif tag == "option" and self.select:
            self.select[2].append([attrs.get("value"), "selected" in attrs, ""])
        elif tag == "textarea" and name:
            self.textarea = (name, [])

    def handle_data(self, data):
        if self.textarea:
            self.textarea[1].append(data)
        elif self.select and self.select[2] and self.select[2][-1][0] is None:
            self.select[2][-1][2] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea" and self.textarea:
            name, chunks = self.textarea
            self.values[name].append("".join(chunks).removeprefix("\n"))
            self.textarea = None
        elif tag == "select" and self.select:
            name, multiple, options = self.select
            chosen = [o for o in options if o[1]] or ([] if multiple else options[:1])
            self.values[name].extend(o[2].strip() if o[0] is None else o[0] for o in chosen)
            self.select = None


def change_form_data(client, obj) -> dict[str, list[str]]:
    """The change form of `obj` as a browser would post it back untouched."""
    response = client.get(change_url(obj))
    assert response.status_code == 200
    parser = FormValues(f"{obj._meta.model_name}_form")
    parser.feed(response.content.decode())
    assert parser.values, "the change form was not found"
    return {k: v for k, v in parser.values.items() if "__prefix__" not in k}


def form_errors(response) -> str:
    if response.context is None or "adminform" not in response.context:
        return f"status {response.status_code}"
    errors = [response.context["adminform"].form.errors]
    for inline in response.context["inline_admin_formsets"]:
        errors += [inline.formset.non_form_errors(), *inline.formset.errors]
    return repr([e for e in errors if e])


def post_change(client, obj, data) -> None:
    response = client.post(change_url(obj), data)
    assert response.status_code == 302, form_errors(response)


# --- registration and rendering -----------------------------------------------------


def test_every_papers_model_is_registered():
    missing = [m.__name__ for m in MODELS if not admin.site.is_registered(m)]
    assert missing == []


def test_admin_configuration_passes_django_checks():
    assert checks.run_checks(tags=[checks.Tags.admin]) == []


def test_every_record_model_keeps_staff_edits_from_imports():
    plain = [
        m.__name__
        for m in MODELS
        if issubclass(m, Record) and not isinstance(admin.site.get_model_admin(m), RecordAdmin)
    ]
    assert plain == []


def test_paper_change_form_shows_every_paper_field():
    shown = set(flatten_fieldsets(admin.site.get_model_admin(Paper).fieldsets))
    fields = {f.name for f in Paper._meta.concrete_fields if not f.primary_key}
    assert fields - shown == set()


def test_admin_pages_carry_the_site_header(admin_client):
    response = admin_client.get(reverse("admin:index"))
    assert "Code with Papers admin" in response.content.decode()


@pytest.mark.parametrize("model", MODELS, ids=MODEL_IDS)
def test_changelist_renders(admin_client, make_paper, model):
    make_paper()
    response = admin_client.get(admin_url(model, "changelist"))
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) > 0


@pytest.mark.parametrize("model", MODELS, ids=MODEL_IDS)
def test_change_form_renders(admin_client, make_paper, model):
    make_paper()
    obj = model._default_manager.order_by("pk").first()
    response = admin_client.get(change_url(obj))
    assert response.status_code == 200
    assert response.context["original"] == obj


@pytest.mark.parametrize("model", MODELS, ids=MODEL_IDS)
def test_add_form_renders(admin_client, model):
    assert admin_client.get(admin_url(model, "add")).status_code == 200


def test_anonymous_user_is_sent_to_the_login_page(client, make_paper):
    paper = make_paper()
    login = reverse("admin:login")
    for url in (admin_url(Paper, "changelist"), change_url(paper)):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(f"{login}?next=")


def test_every_changelist_runs_a_fixed_number_of_queries(admin_client, make_paper):
    def measure() -> dict[str, tuple[int, int]]:
        """model → (queries, rows shown)"""
        result = {}
        for model in MODELS:
            with CaptureQueriesContext(connection) as queries:
                response = admin_client.get(admin_url(model, "changelist"))
            assert response.status_code == 200
            result[model.__name__] = (len(queries), len(response.context["cl"].result_list))
        return result

    for _ in range(2):
        make_paper()
    measure()  # warm per-process caches (content types, sessions)
    few = measure()
    for _ in range(18):
        make_paper()
    many = measure()

    assert all(many[name][1] > few[name][1] > 1 for name in few), (few, many)
    differing = {name: (few[name][0], many[name][0]) for name in few}
    differing = {name: counts for name, counts in differing.items() if counts[0] != counts[1]}
    assert differing == {}, "queries with 2 papers vs 20"


# --- search and filters ---------------------------------------------------------------


def shown(client, model, **params) -> set[str]:
    response = client.get(admin_url(model, "changelist"), params)
    assert response.status_code == 200
    return {str(obj.pk) for obj in response.context["cl"].result_list}


@pytest.fixture
def depth_paper(make_paper):
    """The paper searches should find, beside another one they should not."""
    make_paper(title="Unrelated work")
    return make_paper(
        title="The Depth-to-Width Interplay in Self-Attention",
        arxiv_id="2006.12467",
        authors=["Yoav Levine", "Noam Wies"],
    )


@pytest.mark.parametrize(
    "query",
    [
        "Noam Wies",
        "levine",
        "2006.12467",
        "arXiv:2006.12467v3",
        "https://arxiv.org/abs/2006.12467v3",
        "width depth",
    ],
)
def test_paper_search_finds_the_paper(admin_client, depth_paper, query):
    assert shown(admin_client, Paper, q=query) == {str(depth_paper.pk)}


def test_paper_search_finds_the_paper_by_repository_url(admin_client, depth_paper):
    url = depth_paper.code_links.get().repository.url
    assert shown(admin_client, Paper, q=url.removeprefix("https://")) == {str(depth_paper.pk)}


def test_paper_search_for_an_unknown_author_finds_nothing(admin_client, depth_paper):
    assert shown(admin_client, Paper, q="Geoffrey Hinton") == set()


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"has_code": "yes"}, "paper"),
        ({"has_code": "no"}, "related"),
        ({"year": "2020"}, "paper"),
        ({"year": "none"}, "related"),
        ({"year": "1999"}, None),
    ],
)
def test_paper_code_and_year_filters(admin_client, make_paper, params, expected):
    paper = make_paper()
    related = paper.related_entries.get().related
    wanted = {"paper": {str(paper.pk)}, "related": {str(related.pk)}, None: set()}[expected]
    assert shown(admin_client, Paper, **params) == wanted


def test_paper_year_filter_rejects_a_non_year(admin_client, make_paper):
    make_paper()
    response = admin_client.get(admin_url(Paper, "changelist"), {"year": "recent"})
    assert response.status_code == 302
    assert response["Location"].endswith("?e=1")


def test_sample_list_filters_on_a_status_the_vocabulary_does_not_know(admin_client, make_paper):
    make_paper()
    response = admin_client.get(admin_url(Sample, "changelist"))
    assert "?status=timed_out" in response.content.decode()
    unknown = Sample.objects.get(status="timed_out")
    assert shown(admin_client, Sample, status="timed_out") == {str(unknown.pk)}
    assert "Timed out" in admin_client.get(admin_url(Sample, "changelist")).content.decode()


# --- staff edits -----------------------------------------------------------------


def test_saving_a_changed_paper_marks_it_edited(admin_client, make_paper):
    paper = make_paper()
    assert not paper.edited_in_admin
    data = change_form_data(admin_client, paper)
    data["title"] = ["Corrected title"]
    post_change(admin_client, paper, data)
    paper.refresh_from_db()
    assert paper.title == "Corrected title"
    assert paper.edited_in_admin
    assert paper.edited_at is not None


def test_saving_an_unchanged_paper_leaves_it_to_imports(admin_client, make_paper):
    paper = make_paper()
    post_change(admin_client, paper, change_form_data(admin_client, paper))
    paper.refresh_from_db()
    assert not paper.edited_in_admin


def test_unticking_edited_in_admin_releases_the_paper(admin_client, make_paper):
    paper = make_paper(edited_in_admin=True)
    data = change_form_data(admin_client, paper)
    assert data.pop("edited_in_admin") == ["on"]
    post_change(admin_client, paper, data)
    paper.refresh_from_db()
    assert not paper.edited_in_admin


def test_changing_a_sample_on_the_paper_page_marks_the_paper_edited(admin_client, make_paper):
    paper = make_paper()
    data = change_form_data(admin_client, paper)
    assert data["samples-1-status"] == ["timed_out"]
    data["samples-1-status"] = ["ran"]
    post_change(admin_client, paper, data)
    paper.refresh_from_db()
    assert paper.samples.get(position=1).status == "ran"
    assert paper.edited_in_admin


def test_a_framework_or_status_changed_on_the_paper_page_is_what_search_filters_on(
    admin_client, client, make_paper
):
    paper = make_paper()
    data = change_form_data(admin_client, paper)
    data["code_links-0-framework"] = ["jax"]
    data["samples-1-status"] = ["ran"]
    post_change(admin_client, paper, data)
    paper.refresh_from_db()
    assert paper.frameworks == {"jax": 1}
    assert paper.sample_statuses == {"ran_honours": 1, "ran": 1}
    for params, found in [
        ({"framework": "jax"}, True),
        ({"framework": "pytorch"}, False),
        ({"status": "ran"}, True),
        ({"status": "timed_out"}, False),
    ]:
        body = client.get("/search", {"q": "attention", **params}).content.decode()
        assert ("1 paper" in body) is found, params


def test_removing_a_code_link_on_the_paper_page_refreshes_its_counts(admin_client, make_paper):
    paper = make_paper()
    assert (paper.code_link_count, paper.has_official_code) == (1, True)
    data = change_form_data(admin_client, paper)
    data["code_links-0-DELETE"] = ["on"]
    post_change(admin_client, paper, data)
    paper.refresh_from_db()
    assert not CodeLink.objects.filter(paper=paper).exists()
    assert (paper.code_link_count, paper.has_official_code) == (0, False)
    assert paper.frameworks == {}


def test_hiding_a_related_paper_does_not_lock_the_paper(admin_client, make_paper):
    paper = make_paper()
    data = change_form_data(admin_client, paper)
    data["related_entries-0-hidden"] = ["on"]
    post_change(admin_client, paper, data)
    paper.refresh_from_db()
    assert RelatedPaper.objects.get(paper=paper).hidden
    assert not paper.edited_in_admin


def test_saving_a_sample_on_its_own_page_marks_its_paper_edited(admin_client, make_paper):
    paper = make_paper()
    sample = paper.samples.get(position=1)
    data = change_form_data(admin_client, sample)
    data["status"] = ["ran_violates"]
    post_change(admin_client, sample, data)
    paper.refresh_from_db()
    assert paper.samples.get(position=1).status == "ran_violates"
    assert paper.edited_in_admin


def test_editing_a_code_link_marks_the_link_not_the_paper(admin_client, make_paper):
    paper = make_paper()
    link = paper.code_links.get()
    data = change_form_data(admin_client, link)
    data["framework"] = ["jax"]
    post_change(admin_client, link, data)
    link.refresh_from_db()
    paper.refresh_from_db()
    assert (link.framework, link.edited_in_admin) == ("jax", True)
    assert not paper.edited_in_admin


def test_staff_can_set_lower_is_better_on_the_leaderboard_page(admin_client, make_paper):
    make_paper()
    metric = LeaderboardMetric.objects.get()
    assert not metric.is_lower_better
    data = change_form_data(admin_client, metric.leaderboard)
    assert data["rows-0-paper"]
    data["metrics-0-lower_is_better"] = ["true"]
    post_change(admin_client, metric.leaderboard, data)
    metric.refresh_from_db()
    assert metric.lower_is_better is True
    assert metric.is_lower_better
    # The metric's own value is never overwritten by imports: the board is not locked.
    assert not Leaderboard.objects.get(pk=metric.leaderboard_id).edited_in_admin


def test_renaming_an_author_rewrites_the_author_names_of_their_papers(admin_client, make_paper):
    paper = make_paper(authors=["Yoav Levine", "Noam Wies"])
    author = Author.objects.get(slug="yoav-levine")
    data = change_form_data(admin_client, author)
    data["name"] = ["Yoav Levine-Shashua"]
    post_change(admin_client, author, data)
    paper.refresh_from_db()
    assert paper.author_names == "Yoav Levine-Shashua, Noam Wies"


def test_replacing_an_author_on_the_paper_page_rewrites_its_author_names(admin_client, make_paper):
    paper = make_paper(authors=["Yoav Levine", "Noam Wies"])
    other = Author.objects.create(slug="or-sharir", name="Or Sharir")
    data = change_form_data(admin_client, paper)
    data["authorships-1-author"] = [str(other.pk)]
    post_change(admin_client, paper, data)
    paper.refresh_from_db()
    assert paper.author_names == "Yoav Levine, Or Sharir"
    assert paper.edited_in_admin


LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.mark.django_db
def test_admin_login_is_throttled_per_address_and_per_username_for_a_while(settings, monkeypatch):
    """Guessing passwords: after RATELIMIT_LOGIN failed attempts an address is refused
    (429), and so is the user name to any address that has failed, until the window
    ends; then the right password works again, so a staff member is never locked out
    for good."""
    import time

    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.test import Client

    settings.CACHES = LOCMEM
    settings.RATELIMIT_LOGIN = "3/m"
    cache.clear()
    clock = [1_700_000_000.0]  # the limiter's windows and the cache's expiry, by hand
    monkeypatch.setattr(time, "time", lambda: clock[0])
    users = get_user_model()
    users.objects.create_superuser("staff", password="right-password-123")
    users.objects.create_superuser("other", password="other-password-456")
    login = reverse("admin:login")

    def attempt(username: str, password: str, address: str):
        return Client(REMOTE_ADDR=address).post(
            login, {"username": username, "password": password, "next": "/admin/"}
        )

    for _ in range(3):
        assert attempt("staff", "wrong", "10.0.0.1").status_code == 200
    refused = attempt("staff", "right-password-123", "10.0.0.1")
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many" in refused.content.decode()
    # The same user name from another address that has failed, and another user from
    # the same address.
    assert attempt("someone", "wrong", "10.0.0.2").status_code == 200
    assert attempt("STAFF", "right-password-123", "10.0.0.2").status_code == 429
    assert attempt("other", "other-password-456", "10.0.0.1").status_code == 429
    # Someone else, elsewhere, signs in as usual.
    assert attempt("other", "other-password-456", "10.0.0.3").status_code == 302
    clock[0] += 61  # the windows (at most a minute) have ended
    assert attempt("staff", "right-password-123", "10.0.0.1").status_code == 302


@pytest.mark.django_db
def test_failures_from_other_addresses_do_not_lock_the_admin_out(settings):
    """Someone guessing a staff member's password from a dozen addresses locks the name
    for those addresses only: the owner, at an address that has not failed, signs in."""
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.test import Client

    settings.CACHES = LOCMEM
    settings.RATELIMIT_LOGIN = "10/10m"
    cache.clear()
    get_user_model().objects.create_superuser("staff", password="right-password-123")
    login = reverse("admin:login")

    def attempt(password: str, address: str):
        return Client(REMOTE_ADDR=address).post(
            login, {"username": "staff", "password": password, "next": "/admin/"}
        )

    for number in range(12):
        assert attempt("guess", f"198.51.100.{number}").status_code == 200
    assert attempt("right-password-123", "198.51.100.3").status_code == 429
    assert attempt("right-password-123", "192.0.2.10").status_code == 302
    # A fresh address gets one try at the locked name, which counts against it.
    assert attempt("guess", "203.0.113.7").status_code == 200
    assert attempt("right-password-123", "203.0.113.7").status_code == 429
