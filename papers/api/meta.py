"""/api/v1/ itself (every resource with its URL) and /api/v1/schema.json (OpenAPI 3.1)."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse

from papers.api import openapi, shapes
from papers.api.http import Payload, endpoint, parameters
from papers.api.lists import NoParameters
from papers.api.openapi import STRING, URL, array, declare, ref, register

ROOT = register(
    "Root",
    {
        "type": "object",
        "properties": {
            "resources": array(
                {
                    "type": "object",
                    "properties": {
                        "name": STRING,
                        "url": STRING,
                        "summary": STRING,
                        "methods": array(STRING),
                    },
                    "required": ["name", "url", "summary", "methods"],
                }
            ),
            "schema": URL,
            "docs": URL,
            "mcp": URL,
            "licence": ref("Licence"),
        },
        "required": ["resources", "schema", "docs", "mcp", "licence"],
    },
)


def summary(operations: dict) -> str:
    """A route's summary: its read's, or for a write-only route its first write's."""
    operation = operations.get("get") or operations[min(operations)]
    return operation.summary


@declare("Every resource of the API with its URL", response=ROOT, query=NoParameters)
@endpoint
def root(request: HttpRequest) -> Payload:
    """Each endpoint's URL (`{name}` marks an id to fill in), the OpenAPI schema, the
    docs page, the MCP server for agents, and the data's licence."""
    parameters(request, NoParameters)
    site = request.build_absolute_uri("/").rstrip("/")
    resources = [
        {
            "name": route.name,
            "url": site + route.path,  # {placeholders} kept as they are
            "summary": summary(route.view.openapi),
            "methods": sorted(method.upper() for method in route.view.openapi),
        }
        for route in openapi.routes()
        if getattr(route.view, "openapi", None)
    ]
    return Payload(
        {
            "resources": resources,
            "schema": request.build_absolute_uri(reverse("api:schema")),
            "docs": request.build_absolute_uri(reverse("api-docs")),
            "mcp": request.build_absolute_uri(reverse("mcp")),
            "licence": shapes.licence(),
        }
    )


@declare(
    "This API in OpenAPI 3.1",
    response={"type": "object", "description": "An OpenAPI 3.1 document."},
    query=NoParameters,
)
@endpoint
def schema(request: HttpRequest) -> Payload:
    """Generated from the views' declarations (papers.api.openapi)."""
    parameters(request, NoParameters)
    return Payload(openapi.schema(request.build_absolute_uri("/")))
