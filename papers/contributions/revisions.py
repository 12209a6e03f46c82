"""Revisions: what a write changed, recorded beside it, and put back by a revert.

Own small models rather than django-simple-history or django-reversion: both record a
copy of the row per saved object (a history table per model, or a serialized version per
object), through signals or a context that every save passes through. An archive import
writes hundreds of thousands of rows in bulk, below the ORM, and must record ONE entry
per run (its files and counts) without getting slower; the history the pages show is a
field-level diff, which neither stores (both diff full copies when asked). Here a write
records one `Revision` per changed record with only the fields that changed, and a
deletion keeps the deleted rows (and what cascaded with them) in Django's serialized
form, so that a revert restores them exactly, ids included.

`snapshot()` before a write, `record()` after it; `revert()` applies the inverse and is
itself recorded.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, router, transaction
from django.db.models.deletion import Collector

from papers.models import KEPT_FACTS, ApiToken, Proposal, Revision
from papers.models.contributions import Action, Via

# Kept or derived columns (not editable, bar these): a revision neither shows nor restores
# them (they follow the rest). A deletion's rows are kept whole all the same.
TRACKED_READONLY = {"contributed_by", "contributed_at", "created_at", "stated_lower_is_better"}
NOT_TRACKED = {"updated_at", "edited_at"}


@dataclass
class Actor:
    """Who writes and through what."""

    user: Any = None
    via: str = Via.TOKEN
    token: ApiToken | None = None
    moderator: Any = None
    proposal: Proposal | None = None
    comment: str = ""


def _tracked(model: type[models.Model]) -> list[models.Field]:
    return [
        f
        for f in model._meta.concrete_fields
        if f.name not in NOT_TRACKED
        and (f.editable or f.name in TRACKED_READONLY)
        and not f.primary_key
        and not getattr(f, "generated", False)
    ]


class ExactEncoder(DjangoJSONEncoder):
    """Django's JSON, but a time keeps its microseconds (Django's keeps milliseconds):
    what a revision records is what a revert puts back."""

    def default(self, o: Any) -> Any:
        if isinstance(o, dt.datetime | dt.time):
            text = o.isoformat()
            return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text
        return super().default(o)


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, cls=ExactEncoder))


def snapshot(obj: models.Model | None) -> dict[str, Any]:
    """The record's tracked values in JSON terms ({} for none)."""
    if obj is None:
        return {}
    return {f.attname: _plain(getattr(obj, f.attname)) for f in _tracked(type(obj))}


def fresh(obj: models.Model) -> models.Model | None:
    """The record as the database holds it (before a form's changes are saved)."""
    return type(obj)._default_manager.filter(pk=obj.pk).first() if obj.pk else None


def diff(before: dict, after: dict) -> dict[str, list]:
    return {
        name: [before.get(name), after.get(name)]
        for name in sorted(set(before) | set(after))
        if before.get(name) != after.get(name)
    }


def _parent(obj: models.Model) -> models.Model | None:
    """The record whose history lists this one's too."""
    for name in ("leaderboard", "paper"):
        try:
            field = obj._meta.get_field(name)
        except Exception:
            continue
        if field.many_to_one:
            pk = getattr(obj, field.attname)
            return field.related_model(pk=pk) if pk else None
    return None


def record(
    obj: models.Model,
    before: dict,
    actor: Actor,
    *,
    action: str | None = None,
    deleted: list | None = None,
    save: bool = True,
) -> Revision | None:
    """The revision of a write to `obj` (`before` is its snapshot, {} for an add); None
    when nothing tracked changed. `save=False` returns it unsaved, for bulk_create."""
    after = {} if action == Action.DELETE else snapshot(obj)
    changes = diff(before, after)
    if action is None:
        action = Action.ADD if not before else Action.CHANGE
    if not changes and action == Action.CHANGE:
        return None
    parent = _parent(obj)
    revision = Revision(
        user=actor.user,
        moderator=actor.moderator,
        via=actor.via,
        token=actor.token,
        proposal=actor.proposal,
        comment=actor.comment,
        action=action,
        content_type=ContentType.objects.get_for_model(type(obj)),
        object_id=obj.pk,
        object_repr=_repr(obj),
        parent_type=ContentType.objects.get_for_model(type(parent)) if parent else None,
        parent_id=parent.pk if parent else None,
        changes=changes,
        deleted=deleted,
    )
    if save:
        revision.save()
    return revision


def _repr(obj: models.Model) -> str:
    try:
        return str(obj)[:300]
    except Exception:
        return f"{type(obj).__name__} {obj.pk}"


def deletion(obj: models.Model) -> list:
    """The rows a delete of `obj` removes (it and what cascades), serialized, in an order
    that restores them (parents first); kept facts are left out (they are refreshed)."""
    collector = Collector(using=router.db_for_write(type(obj)))
    collector.collect([obj])
    collector.sort()
    objects: list[models.Model] = []
    for model, instances in collector.data.items():
        if model not in KEPT_FACTS:
            objects.extend(instances)
    for queryset in collector.fast_deletes:
        if queryset.model not in KEPT_FACTS:
            objects.extend(queryset)
    return json.loads(serializers.serialize("json", reversed(objects), cls=ExactEncoder))


def delete(obj: models.Model, actor: Actor) -> Revision:
    """Delete `obj`, recording it (with what cascaded) so that a revert restores it."""
    before = snapshot(obj)
    rows = deletion(obj)
    revision = record(obj, before, actor, action=Action.DELETE, deleted=rows, save=False)
    obj.delete()
    revision.save()
    return revision


def model_of(revision: Revision) -> type[models.Model]:
    return revision.content_type.model_class()


class CannotRevert(Exception):
    pass


@transaction.atomic
def revert(revision: Revision, actor: Actor) -> tuple[Revision, models.Model | None]:
    """Undo `revision`: an add is deleted, a deletion restored row for row, a change's
    fields set back to what they were. The revert is itself a revision; what the record
    feeds is refreshed (papers.kept.after_write). Returns the revert and the record
    (None when the revert deleted it)."""
    result = _revert(revision, actor)
    _refresh(revision)
    return result


def _refresh(revision: Revision) -> None:
    from papers.kept import after_write
    from papers.models import Leaderboard, Paper

    papers, boards = set(), set()
    for kind, pk in (
        (revision.content_type, revision.object_id),
        (revision.parent_type, revision.parent_id),
    ):
        model = kind.model_class() if kind else None
        if model is Leaderboard:
            boards.add(pk)
        elif model is Paper:
            papers.add(pk)
    after_write(papers=papers, boards=boards)


def _revert(revision: Revision, actor: Actor) -> tuple[Revision, models.Model | None]:
    if revision.action == Action.IMPORT or revision.content_type is None:
        raise CannotRevert("an import run is not reverted record by record: import again")
    model = model_of(revision)
    manager = model._default_manager
    actor.comment = actor.comment or f"revert of revision {revision.pk}"
    if revision.action == Action.DELETE or (revision.action == Action.REVERT and revision.deleted):
        restored = None
        for item in serializers.deserialize("json", json.dumps(revision.deleted)):
            item.save()
            if item.object.pk == revision.object_id and isinstance(item.object, model):
                restored = item.object
        restored = manager.get(pk=revision.object_id)
        new = record(restored, {}, actor, action=Action.REVERT)
        new.reverts = revision
        new.save(update_fields=["reverts"])
        return new, restored
    obj = manager.filter(pk=revision.object_id).first()
    if obj is None:
        raise CannotRevert(f"{revision.object_repr} no longer exists")
    if revision.action == Action.ADD or (
        revision.action == Action.REVERT and not any(old for old, _ in revision.changes.values())
    ):
        new = delete(obj, actor)
        new.action, new.reverts = Action.REVERT, revision
        new.save(update_fields=["action", "reverts"])
        return new, None
    before = snapshot(obj)
    for attname, (old, _new) in revision.changes.items():
        field = next(f for f in model._meta.concrete_fields if f.attname == attname)
        setattr(obj, attname, field.to_python(old) if old is not None else None)
    obj.save()
    new = record(obj, before, actor, action=Action.REVERT)
    if new is not None:
        new.reverts = revision
        new.save(update_fields=["reverts"])
    return new, obj


def history(obj: models.Model):
    """The revisions of `obj` and of the records listed with it (a board's results), newest
    first."""
    kind = ContentType.objects.get_for_model(type(obj))
    return Revision.objects.filter(
        models.Q(content_type=kind, object_id=obj.pk)
        | models.Q(parent_type=kind, parent_id=obj.pk)
    ).select_related("user", "moderator", "content_type")
