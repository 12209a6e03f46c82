"""The API's description: /api/v1/ lists every resource, /api/v1/schema.json is a valid
OpenAPI 3.1 document generated from the views, every endpoint served is in it and every
endpoint in it is served (and answers what it says), and /api/docs renders it."""

from __future__ import annotations

import re

import jsonschema
import pytest
from django import forms
from django.core.exceptions import ImproperlyConfigured
from django.urls import URLPattern
from openapi_spec_validator import validate

from papers.api import openapi
from papers.api import urls as api_urls
from papers.models import Author

pytestmark = pytest.mark.django_db

# A value for each path parameter, naming what the `graph` fixture builds.
IDS = {
    "paper_id": "paper-1",
    "owner": "lab1",
    "name": "model1",
    "author_id": Author.slug_for("First Author1"),
    "conference_id": "icml",
    "proceeding_id": "icml-2020-7",
    "area_id": "vision",
    "task_id": "task-1",
    "dataset_id": "dataset-1",
    "method_id": "method-1",
    "evaluation_id": "task-1--dataset-1",
    "metric_id": "top-1-accuracy",
    "result_id": "row-1",
}


@pytest.fixture
def document(client) -> dict:
    response = client.get("/api/v1/schema.json")
    assert response.status_code == 200
    return response.json()


def test_the_schema_is_valid_openapi_3_1(document):
    validate(document)
    assert document["openapi"].startswith("3.1")


def test_the_served_schema_is_the_generated_one(document):
    assert document == openapi.schema("http://testserver/")


def test_every_served_endpoint_is_in_the_schema(document):
    """Every route under /api/v1/ (with or without its trailing slash) is a path of the
    schema, except the catch-all 404 and the routes that serve nothing, which say why."""
    paths = set(document["paths"])
    not_served = document["x-not-served"]
    for pattern in api_urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        route = str(pattern.pattern)
        if route == "^.*$":
            continue
        path = "/api/v1/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
        candidates = {path, path + "/", path.rstrip("/") + "/"}
        assert candidates & (paths | set(not_served)), f"{path} is served but not in the schema"
    assert all(reason for reason in not_served.values())


# Paths whose list is empty for the ids above.
OTHER_IDS = {"/api/v1/tasks/{task_id}/parents/": {"task_id": "subtask-1"}}


def fill(path: str) -> str:
    ids = IDS | OTHER_IDS.get(path, {})
    return re.sub(r"\{(\w+)\}", lambda m: ids[m[1]], path)


def response_schema(document: dict, path: str, method: str = "get") -> dict:
    operation = document["paths"][path][method]
    success = next(code for code in operation["responses"] if code.startswith("2"))
    schema = operation["responses"][success]["content"]["application/json"]["schema"]
    return {**schema, "components": document["components"]}


def test_every_endpoint_in_the_schema_is_served_and_answers_its_shape(graph, client, document):
    """Each path, its ids filled in from the data, answers 200 with a body the schema's
    response describes (components resolved, no extra keys where it allows none); each
    write it declares is served (refused without a token, not a 404 or a 405)."""
    for path, methods in document["paths"].items():
        for method in set(methods) - {"get"}:  # a write, without its token or body: refused
            # by the endpoint (400, 401, 403), never "no such endpoint" or "not allowed"
            answer = client.generic(method.upper(), fill(path), b"{}", "application/json")
            assert answer.status_code in (400, 401, 403), (method, path, answer.status_code)
        if "get" not in methods:
            continue
        response = client.get(fill(path))
        assert response.status_code == 200, (path, response.content[:300])
        body = response.json()
        if isinstance(body, dict) and "results" in body:
            assert body["results"], f"{path}: the fixture should give it something to list"
        jsonschema.validate(body, response_schema(document, path))


def test_query_parameters_are_the_forms_that_validate_them(document):
    """A parameter the schema names is accepted; its limits are the form's."""
    papers = {p["name"]: p for p in document["paths"]["/api/v1/papers/"]["get"]["parameters"]}
    assert {"q", "arxiv_id", "title", "abstract", "page", "items_per_page"} <= set(papers)
    assert papers["page"]["schema"]["minimum"] == 1
    results = document["paths"]["/api/v1/evaluations/{evaluation_id}/results/"]["get"]
    has_report = {p["name"]: p for p in results["parameters"]}["has_report"]
    assert "true" in has_report["schema"]["enum"]
    owner = document["paths"]["/api/v1/repositories/{owner}/{name}/"]["get"]["parameters"][0]
    assert owner["in"] == "path" and "/" in owner["description"]


def test_the_root_lists_every_resource_with_its_url(client, document):
    response = client.get("/api/v1/")
    assert response.status_code == 200
    root = response.json()
    listed = {r["url"].removeprefix("http://testserver") for r in root["resources"]}
    assert listed == set(document["paths"])
    assert root["schema"] == "http://testserver/api/v1/schema.json"
    assert root["docs"] == "http://testserver/api/docs"
    assert root["mcp"] == "http://testserver/mcp"
    assert root["licence"]["licence"] == "CC BY-SA 4.0"
    jsonschema.validate(root, response_schema(document, "/api/v1/"))


def test_an_undescribed_endpoint_stops_the_schema(monkeypatch):
    """A view served under /api/v1/ without a declaration is an error, not a silent gap."""

    def bare(request):
        raise AssertionError

    route = openapi.Route("/api/v1/bare/", "bare", bare, ())
    monkeypatch.setattr(openapi, "routes", lambda: [route])
    openapi._document.cache_clear()
    try:
        with pytest.raises(ImproperlyConfigured, match="not described"):
            openapi.schema()
    finally:
        monkeypatch.undo()
        openapi._document.cache_clear()


def test_a_write_declares_its_body_and_its_auth():
    """What a write view adds to appear in the schema: its method, body form and auth."""

    class Flag(forms.Field):
        json_schema = {"type": "boolean"}

    class TaskCreate(forms.Form):
        name = forms.CharField(max_length=255)
        description = forms.CharField(required=False)
        area = forms.CharField(required=False)
        public = Flag(required=False)

    @openapi.declare("Create a task", response=openapi.ref("Task"), query=None)
    @openapi.declare(
        "Create a task",
        response=openapi.ref("Task"),
        method="post",
        body=TaskCreate,
        auth="token",
        status=201,
    )
    def tasks(request):
        """Adds a task."""

    @openapi.declare(
        "Change a task",
        response=openapi.ref("Task"),
        method="patch",
        body=TaskCreate,
        auth="token",
        partial=True,
        also={"202": ("Kept as a proposal", {"type": "object"})},
    )
    @openapi.declare("Delete a task", response=None, method="delete", auth="token", status=204)
    def task(request, task_id):
        """One task."""

    route = openapi.Route("/api/v1/tasks/", "task-list", tasks, ())
    post = openapi.operation_object(tasks.openapi["post"], route, "post")
    body = post["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["name"]
    assert body["properties"]["name"] == {"type": "string", "maxLength": 255}
    assert body["properties"]["public"] == {"type": "boolean"}
    assert post["security"] == [{"token": []}]
    assert {"201", "400", "401", "403", "429"} <= set(post["responses"])
    one = openapi.Route("/api/v1/tasks/{task_id}/", "task", task, (("task_id", "str"),))
    patch = openapi.operation_object(task.openapi["patch"], one, "patch")
    update = patch["requestBody"]["content"]["application/json"]["schema"]
    assert "required" not in update
    assert update["properties"]["name"]["type"] == ["string", "null"]
    assert "content" in patch["responses"]["202"]
    delete = openapi.operation_object(task.openapi["delete"], one, "delete")
    assert "content" not in delete["responses"]["204"] and "requestBody" not in delete
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {route.path: {"post": post}, one.path: {"patch": patch, "delete": delete}},
        "components": {
            "schemas": openapi.COMPONENTS,
            "securitySchemes": openapi.SECURITY_SCHEMES,
        },
    }
    validate(document)


def test_the_docs_page_renders_every_endpoint_without_scripts_from_elsewhere(client, document):
    response = client.get("/api/docs")
    assert response.status_code == 200
    html = response.content.decode()
    for path in document["paths"]:
        assert path in html.replace("&#x27;", "'"), path
    for name in document["components"]["schemas"]:
        assert f'id="schema-{name}"' in html or name in ("Root",)
    assert "Content-Security-Policy" in response.headers
    assert not re.search(r"<script[^>]+src=\"https?://", html)
    assert not re.search(r"<link[^>]+href=\"https?://[^\"]+\.css", html)
    assert "/mcp" in html


@pytest.mark.parametrize("url", ["/", "/about", "/search?q=attention"])
def test_every_page_links_the_api_docs(client, url, graph):
    response = client.get(url)
    assert response.status_code == 200
    assert 'href="/api/docs"' in response.content.decode()
