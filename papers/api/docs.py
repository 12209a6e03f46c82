"""/api/docs: the OpenAPI schema rendered as a page, on the server (no script, no CDN)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_safe

from codewithpapers.middleware import reads
from papers.api import openapi

REF = "#/components/schemas/"


def type_html(schema: dict[str, Any]) -> SafeString:
    """A schema as a short phrase: a link to a component, "page of Paper", "string or
    null", "one of a, b"."""
    if not schema:
        return mark_safe("any JSON")
    if "$ref" in schema:
        name = schema["$ref"].removeprefix(REF)
        return format_html('<a href="#schema-{}">{}</a>', name, name)
    if "anyOf" in schema:
        return mark_safe(" or ".join(type_html(s) for s in schema["anyOf"]))
    kind = schema.get("type")
    if isinstance(kind, list):
        others = [k for k in kind if k != "null"]
        text = (
            type_html({**schema, "type": others[0]}) if len(others) == 1 else " or ".join(others)
        )
        return format_html("{} or null", text) if "null" in kind else mark_safe(text)
    if "enum" in schema:
        return format_html(
            "one of {}", format_html_join(", ", "<code>{}</code>", ((v,) for v in schema["enum"]))
        )
    if kind == "array":
        return format_html("list of {}", type_html(schema.get("items", {})))
    if kind == "object" and "results" in schema.get("properties", {}):
        items = schema["properties"]["results"].get("items", {})
        extra = [
            k for k in schema["properties"] if k not in ("count", "next", "previous", "results")
        ]
        extra_html = format_html(" with {}", ", ".join(extra)) if extra else ""
        return format_html("page of {}{}", type_html(items), extra_html)
    if kind == "object" and "additionalProperties" in schema and not schema.get("properties"):
        values = schema["additionalProperties"]
        if isinstance(values, dict):
            return format_html("object of name → {}", type_html(values))
    text = kind or "value"
    if schema.get("format"):
        text = f"{text} ({schema['format']})"
    limits = [
        f"{label} {schema[key]}"
        for key, label in (("minimum", "≥"), ("maximum", "≤"), ("maxLength", "at most"))
        if key in schema
    ]
    if limits:
        text = f"{text}, {', '.join(limits)}" + (" characters" if "maxLength" in schema else "")
    return format_html("{}", text)


def answer_html(response: dict[str, Any]) -> SafeString:
    content = response.get("content", {}).get("application/json")
    return type_html(content["schema"]) if content else mark_safe("no body")


def operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Operations grouped by tag, in the schema's order."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for path, methods in document["paths"].items():
        for method, op in methods.items():
            success = next(code for code in op["responses"] if code.startswith("2"))
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
            groups.setdefault(op["tags"][0], []).append(
                {
                    "id": op["operationId"],
                    "method": method.upper(),
                    "path": path,
                    "summary": op["summary"],
                    "description": op.get("description", ""),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": p["required"],
                            "type": type_html(p["schema"]),
                            "description": p.get("description")
                            or p["schema"].get("description", ""),
                        }
                        for p in op["parameters"]
                    ],
                    "body": properties(body["schema"]) if body else None,
                    "security": [name for s in op.get("security", []) for name in s],
                    "status": success,
                    "response": answer_html(op["responses"][success]),
                    "others": [
                        {"status": code, "response": answer_html(response)}
                        for code, response in op["responses"].items()
                        if code[0] == "2" and code != success
                    ],
                    "errors": [code for code in op["responses"] if code[0] in "45"],
                }
            )
    return [{"tag": tag, "operations": ops} for tag, ops in groups.items()]


def properties(schema: dict[str, Any]) -> list[dict[str, Any]]:
    required = set(schema.get("required", []))
    return [
        {
            "name": name,
            "type": type_html(prop),
            "required": name in required,
            "description": prop.get("description", ""),
        }
        for name, prop in schema.get("properties", {}).items()
    ]


@reads()
@require_safe
def docs(request: HttpRequest) -> HttpResponse:
    document = openapi.schema(request.build_absolute_uri("/"))
    components = [
        {
            "name": name,
            "description": schema.get("description", ""),
            "properties": properties(schema),
            "open_ended": schema.get("additionalProperties") not in (None, False),
        }
        for name, schema in document["components"]["schemas"].items()
        if schema.get("type") == "object"
    ]
    return render(
        request,
        "api/docs.html",
        {
            "info": document["info"],
            "groups": operations(document),
            "components": components,
            "security": document["components"]["securitySchemes"],
            "schema_url": reverse("api:schema"),
            "root_url": reverse("api:root"),
            "mcp_url": request.build_absolute_uri(reverse("mcp")),
        },
    )
