"""Production mode: deploy checks, security headers and CSP with no inline code, the
gunicorn server `make serve` runs, /healthz, and one JSON log line a request."""

from __future__ import annotations

import json
import logging
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from codewithpapers.logs import JsonFormatter
from tests.servers import (
    ROOT,
    fetch,
    gunicorn,
    manage,
    production_env,
)

pytestmark = [pytest.mark.servers, pytest.mark.django_db]


def test_check_deploy_reports_nothing_in_production_mode():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env=production_env(ALLOWED_HOSTS="codewithpapers.app", SECURE_SSL_REDIRECT="true"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_pages_carry_security_headers_and_a_strict_csp(client):
    response = client.get("/about", secure=True)
    assert response.status_code == 200
    assert response["Strict-Transport-Security"].startswith("max-age=31536000")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert response["X-Frame-Options"] == "DENY"
    policy = dict(
        (part.split()[0], part.split()[1:])
        for part in response["Content-Security-Policy"].split("; ")
    )
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert "unsafe-eval" not in response["Content-Security-Policy"]


INLINE_CODE = {
    "a <script> without src": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),
    "a <style> element": re.compile(r"<style[\s>]", re.I),
    "a style attribute": re.compile(r"\sstyle\s*=", re.I),
    "an on* event handler": re.compile(r"\son[a-z]+\s*=", re.I),
    "an hx-on attribute": re.compile(r"\shx-on", re.I),
    "a javascript: URL": re.compile(r"javascript:", re.I),
}


@pytest.mark.parametrize(
    "template",
    sorted((ROOT / "templates").rglob("*.html")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_template_carries_inline_scripts_or_styles(template: Path):
    source = template.read_text()
    found = [what for what, pattern in INLINE_CODE.items() if pattern.search(source)]
    assert not found, f"{template.relative_to(ROOT)} has {', '.join(found)}"


def test_the_scripts_are_vendored_htmx_told_to_inject_no_styles_and_our_own(client):
    scripts = sorted(p.name for p in (ROOT / "static" / "js").iterdir())
    assert scripts == ["badges.js", "htmx-2.0.11.min.js", "site.js"]
    for name in ("site.js", "badges.js"):
        own = (ROOT / "static" / "js" / name).read_text()
        assert not re.search(r"\beval\(|new Function|innerHTML|\.style\b", own), name
    body = client.get("/about").content.decode()
    meta = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", body)
    assert meta, "htmx-config meta tag missing"
    config = json.loads(meta.group(1))
    # Without this htmx adds a <style> element for its indicators, which the CSP blocks.
    assert config["includeIndicatorStyles"] is False
    assert config["allowEval"] is False and config["allowScriptTags"] is False


class _InlineFinder(HTMLParser):
    def __init__(self):
        super().__init__()
        self.problems: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        names = {name for name, _ in attrs}
        if tag == "style":
            self.problems.append("<style>")
        if "style" in names:
            self.problems.append(f"<{tag} style=…>")
        if any(name.startswith("on") for name in names):
            self.problems.append(f"<{tag} on…=>")
        self._in_script = tag == "script"
        if tag == "script" and "src" not in names:
            self.problems.append("<script> without src")

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.problems.append("script body")

    def handle_endtag(self, tag):
        self._in_script = False


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/about",
        "/search?q=attention",
        "/samples",
        "/paper/paper-1",
        "/task/task-1",
        "/author/first-author1",
        "/repo/github.com/lab1/model1",
        "/no-such-page",
    ],
)
def test_rendered_pages_have_no_inline_code(client, make_paper, url):
    make_paper()
    finder = _InlineFinder()
    finder.feed(client.get(url).content.decode())
    assert finder.problems == []


def test_every_request_logs_one_json_line_with_status_duration_and_queries(client, make_paper):
    make_paper()
    logger = logging.getLogger("codewithpapers.requests")
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logger.addHandler(handler)
    try:
        with CaptureQueriesContext(connection) as queries:
            client.get("/paper/paper-1")
        ran = len(queries)  # now: the next request empties the connection's query log
        client.get("/no-such-page")
    finally:
        logger.removeHandler(handler)
    page, missing = (json.loads(JsonFormatter().format(r)) for r in records)
    assert page["method"] == "GET" and page["path"] == "/paper/paper-1"
    assert page["status"] == 200 and page["queries"] == ran > 0
    assert isinstance(page["duration_ms"], float) and page["duration_ms"] > 0
    assert page["event"] == "request" and page["time"].endswith("+00:00")
    assert missing["status"] == 404 and missing["path"] == "/no-such-page"


def test_healthz_is_200_and_fast_when_the_database_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["databases"] == {"default": "ok"}
    assert body["ms"] < 1000
    assert "no-store" in response["Cache-Control"]
    head = client.head("/healthz")  # load balancers' probes often send HEAD
    assert head.status_code == 200 and head.content == b""


def test_make_serve_runs_gunicorn_with_compressed_far_future_static_files(
    tmp_path, collected_static, migrated_sqlite
):
    database = tmp_path / "db.sqlite3"
    shutil.copy(migrated_sqlite, database)
    env = production_env(DATABASE_URL=f"sqlite:///{database}", STATIC_ROOT=str(collected_static))
    log = tmp_path / "gunicorn.log"
    with gunicorn(env, log) as base:
        health = fetch(f"{base}/healthz")
        assert health.status == 200 and json.loads(health.body)["status"] == "ok"
        home = fetch(f"{base}/")
        assert home.status == 200 and "Content-Security-Policy" in home.headers
        stylesheet = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', home.body)
        assert stylesheet, "the stylesheet is not the hashed, collected one"
        css = fetch(base + stylesheet.group(1), headers={"Accept-Encoding": "gzip"})
        assert css.status == 200 and css.headers["Content-Encoding"] == "gzip"
        assert "immutable" in css.headers["Cache-Control"]
        max_age = int(re.search(r"max-age=(\d+)", css.headers["Cache-Control"]).group(1))
        assert max_age >= 365 * 24 * 3600
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert {"method": "GET", "path": "/", "status": 200}.items() <= lines[1].items()
    assert {"duration_ms", "queries"} <= lines[1].keys()


def test_a_rejected_host_logs_one_line_without_a_traceback(
    tmp_path, collected_static, migrated_sqlite
):
    """Scanners send any Host header; each refusal is one line in the error log, not a
    traceback that buries the errors an operator must see."""
    database = tmp_path / "db.sqlite3"
    shutil.copy(migrated_sqlite, database)
    env = production_env(DATABASE_URL=f"sqlite:///{database}", STATIC_ROOT=str(collected_static))
    log = tmp_path / "gunicorn.log"
    with gunicorn(env, log) as base:
        for path in ("/", "/api/v1/papers/"):
            refused = fetch(base + path, headers={"Host": "scanner.example"})
            assert refused.status == 400
    errors = [line for line in log.read_text().splitlines() if not line.startswith("{")]
    refusals = [line for line in errors if "Invalid HTTP_HOST header" in line]
    assert len(refusals) == 2, errors
    assert not any("Traceback" in line or line.startswith("  File ") for line in errors), errors


def test_head_requests_are_answered_without_a_body_or_a_warning(
    tmp_path, collected_static, migrated_sqlite
):
    """Load balancers, link checkers and feed readers send HEAD all day: each gets the
    headers a GET gets, Content-Length included, and nothing lands in the error log."""
    import urllib.request

    database = tmp_path / "db.sqlite3"
    shutil.copy(migrated_sqlite, database)
    env = production_env(DATABASE_URL=f"sqlite:///{database}", STATIC_ROOT=str(collected_static))
    log = tmp_path / "gunicorn.log"
    with gunicorn(env, log) as base:
        home = fetch(f"{base}/")
        stylesheet = re.search(r'href="(/static/css/site\.[0-9a-f]{12}\.css)"', home.body)[1]
        for path in ("/", "/about", "/feeds/latest.atom", "/api/v1/papers/", stylesheet):
            got = fetch(base + path)
            request = urllib.request.Request(base + path, method="HEAD")
            with urllib.request.urlopen(request, timeout=10) as head:
                assert head.status == got.status == 200, path
                assert head.read() == b"", path
                assert head.headers["Content-Length"] == str(len(got.body.encode())), path
    warnings = [line for line in log.read_text().splitlines() if "no-body response" in line]
    assert warnings == []
