"""The API described in OpenAPI 3.1, generated from the code that serves it.

Each view declares what it serves with `@declare(...)`: its response shape (a schema
registered beside the function that builds it, `@component` in papers.api.shapes), the
form that validates its query parameters (the same form `parameters()` reads) and, for a
write, the form that validates its request body and the auth it needs. `schema()` walks
the /api/v1/ URLconf: every named route is a path, its converters are the path
parameters, and a route whose view declares nothing is an error, so an endpoint cannot be
served without being described (tests/api/test_openapi.py checks both directions).

A write view adds, for example:

    @declare(
        "Create a task",
        response=ref("Task"),
        method="post",
        body=TaskCreateForm,   # its fields (required or not, types, limits) are the body
        auth="token",          # a securitySchemes name: the view needs `Authorization: Token …`
        status=201,
    )
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ImproperlyConfigured
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.urls import URLPattern, URLResolver, get_resolver

API_PREFIX = "/api/v1/"
OPENAPI_VERSION = "3.1.0"

# --- JSON Schema fragments ------------------------------------------------------------------

STRING = {"type": "string"}
INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
URL = {"type": "string", "format": "uri"}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema, or null."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def ref(name: str) -> dict[str, Any]:
    if name not in COMPONENTS:
        raise ImproperlyConfigured(f"no schema component named {name!r}")
    return {"$ref": f"#/components/schemas/{name}"}


# Component schemas by name, registered by @component where each shape is built.
COMPONENTS: dict[str, dict[str, Any]] = {}


def component(
    name: str,
    properties: dict[str, Any],
    *,
    description: str = "",
    optional: tuple[str, ...] = (),
    open_ended: bool = False,
) -> Callable:
    """Registers the JSON Schema of what the decorated function returns, as component
    `name`. Every property is required (always present, maybe null) unless named in
    `optional`; `open_ended` allows keys beyond `properties`."""

    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": [key for key in properties if key not in optional],
        "additionalProperties": open_ended,
    }
    if description:
        schema["description"] = description

    def decorate(function: Callable) -> Callable:
        COMPONENTS[name] = schema
        function.schema_name = name
        return function

    return decorate


def register(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A component that no single function builds (a page, an error); returns its ref."""
    COMPONENTS[name] = schema
    return ref(name)


ERROR = register(
    "Error",
    {
        "type": "object",
        "properties": {
            "status": INTEGER,
            "error": STRING,
            "message": STRING,
            "parameter": {**STRING, "description": "The query parameter at fault (400)."},
        },
        "required": ["status", "error", "message"],
    },
)


def page(items: dict[str, Any], **extra: dict[str, Any]) -> dict[str, Any]:
    """The schema of a page of `items`: {count, next, previous, results} and `extra`."""
    return {
        "type": "object",
        "properties": {
            "count": {**INTEGER, "description": "Items in the whole list."},
            "next": nullable({**URL, "description": "The next page, same parameters."}),
            "previous": nullable(URL),
            "results": array(items),
            **extra,
        },
        "required": ["count", "next", "previous", "results", *extra],
        "additionalProperties": False,
    }


# --- declarations --------------------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    summary: str
    response: dict[str, Any]
    query: type[forms.Form] | None = None
    # The form validating the JSON body, or the body's JSON Schema where no form does.
    body: type[forms.Form] | dict[str, Any] | None = None
    auth: str | None = None
    status: int = 200
    description: str = ""
    # An update's body: every field optional (null or absent is "not given").
    partial: bool = False
    # Other answers than `status`: {"202": ("Kept as a proposal", ref("Proposal")), …};
    # the schema may be None (no body).
    also: tuple[tuple[str, str, dict[str, Any] | None], ...] = ()


def declare(
    summary: str,
    *,
    response: dict[str, Any],
    method: str = "get",
    query: type[forms.Form] | None = None,
    body: type[forms.Form] | dict[str, Any] | None = None,
    auth: str | None = None,
    status: int = 200,
    partial: bool = False,
    also: dict[str, tuple[str, dict[str, Any] | None]] | None = None,
) -> Callable:
    """Declares one HTTP method of the decorated view for the schema: what it answers
    (`response`, a JSON Schema or ref(); None with status 204), the form validating its
    query parameters, and for a write the form validating its JSON body (`partial`: an
    update, every field optional), the security scheme it needs and its other answers
    (`also`: status → (description, schema or None)). The view's docstring is the
    operation's description. Stack one per method."""

    method = method.lower()

    def decorate(view: Callable) -> Callable:
        description = inspect.cleandoc(view.__doc__ or "")
        operations = dict(getattr(view, "openapi", None) or {})
        operations[method] = Operation(
            summary,
            response,
            query,
            body,
            auth,
            status,
            description=description,
            partial=partial,
            also=tuple((code, text, schema) for code, (text, schema) in (also or {}).items()),
        )
        view.openapi = operations
        return view

    return decorate


def not_served(reason: str) -> Callable:
    """Marks a route that serves nothing (it exists to answer with an error): the schema
    leaves it out, and says why in `x-not-served`."""

    def decorate(view: Callable) -> Callable:
        view.openapi_not_served = reason
        return view

    return decorate


SECURITY_SCHEMES = {
    "token": {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "`Authorization: Token <key>`, as paperswithcode-client sends it.",
    }
}


# --- form fields as JSON Schema -------------------------------------------------------------


def field_schema(f: forms.Field) -> dict[str, Any]:
    """A form field's accepted values as JSON Schema (query strings are text: an integer
    parameter is a string of digits, described as the integer it must be). A field class
    of our own that the form types below do not describe sets `json_schema`."""
    if isinstance(getattr(f, "json_schema", None), dict):
        schema = dict(f.json_schema)
    elif isinstance(f, forms.ChoiceField):
        values = [str(value) for value, _ in f.choices if value != ""]
        schema: dict[str, Any] = {**STRING, "enum": values}
        if isinstance(f, forms.MultipleChoiceField):
            schema = array(schema)
    elif isinstance(f, forms.IntegerField):
        schema = dict(INTEGER)
    elif isinstance(f, forms.FloatField | forms.DecimalField):
        schema = dict(NUMBER)
    elif isinstance(f, forms.BooleanField | forms.NullBooleanField):
        schema = dict(BOOLEAN)
    elif isinstance(f, forms.DateTimeField):
        schema = {**STRING, "format": "date-time"}
    elif isinstance(f, forms.DateField):
        schema = {**STRING, "format": "date"}
    elif isinstance(f, forms.URLField):
        schema = dict(URL)
    elif isinstance(f, forms.JSONField):
        schema = {}
    else:
        schema = dict(STRING)
        choices = getattr(f, "ON", None), getattr(f, "OFF", None)
        if all(isinstance(c, set) for c in choices):  # papers.forms.Flag
            schema["enum"] = sorted(choices[0] | choices[1])
    for validator in f.validators:
        if isinstance(validator, MinValueValidator):
            schema["minimum"] = validator.limit_value
        elif isinstance(validator, MaxValueValidator):
            schema["maximum"] = validator.limit_value
        elif isinstance(validator, MaxLengthValidator) and schema.get("type") == "string":
            schema["maxLength"] = validator.limit_value
    if f.help_text:
        schema["description"] = str(f.help_text)
    return schema


def form_fields(form_class: type[forms.Form]) -> dict[str, forms.Field]:
    return {name: f for name, f in form_class.base_fields.items() if f is not None}


def query_parameters(form_class: type[forms.Form] | None) -> list[dict[str, Any]]:
    if form_class is None:
        return []
    return [
        {"name": name, "in": "query", "required": f.required, "schema": field_schema(f)}
        for name, f in form_fields(form_class).items()
    ]


def body_schema(form_class: type[forms.Form], *, partial: bool = False) -> dict[str, Any]:
    """The JSON object the form validates; in an update (`partial`) every field may be
    absent or null."""
    fields = form_fields(form_class)
    properties = {name: field_schema(f) for name, f in fields.items()}
    if partial:
        properties = {name: nullable(schema) for name, schema in properties.items()}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    required = [] if partial else [name for name, f in fields.items() if f.required]
    if required:
        schema["required"] = required
    return schema


# --- the URLconf as paths ---------------------------------------------------------------------

_CONVERTER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


@dataclass(frozen=True)
class Route:
    path: str  # /api/v1/papers/{paper_id}/
    name: str
    view: Callable
    parameters: tuple[tuple[str, str], ...]  # (name, converter)


def api_patterns() -> list:
    """The /api/v1/ URLconf's patterns, as the site's resolver holds them (read through
    the resolver, so this module imports no view)."""
    for candidate in get_resolver().url_patterns:
        if isinstance(candidate, URLResolver) and candidate.namespace == "api":
            return candidate.url_patterns
    raise ImproperlyConfigured("no URLconf included under the namespace 'api'")


def routes() -> list[Route]:
    """Every named route under /api/v1/ (the unnamed ones are the same routes without
    their trailing slash, and the catch-all 404)."""
    found = []
    for pattern in api_patterns():
        if isinstance(pattern, URLResolver) or not isinstance(pattern, URLPattern):
            continue
        if not pattern.name:
            continue
        route = str(pattern.pattern)
        parameters = tuple(
            (m["name"], m["converter"] or "str") for m in _CONVERTER.finditer(route)
        )
        path = API_PREFIX + _CONVERTER.sub(lambda m: "{" + m["name"] + "}", route)
        found.append(Route(path, pattern.name, pattern.callback, parameters))
    return found


def path_parameter(name: str, converter: str) -> dict[str, Any]:
    schema: dict[str, Any] = dict(STRING)
    if converter == "int":
        schema = {**INTEGER, "minimum": 0}
    parameter = {"name": name, "in": "path", "required": True, "schema": schema}
    if converter == "path":
        parameter["description"] = "May contain `/` (a nested group: `group/subgroup`)."
    return parameter


def responses(operation: Operation, route: Route, method: str) -> dict[str, Any]:
    def error(description: str) -> dict[str, Any]:
        return {"description": description, "content": {"application/json": {"schema": ERROR}}}

    def answer(description: str, schema: dict[str, Any] | None) -> dict[str, Any]:
        if schema is None:
            return {"description": description}
        return {"description": description, "content": {"application/json": {"schema": schema}}}

    found: dict[str, Any] = {str(operation.status): answer(operation.summary, operation.response)}
    for code, description, schema in operation.also:
        found[code] = answer(description, schema)
    if method == "get":
        found["304"] = {"description": "Not modified (If-None-Match / If-Modified-Since)."}
    if (operation.query is not None and form_fields(operation.query)) or operation.body:
        found["400"] = error("A parameter or field is unknown or invalid; the error names it.")
    if operation.auth:
        found["401"] = error("No valid token.")
        found["403"] = error("The token may not do this.")
    if route.parameters:
        found["404"] = error("No such object.")
    found["429"] = error("Over the rate limit; Retry-After says when to come back.")
    return found


def operation_object(operation: Operation, route: Route, method: str) -> dict[str, Any]:
    tag = route.path.removeprefix(API_PREFIX).split("/", 1)[0] or "root"
    found: dict[str, Any] = {
        "operationId": f"{route.name}-{method}",
        "summary": operation.summary,
        "tags": [tag],
        "parameters": [path_parameter(n, c) for n, c in route.parameters]
        + query_parameters(operation.query),
        "responses": responses(operation, route, method),
    }
    if operation.description:
        found["description"] = operation.description
    if operation.body is not None:
        found["requestBody"] = {
            "required": True,
            "content": {
                "application/json": {
                    "schema": operation.body
                    if isinstance(operation.body, dict)
                    else body_schema(operation.body, partial=operation.partial)
                }
            },
        }
    if operation.auth:
        if operation.auth not in SECURITY_SCHEMES:
            raise ImproperlyConfigured(f"{route.name}: unknown security scheme {operation.auth!r}")
        found["security"] = [{operation.auth: []}]
    return found


@functools.cache
def _document() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    left_out: dict[str, str] = {}
    for route in routes():
        reason = getattr(route.view, "openapi_not_served", None)
        if reason:
            left_out[route.path] = reason
            continue
        operations = getattr(route.view, "openapi", None)
        if not operations:
            raise ImproperlyConfigured(
                f"{route.path} ({route.name}) is served but not described: "
                "decorate its view with papers.api.openapi.declare()"
            )
        paths[route.path] = {
            method: operation_object(op, route, method) for method, op in operations.items()
        }
    # Shapes register their components on import: the views, loaded with the URLconf
    # walked above, import papers.api.shapes.
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Code with Papers API",
            "version": "1",
            "summary": "The Papers with Code archive, with execution reports on the linked code.",
            "description": (
                "The shape of the original Papers with Code API (paperswithcode-client "
                "0.3.1 works against it), plus execution reports. Lists are pages of at "
                "most 500. Errors are JSON. The data is CC BY-SA 4.0."
            ),
            "license": {
                "name": "CC BY-SA 4.0 (the data)",
                "url": "https://creativecommons.org/licenses/by-sa/4.0/legalcode",
            },
        },
        "paths": paths,
        "components": {"schemas": dict(COMPONENTS), "securitySchemes": SECURITY_SCHEMES},
        "x-not-served": left_out,
    }


def schema(base_url: str = "") -> dict[str, Any]:
    """The OpenAPI document; `base_url` (the site's, "https://host") becomes its server."""
    document = dict(_document())
    document["servers"] = [{"url": base_url.rstrip("/") or "/"}]
    return document
