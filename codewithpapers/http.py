"""JSON responses in the API's shape, for the project's own middleware and error
handlers as well as the API (papers.api.http builds on these): the handlers answer a
request under /api/ in JSON whatever raised, before any of the API's code runs."""

from __future__ import annotations

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpResponse

# Paths whose clients parse JSON: the API, and the MCP server's JSON-RPC endpoint.
JSON_PREFIXES = ("/api/", "/mcp")


def answers_json(path: str) -> bool:
    """Whether errors on this path answer in JSON rather than as the site's page."""
    return path.startswith(JSON_PREFIXES)


LICENCE_LINK = '<https://creativecommons.org/licenses/by-sa/4.0/legalcode>; rel="license"'


def json_response(data: Any, status: int = 200) -> HttpResponse:
    """Compact UTF-8 JSON, with the data's licence in a Link header."""
    body = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":"))
    response = HttpResponse(body, content_type="application/json", status=status)
    response["Link"] = LICENCE_LINK
    return response


def json_error(status: int, message: str, **extra) -> HttpResponse:
    """A JSON error. `error` is what paperswithcode-client shows for a 400, `message` what
    it shows for other statuses; both carry the same text."""
    return json_response(
        {"status": status, "error": message, "message": message, **extra}, status=status
    )
