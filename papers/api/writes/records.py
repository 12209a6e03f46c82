"""POST /api/v1/records/: execution records in the seed record's shape (one object, or a
list of them), for the pipeline that runs samples. They go through the archive importer
(kind `records`), so the same rules hold: a paper is keyed by its slug or arXiv id, its
samples by their identity, and pushing the same record twice changes nothing. Only what
the records' papers feed is refreshed. Trusted contributors and staff only: a
contributor's records are not proposals (an execution run is not reviewed by hand)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from codewithpapers.cache import bump_content_version
from codewithpapers.http import json_error, json_response
from codewithpapers.sessions import api_token
from papers.api.openapi import INTEGER, STRING, array, declare, register
from papers.api.writes.views import Refused
from papers.archive.importer import import_files
from papers.contributions import limits
from papers.contributions.revisions import Actor
from papers.models import Level
from papers.models.contributions import Via

MAX_RECORDS = 1000


PUSHED = register(
    "RecordsPushed",
    {
        "type": "object",
        "properties": {
            "status": INTEGER,
            "records": INTEGER,
            "rejected": INTEGER,
            "counts": {"type": "object", "description": "Records written, by kind and outcome."},
            "errors": {**array(STRING), "description": "A line per rejected record."},
        },
    },
)


@declare(
    "Push execution records (the seed record's shape)",
    response=PUSHED,
    method="post",
    body={
        "oneOf": [
            {"type": "object", "description": "One paper's record, as the archive gives it."},
            {"type": "array", "items": {"type": "object"}, "maxItems": MAX_RECORDS},
        ]
    },
    auth="token",
)
@csrf_exempt
def records(request: HttpRequest) -> HttpResponse:
    """Execution records, idempotent per paper and sample; trusted contributors and staff.
    A rejected record is a line in `errors`; all of them rejected: a 400."""
    if request.method != "POST":
        response = json_error(405, f"{request.method} is not allowed: this path takes POST")
        response["Allow"] = "POST"
        return response
    token = api_token(request)
    if token is None:
        response = json_error(401, "writes need an API token: Authorization: Token <key>")
        response["WWW-Authenticate"] = "Token"
        return response
    if token.level == Level.CONTRIBUTOR:
        return json_error(403, "records are pushed by trusted contributors and staff")
    try:
        if wait := limits.take(token):
            raise Refused(429, f"too many writes: try again in {wait} s", retry_after=wait)
        items = _items(request)
    except Refused as exc:
        response = json_error(exc.status, exc.message, **exc.extra)
        if exc.status == 429:
            response["Retry-After"] = str(exc.extra["retry_after"])
        return response
    return _pushed(items, token)


def _pushed(items: list[dict], token) -> HttpResponse:
    """The records through the importer, as the token's user; what it wrote and refused."""
    rejected: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "records.jsonl"
        path.write_text("".join(json.dumps(item) + "\n" for item in items))
        result = import_files(
            [path],
            kind="records",
            workers=0,
            local_refresh=True,
            report=rejected.append,
            actor=Actor(user=token.user, via=Via.TOKEN, token=token,
                        comment=f"{len(items)} records pushed"),
        )  # fmt: skip
    transaction.on_commit(bump_content_version)
    counts = {m: dict(c) for m, c in result.stats.counts.items() if c}
    status = 400 if result.rejections == len(items) else 200
    return json_response(
        {
            "status": status,
            "records": len(items),
            "rejected": result.rejections,
            "counts": counts,
            "errors": [line.replace(str(path), "records") for line in rejected][:100],
        },
        status=status,
    )


def _items(request: HttpRequest) -> list[dict]:
    from django.conf import settings

    limit = settings.API_WRITE_MAX_BYTES
    raw = request.read(limit + 1)
    if len(raw) > limit:
        raise Refused(413, f"the body is over {limit} bytes", limit=limit)
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(400, f"the body is not JSON: {exc}") from exc
    items = data if isinstance(data, list) else [data]
    if not items or not all(isinstance(item, dict) for item in items):
        raise Refused(400, "the body is a record (a JSON object) or a list of them")
    if len(items) > MAX_RECORDS:
        raise Refused(413, f"{len(items)} records; at most {MAX_RECORDS} a call")
    return items
