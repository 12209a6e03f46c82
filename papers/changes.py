"""Recent changes: every revision (papers.contributions.revisions) and every proposal
still waiting or refused, newest first, one list for /changes, and the revisions of a
task or a board for their Atom feeds (papers.feeds).

The list merges two tables, each read newest first by its primary key with a keyset
(`id < cursor`, LIMIT size + 1): one index scan a table however deep the page, where
an offset would walk every row before it, and no count of a table that grows with
every write. The next page's cursor is the last id shown of each table.

A page reads at most: the user its filter names, its revisions, its proposals, and one
query per kind of record it links to (papers, boards, tasks, datasets, methods,
repositories): never a query per revision.
"""

from __future__ import annotations

import datetime as dt
import heapq
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db.models import CharField, F, Q, QuerySet, Value
from django.urls import reverse
from django.utils import timezone

from papers.identifiers import board_slug, split_evaluation_id
from papers.models import (
    CodeLink,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    Paper,
    Proposal,
    Repository,
    ResultVerification,
    Revision,
    Task,
)
from papers.models.contributions import Action, Status

PER_PAGE = 50


@dataclass(frozen=True)
class Kind:
    label: str
    models: tuple = ()
    operations: tuple[str, ...] = ()


# The kinds of record /changes filters by: the models whose revisions each takes, and the
# write calls (papers.api.writes.registry) whose proposals it takes.
KINDS: dict[str, Kind] = {
    "paper": Kind("Papers", (Paper,), ("paper_add", "paper_update")),
    "code": Kind("Code links and repositories", (CodeLink, Repository), ("code_link_add",)),
    "result": Kind(
        "Results",
        (LeaderboardRow, ResultVerification),
        ("evaluation_result_add", "evaluation_result_update", "evaluation_result_delete"),
    ),
    "board": Kind(
        "Boards",
        (Leaderboard,),
        (
            "evaluation_create",
            "evaluation_update",
            "evaluation_delete",
            "evaluation_synchronize",
        ),
    ),
    "metric": Kind(
        "Metrics",
        (LeaderboardMetric,),
        ("evaluation_metric_add", "evaluation_metric_update", "evaluation_metric_delete"),
    ),
    "task": Kind("Tasks", (Task,), ("task_add", "task_update", "task_delete")),
    "dataset": Kind("Datasets", (Dataset,), ("dataset_add", "dataset_update", "dataset_delete")),
    "method": Kind("Methods", (Method,), ("method_update",)),
    "import": Kind("Imports"),
}

# What the status filter keeps: "live" is a revision (a write that went live, or an
# import); the others are proposals in that state.
STATUSES = {
    "live": "Live (revisions)",
    Status.PENDING: "Pending proposals",
    Status.APPROVED: "Approved proposals",
    Status.REJECTED: "Rejected proposals",
}
# Unfiltered, an approved proposal is shown by the revisions it applied (which name its
# contributor and its moderator), not a second time.
UNFILTERED_PROPOSALS = (Status.PENDING, Status.REJECTED)

# The record pages that have a history page (papers.views.history), by model.
HISTORY_KINDS = {
    Paper: "paper",
    Leaderboard: "sota",
    Task: "task",
    Dataset: "dataset",
    Method: "method",
}


@dataclass
class Change:
    """One entry of the list: a revision or a proposal, with the record it is about."""

    revision: Revision | None = None
    proposal: Proposal | None = None
    record_url: str = ""
    history_url: str = ""
    record_name: str = ""
    kind: str = ""
    summary: str = ""

    @property
    def created_at(self):
        return (self.revision or self.proposal).created_at


@dataclass
class ChangesPage:
    changes: list[Change]
    has_next: bool
    revisions_before: int | None = None
    proposals_before: int | None = None
    user_missing: bool = False
    notices: list[str] = field(default_factory=list)


def kind_of_model(model) -> str:
    for name, kind in KINDS.items():
        if model in kind.models:
            return name
    return ""


def kind_of_operation(operation: str) -> str:
    for name, kind in KINDS.items():
        if operation in kind.operations:
            return name
    return ""


def revisions_of(kind: str = "", user=None, status: str = "") -> QuerySet[Revision] | None:
    """The revisions the filters keep (None: none can be, a proposal status was chosen)."""
    if status and status != "live":
        return None
    revisions = Revision.objects.select_related("user", "moderator", "content_type")
    if kind == "import":
        # An import run names no record: its null content type is what an index finds.
        revisions = revisions.filter(content_type__isnull=True, action=Action.IMPORT)
    elif kind:
        types = ContentType.objects.get_for_models(*KINDS[kind].models).values()
        revisions = revisions.filter(content_type__in=[t.pk for t in types])
    if user is not None:
        revisions = revisions.filter(user=user)
    return revisions.order_by("-id")


def proposals_of(kind: str = "", user=None, status: str = "") -> QuerySet[Proposal] | None:
    """The proposals the filters keep (None: none can be)."""
    if status == "live" or (kind and not KINDS[kind].operations):
        return None
    proposals = Proposal.objects.select_related("user", "moderator")
    proposals = proposals.filter(status__in=[status] if status else UNFILTERED_PROPOSALS)
    if kind:
        proposals = proposals.filter(operation__in=KINDS[kind].operations)
    if user is not None:
        proposals = proposals.filter(user=user)
    return proposals.order_by("-id")


def user_named(name: str):
    users = get_user_model()
    return users._default_manager.filter(**{users.USERNAME_FIELD: name}).first()


def _before(queryset: QuerySet | None, cursor: int | None, size: int) -> list:
    if queryset is None:
        return []
    if cursor is not None:
        queryset = queryset.filter(id__lt=cursor)
    return list(queryset[: size + 1])


def changes_page(
    *,
    kind: str = "",
    user_name: str = "",
    status: str = "",
    revisions_before: int | None = None,
    proposals_before: int | None = None,
    size: int = PER_PAGE,
) -> ChangesPage:
    """One page of the list, newest first, and the cursors of the next."""
    user = None
    if user_name:
        user = user_named(user_name)
        if user is None:
            return ChangesPage([], False, user_missing=True)
    revisions = _before(revisions_of(kind, user, status), revisions_before, size)
    proposals = _before(proposals_of(kind, user, status), proposals_before, size)
    merged = list(
        heapq.merge(
            [Change(revision=r) for r in revisions],
            [Change(proposal=p) for p in proposals],
            key=lambda change: change.created_at,
            reverse=True,
        )
    )
    shown = merged[:size]
    link(shown)
    return ChangesPage(
        shown,
        len(merged) > size,
        min((c.revision.pk for c in shown if c.revision), default=revisions_before),
        min((c.proposal.pk for c in shown if c.proposal), default=proposals_before),
    )


# --- links ---------------------------------------------------------------------------------


def _subject(revision: Revision) -> tuple[type | None, int | None]:
    """The record whose page a revision links to: its own object's when that has a page,
    else the page it is listed on (a result's board, a code link's paper)."""
    model = revision.content_type.model_class() if revision.content_type_id else None
    if model in HISTORY_KINDS or model is Repository:
        return model, revision.object_id
    if revision.parent_type_id:
        parent = ContentType.objects.get_for_id(revision.parent_type_id).model_class()
        return parent, revision.parent_id
    return None, None


def _urls(wanted: dict[type, set[int]]) -> dict[tuple[type, int], tuple[str, str]]:
    """{(model, pk): (page, history page)} of the records still there (a paper not
    hidden): one query, a UNION of each model's lookup, whatever kinds the page shows."""
    text = {"output_field": CharField()}
    parts = []
    for model, ids in wanted.items():
        records = model._default_manager.filter(pk__in=ids).order_by()
        if model is Paper:
            records = records.filter(hidden=False)
        if model is Leaderboard:
            columns = {"a": F("task__slug"), "b": F("dataset__slug"), "c": Value("", **text)}
        elif model is Repository:
            columns = {"a": F("host"), "b": F("owner"), "c": F("name")}
        else:
            columns = {"a": F("slug"), "b": Value("", **text), "c": Value("", **text)}
        kind = Value(model._meta.model_name, **text)
        parts.append(
            records.annotate(kind=kind, **columns).values_list("kind", "pk", "a", "b", "c")
        )
    if not parts:
        return {}
    by_name = {model._meta.model_name: model for model in wanted}
    rows = parts[0].union(*parts[1:], all=True).order_by() if len(parts) > 1 else parts[0]
    found: dict[tuple[type, int], tuple[str, str]] = {}
    for name, pk, a, b, c in rows:
        model = by_name[name]
        if model is Leaderboard:
            url = reverse("papers:leaderboard", kwargs={"slug": board_slug(a, b)})
            found[model, pk] = (url, f"{url}/history")
        elif model is Repository:
            if a and b and c:
                found[model, pk] = (Repository(host=a, owner=b, name=c).get_absolute_url(), "")
        else:
            found[model, pk] = (
                model(slug=a).get_absolute_url(),
                history_url(HISTORY_KINDS[model], a),
            )
    return found


def history_url(kind: str, slug: str) -> str:
    return reverse("papers:history", kwargs={"kind": kind, "slug": slug})


def link(changes: list[Change]) -> None:
    """Each change's kind, and the pages of the record it is about (where it still
    exists)."""
    wanted: dict[type, set[int]] = {}
    subjects = {}
    for change in changes:
        if change.revision is not None:
            revision = change.revision
            model = revision.content_type.model_class() if revision.content_type_id else None
            change.kind = "import" if revision.action == Action.IMPORT else kind_of_model(model)
            subject = _subject(revision)
            if subject[0] is not None and subject[1] is not None:
                wanted.setdefault(subject[0], set()).add(subject[1])
                subjects[id(change)] = subject
        else:
            change.kind = kind_of_operation(change.proposal.operation)
            change.record_url, change.history_url, change.record_name = proposal_links(
                change.proposal
            )
    found = _urls(wanted)
    for change in changes:
        subject = subjects.get(id(change))
        if subject in found:
            change.record_url, change.history_url = found[subject]


def proposal_links(proposal: Proposal) -> tuple[str, str, str]:
    """The page, history page and name of the record a proposal changes, from its call's
    target (no query: a record that no longer exists answers 404 there)."""
    target = proposal.target if isinstance(proposal.target, dict) else {}
    evaluation = target.get("evaluation_id")
    if isinstance(evaluation, str) and (parts := split_evaluation_id(evaluation)):
        url = reverse("papers:leaderboard", kwargs={"slug": board_slug(*parts)})
        return url, f"{url}/history", f"{parts[0]} on {parts[1]}"
    for key, kind, model in (
        ("task_id", "task", Task),
        ("dataset_id", "dataset", Dataset),
        ("paper_id", "paper", Paper),
    ):
        slug = target.get(key)
        if isinstance(slug, str) and slug and "/" not in slug:
            return model(slug=slug).get_absolute_url(), history_url(kind, slug), slug
    return "", "", ""


# --- the feeds' lists ----------------------------------------------------------------------


def board_changes(board: Leaderboard) -> QuerySet[Revision]:
    """A board's revisions and those of its metrics and results, newest first."""
    kind = ContentType.objects.get_for_model(Leaderboard)
    return _newest(
        Q(content_type=kind, object_id=board.pk) | Q(parent_type=kind, parent_id=board.pk)
    )


def task_changes(task: Task) -> QuerySet[Revision]:
    """A task's revisions and those of its boards (theirs, their metrics' and results'),
    newest first (two queries: the boards' ids, then the revisions)."""
    types = ContentType.objects.get_for_models(Task, Leaderboard)
    task_type, board_type = types[Task], types[Leaderboard]
    # The ids read first, not a subquery: given as a list, each condition is an index
    # lookup (revision_object_idx, revision_parent_idx) the planner ORs together; behind
    # a subquery it walks the whole table backwards instead.
    boards = list(Leaderboard.objects.filter(task=task).values_list("pk", flat=True))
    return _newest(
        Q(content_type=task_type, object_id=task.pk)
        | Q(parent_type=task_type, parent_id=task.pk)
        | Q(content_type=board_type, object_id__in=boards)
        | Q(parent_type=board_type, parent_id__in=boards)
    )


def newest_revisions() -> QuerySet[Revision]:
    return Revision.objects.select_related("user", "moderator").order_by("-id")


def _newest(where: Q) -> QuerySet[Revision]:
    return newest_revisions().filter(where)


# --- new results -------------------------------------------------------------------------

NEW_RESULTS_DAYS = 7
NEW_RESULTS_SHOWN = 10


@dataclass
class NewResult:
    row: LeaderboardRow
    revision: Revision


def new_results(days: int = NEW_RESULTS_DAYS, shown: int = NEW_RESULTS_SHOWN) -> list[NewResult]:
    """The results added to a board in the last `days`, newest first: the revisions that
    added them (a contribution, an approved proposal, staff's admin), read backwards
    along the revisions' created_at index, then their rows (deleted since: left out).
    Two queries, one when there are none. A row's own contributed_at is not it: an edit
    moves it too, and no index serves it."""
    since = timezone.now() - dt.timedelta(days=days)
    kind = ContentType.objects.get_for_model(LeaderboardRow)
    added = list(
        Revision.objects.filter(
            created_at__gte=since, content_type=kind, action=Action.ADD, object_id__isnull=False
        )
        .select_related("user", "moderator")
        .order_by("-created_at", "-id")[:shown]
    )
    if not added:
        return []
    rows = LeaderboardRow.objects.select_related(
        "leaderboard__task", "leaderboard__dataset", "paper"
    ).in_bulk([revision.object_id for revision in added])
    found = []
    for revision in added:
        row = rows.get(revision.object_id)
        if row is not None:
            if row.paper is not None and row.paper.hidden:
                row.paper = None
            found.append(NewResult(row, revision))
    return found
