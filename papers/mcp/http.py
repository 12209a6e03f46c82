"""/mcp: the MCP server over streamable HTTP, served by the Django (WSGI) deployment.

Stateless, JSON responses: every POST is one JSON-RPC exchange, answered whole, so any
worker of any replica can answer it and nothing is kept between requests. The view hands
the request to the SDK's own StreamableHTTPSessionManager (one per request, since a
manager runs once) in an event loop of asgiref's async_to_sync; the tools' database work
comes back to this request's thread (papers.mcp.server.run). The rate limit, logging
and Host checks are the site's middleware, as for /api/.
"""

from __future__ import annotations

from typing import Any

import anyio
from asgiref.sync import async_to_sync
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from codewithpapers.http import json_error
from papers.mcp.server import server

MAX_BODY = 1 << 20  # a JSON-RPC request of a read-only tool is a few hundred bytes


def scope_of(request: HttpRequest) -> dict[str, Any]:
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1", "replace"))
        for name, value in request.headers.items()
    ]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode("utf-8"),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1", "replace"),
        "root_path": "",
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (request.get_host(), int(request.get_port() or 80)),
    }


async def exchange(scope: dict[str, Any], body: bytes) -> tuple[int, list, bytes]:
    """The SDK's answer to one request: (status, headers, body)."""
    manager = StreamableHTTPSessionManager(
        app=server()._lowlevel_server, json_response=True, stateless=True
    )
    answered = anyio.Event()
    delivered = False
    status, headers, chunks = 500, [], []

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # the client never leaves before the answer
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status, headers = message["status"], message.get("headers", [])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                answered.set()

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    answered.set()
    return status, headers, b"".join(chunks)


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > MAX_BODY:
        return json_error(413, f"the request body is over {MAX_BODY} bytes")
    status, headers, body = async_to_sync(exchange)(scope_of(request), request.body)
    response = HttpResponse(body, status=status)
    for name, value in headers:
        key = name.decode("latin-1")
        if key.lower() in ("content-length", "connection", "transfer-encoding"):
            continue
        response[key] = value.decode("latin-1")
    return response
