"""Hostile input: any URL the site routes, with any segments and query strings, never
gives a 500; archive text with markup or script URLs is shown escaped and never linked;
the admin is for staff only, behind CSRF."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from papers.kept import refresh_all as refresh_browse_counts
from papers.kept.papers import refresh_counts
from papers.models import (
    CodeLink,
    Dataset,
    Leaderboard,
    LeaderboardRow,
    Method,
    Repository,
    Sample,
    Task,
)
from tests.servers import in_thread

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent


# --- every URL pattern, fuzzed ----------------------------------------------------------

_ROUTE_PARAM = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")
_REGEX_GROUP = re.compile(r"\(\?P<[^>]+>(?:[^()]|\([^()]*\))*\)")


def _routes(patterns=None, prefix: str = "") -> list[tuple[str, bool]]:
    """Every URL pattern as (template, accepts slashes), with {} where a value goes."""
    found = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        text = str(entry.pattern)
        if _REGEX_GROUP.search(text) or text.startswith("^"):
            template = _REGEX_GROUP.sub("{}", text.lstrip("^").rstrip("$").replace("\\", ""))
        else:
            template = _ROUTE_PARAM.sub("{}", text)
        slashes = "<path:" in text
        if isinstance(entry, URLResolver):
            found += [(t, s or slashes) for t, s in _routes(entry.url_patterns, prefix + template)]
        elif isinstance(entry, URLPattern):
            found.append((prefix + template, slashes))
    return found


ROUTES = _routes()
# The site's own routes and the admin's (which outnumber them) drawn equally often.
SITE_ROUTES = [r for r in ROUTES if not r[0].startswith("admin/")]
ADMIN_ROUTES = [r for r in ROUTES if r[0].startswith("admin/")]
PARAMETERS = [
    "q",
    "page",
    "status",
    "sort",
    "year_from",
    "year_to",
    "has_code",
    "official",
    "framework",
    "task",
    "method",
    "dataset",
    "language",
    "repo_kind",
    "contract_check",
    "p",
    "format",
]
text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
odd = st.sampled_from(
    [
        "",
        "0",
        "-1",
        "1e9",
        "99999999999999999999999",
        "\x00",
        "%",
        "../..",
        "<script>",
        "'",
        '"',
        "a" * 300,
        "\u202e",
        "NaN",
        "[]",
        "true",
    ]
)
value = st.one_of(text, odd, odd)


@st.composite
def requests(draw):
    template, slashes = draw(st.sampled_from(SITE_ROUTES) | st.sampled_from(ADMIN_ROUTES))
    segments = [
        quote(draw(value), safe="/" if slashes else "") for _ in range(template.count("{}"))
    ]
    path = "/" + template.replace("{}", "%s") % tuple(segments) if segments else "/" + template
    query = draw(
        st.lists(st.tuples(st.one_of(st.sampled_from(PARAMETERS), text), value), max_size=5)
    )
    method = draw(st.sampled_from(["GET", "GET", "HEAD", "POST"]))
    htmx = draw(st.booleans())
    staff = draw(st.booleans())
    return method, path, urlencode(query), htmx, staff


@pytest.mark.parametrize(
    "url",
    [
        "/paper/%00",
        "/author/a%00b",
        "/repo/x/%00/y",
        "/task/%00/feed.atom",
        "/sitemap-%00.xml",
        "/paper/%00.json",
        "/search?task=%00",
        "/samples?status=%00",
        "/paper/paper-1?status=%00",
        "/admin/papers/paper/?q=%00",
    ],
)
def test_a_nul_character_anywhere_is_a_400_not_a_500(admin_client, archive, url):
    assert admin_client.get(url).status_code in (200, 302, 400, 404)


@pytest.mark.parametrize(
    "query", ["task=%3A", "paper=99999999999999999999999", "task=-1", "paper=1,2"]
)
def test_admin_add_form_ignores_initial_values_a_field_cannot_hold(admin_client, archive, query):
    assert admin_client.get(f"/admin/papers/papertask/add/?{query}").status_code == 200


def test_every_route_is_covered():
    templates = {template for template, _ in ROUTES}
    for expected in ("paper/{}", "search", "sitemap-{}.xml", "healthz", "admin/", "robots.txt"):
        assert expected in templates


@pytest.fixture
def archive(make_paper):
    make_paper()


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_superuser("fuzz-staff", password="pw-123-long-enough")


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(request=requests())
def test_no_url_pattern_gives_a_500_for_any_segments_or_query(archive, staff_user, request):
    method, path, query, htmx, staff = request
    client = Client()
    if staff:
        client.force_login(staff_user)
    headers = {"HX-Request": "true"} if htmx else {}
    url = f"{path}?{query}" if query else path
    send = getattr(client, method.lower())
    if path.startswith("/mcp"):  # async_to_sync, which a browser test's loop would refuse
        response = in_thread(lambda: send(url, headers=headers))
    else:
        response = send(url, headers=headers)
    assert response.status_code < 500, f"{method} {url} -> {response.status_code}"


# --- archive text with markup and script URLs --------------------------------------------

SCRIPT = '<script>alert("x")</script>'
BREAKOUT = '"><img src=x onerror=alert(1)>'
BAD_URLS = [
    "javascript:alert(1)",
    " JavaScript:alert(1)",
    "data:text/html,<script>x</script>",
    "//evil.example/x",
    "vbscript:x",
]


@pytest.fixture
def hostile(make_paper):
    paper = make_paper(
        title=f"Title {SCRIPT}{BREAKOUT}",
        abstract=f"Abstract {SCRIPT} attention {BREAKOUT}",
        authors=[f"Author {SCRIPT}", f"Writer {BREAKOUT}"],
        url_abs=BAD_URLS[0],
        url_pdf=BAD_URLS[1],
        proceeding=SCRIPT,
        has_report=True,
        report_claim=SCRIPT,
    )
    for number, url in enumerate(BAD_URLS):
        repository = Repository.objects.create(url=f"{url}/owner{number}/name{number}")
        CodeLink.objects.create(paper=paper, repository=repository, framework=SCRIPT)
        Sample.objects.create(
            paper=paper,
            repository=repository,
            repo=f"o/{SCRIPT}",
            position=10 + number,
            path=f"evil{number}.py",
            entry=BREAKOUT,
            status=SCRIPT,
            file_url=url,
            language="python",
        )
    refresh_counts([paper.pk])
    good = Repository.objects.create(url='https://github.com/good/repo"onmouseover="x')
    CodeLink.objects.create(paper=paper, repository=good)
    # Descriptions are Markdown with raw HTML allowed through a sanitizer: try it.
    markdown = (
        f"**{SCRIPT}** {BREAKOUT} [x]({BAD_URLS[0]}) [y]({BAD_URLS[2]}) ![z]({BAD_URLS[3]}) "
        f'<a href="{BAD_URLS[4]}">v</a> $\\text{{{SCRIPT}}}$ <iframe src="/x"></iframe>'
    )
    Task.objects.filter(slug="task-1").update(description=markdown, categories=[SCRIPT])
    Method.objects.filter(slug="method-1").update(description=markdown, source_url=BAD_URLS[0])
    Dataset.objects.filter(slug="dataset-1").update(description=markdown, variants=[SCRIPT])
    Leaderboard.objects.filter(task__slug="task-1").update(description=markdown)
    LeaderboardRow.objects.filter(row_key="row-1").update(
        model_name=SCRIPT + BREAKOUT,
        paper_url=BAD_URLS[0],
        code_links=[{"title": SCRIPT, "url": url} for url in BAD_URLS],
        metrics={"Top-1 Accuracy": SCRIPT},
    )
    refresh_browse_counts()
    return paper


class _Audit(HTMLParser):
    """Script elements, event handler attributes and non-http(s) links in a page."""

    def __init__(self):
        super().__init__()
        self.problems: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, val in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}>")
            if name in ("href", "src", "action", "hx-get") and val:
                target = val.strip().lower()
                if not (
                    target.startswith(("/", "#", "?", "http://", "https://"))
                ) or target.startswith("//"):
                    self.problems.append(f"<{tag} {name}={val!r}>")
        if tag == "script" and not dict(attrs).get("src", "").startswith("/static/js/"):
            self.problems.append("<script>")
        # The only image a page shows is a board's badge, from this site.
        src = dict(attrs).get("src") or ""
        if tag == "img" and not re.match(r"^/sota/[^/]+/badge\.svg\?paper=", src):
            self.problems.append("<img>")

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.parametrize(
    "url",
    [
        "/paper/paper-1",
        "/paper/paper-1/samples",
        "/search?q=attention",
        "/",
        "/author/author-scriptalertxscript",
        "/samples",
        '/repo/github.com/good/repo"onmouseover="x',
        "/task/task-1",
        "/method/method-1",
        "/dataset/dataset-1",
        "/sota/task-1-on-dataset-1",
        "/sota",
        "/tasks",
        "/methods",
        "/datasets",
    ],
)
def test_archive_text_is_escaped_and_only_http_urls_are_linked(client, hostile, url):
    response = client.get(url)
    assert response.status_code == 200
    audit = _Audit()
    audit.feed(response.content.decode())
    assert audit.problems == []
    if url.startswith("/paper/"):
        shown = "".join(audit.text)
        assert SCRIPT in shown and "evil0.py" in shown  # shown as text, unlinked


def test_feeds_and_json_carry_archive_text_as_data(client, hostile):
    feed = client.get("/feeds/latest.atom").content.decode()
    assert "<script>" not in feed and "&lt;script&gt;" in feed
    record = client.get("/paper/paper-1.json").json()
    assert record["title"].startswith("Title <script>")


# --- the admin ------------------------------------------------------------------------


def test_admin_requires_a_staff_login(client, django_user_model, make_paper):
    make_paper()
    assert client.get("/admin/").status_code == 302
    assert client.get("/admin/papers/paper/").url.startswith("/admin/login/")
    user = django_user_model.objects.create_user("reader", password="pw-123-long-enough")
    client.force_login(user)
    assert client.get("/admin/papers/paper/").status_code == 302
    body = client.get("/paper/paper-1").content.decode()
    assert 'href="/admin/' not in body  # no admin link for a signed-in non-staff user


def test_admin_forms_need_a_csrf_token(django_user_model, make_paper):
    paper = make_paper()
    staff = django_user_model.objects.create_superuser("staff", password="pw-123-long-enough")
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    change = f"/admin/papers/paper/{paper.pk}/change/"
    form = client.get(change).content.decode()
    assert 'name="csrfmiddlewaretoken"' in form
    assert client.post(change, {"title": "No token"}).status_code == 403
    assert (
        Client(enforce_csrf_checks=True)
        .post("/admin/login/", {"username": "staff", "password": "pw-123-long-enough"})
        .status_code
        == 403
    )


def test_every_post_form_in_the_templates_carries_a_csrf_token():
    for template in (ROOT / "templates").rglob("*.html"):
        source = template.read_text()
        for form in re.findall(r"<form\b[^>]*>.*?</form>", source, re.S | re.I):
            if re.search(r'method="post"', form, re.I):
                assert "{% csrf_token %}" in form, template
