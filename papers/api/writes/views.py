"""Who may make each write call and how it answers.

- No token (or one that does not authenticate): 401. Reads stay open to everyone.
- A contributor's call is validated, then kept as a proposal: 202 {id, status, ...}.
- A trusted contributor's call goes live (201 with the record, 200, or 204 for a
  delete), except deleting a record that is not their kind to delete: only records
  contributed through the API, never the archive's (403).
- Staff may make every call.

Every call: a JSON body of at most API_WRITE_MAX_BYTES (413), validated against its form
in papers.api.writes.fields (400 naming each field), within the token's rate
(papers.contributions.limits: 429 with Retry-After), applied in one transaction with
its revisions and the one refresh (papers.kept.after_write), then the page cache's
version is bumped once the transaction commits.
"""

from __future__ import annotations

import json
import logging

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ObjectDoesNotExist
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from codewithpapers.cache import bump_content_version
from codewithpapers.http import json_error, json_response
from codewithpapers.sessions import api_token
from papers.api import shapes
from papers.api.openapi import INTEGER, STRING, component, declare, nullable, ref
from papers.api.writes.fields import FORMS, UPDATES, checked
from papers.api.writes.operations import (
    Conflict,
    Invalid,
    Outcome,
    result_shape,
    target_of,
)
from papers.api.writes.registry import DELETES, OPERATIONS
from papers.contributions import limits
from papers.contributions.revisions import Actor
from papers.kept import after_write
from papers.models import ApiToken, LeaderboardRow, Level, Paper, Proposal, Record, Revision
from papers.models.contributions import Action, Via

logger = logging.getLogger(__name__)


class Refused(Exception):
    def __init__(self, status: int, message: str, **extra):
        self.status, self.message, self.extra = status, message, extra
        super().__init__(message)


def body_of(request: HttpRequest, operation: str) -> dict:
    """The request's JSON object (413 over the limit, 400 when it is not JSON)."""
    if FORMS.get(operation) is None:
        return {}
    limit = settings.API_WRITE_MAX_BYTES
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > limit:
        raise Refused(413, f"the body is {length} bytes; at most {limit} are taken", limit=limit)
    raw = request.read(limit + 1)
    if len(raw) > limit:
        raise Refused(413, f"the body is over {limit} bytes", limit=limit)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(400, f"the body is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise Refused(400, "the body must be a JSON object")
    return data


def validated(operation: str, body: dict) -> dict:
    cleaned, errors = checked(operation, body)
    if errors:
        first = next(iter(errors))
        raise Refused(400, f"{first}: {' '.join(errors[first])}", field=first, errors=errors)
    return cleaned


def may_delete(token: ApiToken, operation: str, target: dict) -> None:
    """A trusted contributor deletes only what was contributed, never the archive's."""
    if operation not in DELETES or token.level == Level.STAFF:
        return
    record = target_of(operation, target)
    if isinstance(record, Record):
        contributed = record.source == "contributed"
    else:  # a metric: contributed when it was added by a write
        kind = ContentType.objects.get_for_model(type(record))
        contributed = Revision.objects.filter(
            content_type=kind, object_id=record.pk, action=Action.ADD
        ).exists()
    if not contributed:
        raise Refused(403, "a trusted contributor cannot delete archive records (staff can)")


def apply(operation: str, target: dict, data: dict, actor: Actor) -> Outcome:
    """Run the operation, its revisions and the refresh in one transaction; the page
    cache's version is bumped after the commit."""
    with transaction.atomic():
        outcome = OPERATIONS[operation](data, target, actor)
        after_write(
            papers=outcome.papers,
            boards=outcome.boards,
            records=outcome.records,
            author_names=operation == "paper_add",
            kept_boards=outcome.kept_boards,
        )
        transaction.on_commit(bump_content_version)
    return outcome


def answer(outcome: Outcome) -> HttpResponse:
    if outcome.status == 204:
        return HttpResponse(status=204)
    data = outcome.data
    if isinstance(data, LeaderboardRow):
        data = result_shape(data)
    elif isinstance(data, Paper):
        names = [a.name or a.author.name for a in data.authorships.select_related("author")]
        data = shapes.paper(data, names)
    return json_response(data, status=outcome.status)


def propose(token: ApiToken, operation: str, target: dict, data: dict) -> HttpResponse:
    proposal = Proposal.objects.create(
        user=token.user, token=token, operation=operation, target=target, body=data
    )
    return json_response(proposal_shape(proposal), status=202)


@component(
    "Proposal",
    {
        "id": INTEGER,
        "status": {**STRING, "enum": ["pending", "approved", "rejected"]},
        "operation": STRING,
        "target": {"type": "object"},
        "created_at": {**STRING, "format": "date-time"},
        "reason": nullable(STRING),
    },
    description="A contributor's write, kept for review; staff approve or reject it.",
)
def proposal_shape(proposal: Proposal) -> dict:
    return {
        "id": proposal.pk,
        "status": proposal.status,
        "operation": proposal.operation,
        "target": proposal.target,
        "created_at": proposal.created_at.isoformat(),
        "reason": proposal.reason or None,
    }


def _json_safe(data: dict) -> dict:
    """Validated values as JSON keeps them (dates as text)."""
    return json.loads(json.dumps(data, default=str))


def write(request: HttpRequest, operation: str, target: dict) -> HttpResponse:
    token = api_token(request)
    if token is None:
        message = (
            "the token is not valid (revoked, unknown or mistyped)"
            if request.META.get("HTTP_AUTHORIZATION")
            else "writes need an API token: Authorization: Token <key>"
        )
        response = json_error(401, message)
        response["WWW-Authenticate"] = "Token"
        return response
    try:
        wait = limits.take(token)
        if wait:
            raise Refused(429, f"too many writes: try again in {wait} s", retry_after=wait)
        data = _json_safe(validated(operation, body_of(request, operation)))
        if token.level == Level.CONTRIBUTOR:
            target_of(operation, target)  # a proposal for a record that exists
            return propose(token, operation, target, data)
        may_delete(token, operation, target)
        actor = Actor(user=token.user, via=Via.TOKEN, token=token)
        return answer(apply(operation, target, data, actor))
    except Refused as exc:
        response = json_error(exc.status, exc.message, **exc.extra)
        if exc.status == 429:
            response["Retry-After"] = str(exc.extra["retry_after"])
        return response
    except Invalid as exc:
        return json_error(
            400, f"{exc.field}: {exc.message}", field=exc.field, errors={exc.field: [exc.message]}
        )
    except Conflict as exc:
        return json_error(409, str(exc))
    except (Http404, ObjectDoesNotExist):
        return json_error(404, "Not found.")
    except IntegrityError as exc:
        logger.warning("write %s refused by the database: %s", operation, exc)
        return json_error(409, "the write clashes with a record that exists")


# What each write answers, for the schema (papers.api.openapi): its summary and the
# component its live answer is (None: a delete, 204 without a body).
ANSWERS: dict[str, tuple[str, str | None]] = {
    "task_add": ("Add a task", "Task"),
    "task_update": ("Change a task", "Task"),
    "task_delete": ("Delete a task", None),
    "dataset_add": ("Add a dataset", "Dataset"),
    "dataset_update": ("Change a dataset", "Dataset"),
    "dataset_delete": ("Delete a dataset", None),
    "method_update": ("Change a method", "Method"),
    "evaluation_create": ("Add an evaluation table (a leaderboard)", "Evaluation"),
    "evaluation_update": ("Change an evaluation table", "Evaluation"),
    "evaluation_delete": ("Delete an evaluation table", None),
    "evaluation_metric_add": ("Add a metric to an evaluation table", "Metric"),
    "evaluation_metric_update": ("Change a metric", "Metric"),
    "evaluation_metric_delete": ("Delete a metric", None),
    "evaluation_result_add": ("Add a result to an evaluation table", "Result"),
    "evaluation_result_update": ("Change a result", "Result"),
    "evaluation_result_delete": ("Delete a result", None),
    "evaluation_synchronize": (
        "Create or update a whole evaluation table, its metrics and results",
        "EvaluationSync",
    ),
    "paper_add": ("Add a paper", "Paper"),
    "paper_update": (
        "Correct a paper: its title, date, arXiv id, tasks, methods, datasets",
        "Paper",
    ),
    "code_link_add": ("Add a code link to a paper", "Repository"),
}


def described(view, read, writes: dict[str, str]):
    """`view` declares its read's operations and one operation per write method, so the
    schema describes the writes from the forms that validate them."""
    view.openapi = dict(getattr(read, "openapi", None) or {})
    for method, operation in writes.items():
        summary, answer_name = ANSWERS[operation]
        live = 201 if operation.endswith(("_add", "_create")) else 200
        declare(
            summary,
            response=ref(answer_name) if answer_name else None,
            method=method,
            body=FORMS[operation],
            auth="token",
            status=204 if answer_name is None else live,
            partial=operation in UPDATES,
            also={"202": ("Kept as a proposal (a contributor's token)", ref("Proposal"))},
        )(view)
    return view


def methods(read, **writes):
    """One URL's view: GET/HEAD to `read`, each other method to its write operation."""

    @csrf_exempt
    def view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        operation = writes.get(request.method)
        if operation is None:
            return read(request, *args, **kwargs)
        return write(request, operation, kwargs)

    view.writes = writes
    view.__doc__ = read.__doc__
    if getattr(read, "openapi_not_served", None) is None:
        return described(view, read, writes)
    # A write-only route (its read answers 405): only its writes are described.
    return described(view, lambda: None, writes)
