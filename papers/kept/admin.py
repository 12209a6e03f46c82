"""The admin's side of what is kept: one mixin that, after staff save an object (with its
inlines) or delete some, refreshes what the edit touched through `after_write()`.

An admin declares what its objects feed:
- `kept_paper`: the field naming the paper an object belongs to ("paper"; "pk" for a
  paper itself; a path through a relation for an object of many papers, as an author's
  "authorships__paper");
- `kept_board`: the field naming its leaderboard ("leaderboard"; "pk" for a board);
- `kept_records`: the fields naming the tasks, methods or datasets that count it (a
  board's "task" and "dataset");
- `kept_fields`: the fields whose change alone touches anything (an author's "name"); by
  default every save does;
- `kept_author_names`: its edits change papers' author lists (an authorship).

What an object fed before the write is read before it (the paper a link was moved from,
the tasks a deleted paper was linked to), and refreshed with what it feeds after.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib import admin

from papers.kept import after_write, linked_records
from papers.models import PaperAuthor


@dataclass
class Touched:
    """What an edit touched: papers, boards and records (linked_records()' shape)."""

    papers: set = field(default_factory=set)
    boards: set = field(default_factory=set)
    records: dict = field(default_factory=dict)

    def add(self, other: Touched) -> Touched:
        self.papers |= other.papers
        self.boards |= other.boards
        for model, ids in other.records.items():
            self.records.setdefault(model, set()).update(ids)
        return self


class KeptAdmin(admin.ModelAdmin):
    """Refreshes what staff's save or delete touched, as the admin declares it (above)."""

    kept_paper = ""
    kept_board = ""
    kept_records: tuple[str, ...] = ()
    kept_fields: tuple[str, ...] | None = None
    kept_author_names = False

    def papers_touched(self, request, paper_ids: set, *, deleted: bool, changed: bool) -> None:
        """Called with the papers an edit touched, before what they feed is refreshed:
        an admin extends it to mark them edited."""

    # --- saves: what the object fed is read before it is saved, refreshed after its inlines

    def save_model(self, request, obj, form, change):
        obj._kept_before = self._before(obj, form) if change else Touched()
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if not self._feeds_anything():
            return
        if change and not self._changes_anything(form):
            return
        obj = form.instance
        touched = self._now(obj).add(getattr(obj, "_kept_before", None) or Touched())
        author_names = self.kept_author_names or any(
            formset.model is PaperAuthor and formset.has_changed() for formset in formsets
        )
        changed = not change or form.has_changed()
        self._refresh(request, touched, author_names, deleted=False, changed=changed)

    # --- deletes: what the objects fed is read before they are deleted

    def delete_model(self, request, obj):
        touched = self._of(self.model._default_manager.filter(pk=obj.pk))
        super().delete_model(request, obj)
        self._refresh(request, touched, self.kept_author_names, deleted=True, changed=True)

    def delete_queryset(self, request, queryset):
        touched = self._of(queryset)
        super().delete_queryset(request, queryset)
        self._refresh(request, touched, self.kept_author_names, deleted=True, changed=True)

    # --- reading what objects feed

    def _feeds_anything(self) -> bool:
        return bool(self.kept_paper or self.kept_board or self.kept_records)

    def _changes_anything(self, form) -> bool:
        return self.kept_fields is None or bool(set(self.kept_fields) & set(form.changed_data))

    def _refresh(self, request, touched: Touched, author_names: bool, **how) -> None:
        if not self._feeds_anything():
            return
        papers = {pk for pk in touched.papers if pk is not None}
        if papers:
            self.papers_touched(request, papers, **how)
        after_write(
            papers=papers,
            boards=touched.boards,
            records=touched.records,
            author_names=author_names,
        )

    def _related_model(self, name: str):
        return self.model._meta.get_field(name).related_model

    def _of(self, queryset) -> Touched:
        """What the objects of this queryset feed now (as they are in the database)."""
        touched = Touched()
        if self.kept_paper:
            touched.papers = set(queryset.values_list(self.kept_paper, flat=True))
            touched.records = linked_records(touched.papers)
        if self.kept_board:
            touched.boards = set(queryset.values_list(self.kept_board, flat=True))
        for name in self.kept_records:
            ids = set(queryset.values_list(name, flat=True))
            touched.records.setdefault(self._related_model(name), set()).update(ids)
        return touched

    def _before(self, obj, form) -> Touched:
        """What a changed object fed before this save: its values as the form found them
        (those the form changes are on `obj` already), and what its papers fed."""
        if not self._feeds_anything() or not self._changes_anything(form):
            return Touched()
        touched = Touched(papers=set(self._values(obj, form, self.kept_paper)))
        if self.kept_paper:  # what its papers, before and after the save, feed before it
            now = set(self._values(obj, None, self.kept_paper))
            touched.records = linked_records(touched.papers | now)
        touched.boards = set(self._values(obj, form, self.kept_board))
        for name in self.kept_records:
            values = self._values(obj, form, name)
            touched.records.setdefault(self._related_model(name), set()).update(values)
        return touched

    def _now(self, obj) -> Touched:
        """What a saved object feeds."""
        touched = Touched(
            papers=set(self._values(obj, None, self.kept_paper)),
            boards=set(self._values(obj, None, self.kept_board)),
        )
        for name in self.kept_records:
            touched.records[self._related_model(name)] = set(self._values(obj, None, name))
        return touched

    def _values(self, obj, form, name: str) -> Iterable:
        """The values `name` gives for obj: as the form found them (`form`), or as they
        are now."""
        if not name:
            return ()
        if name == "pk":
            return (obj.pk,)
        if "__" in name:  # through a relation: as the database holds it
            return self.model._default_manager.filter(pk=obj.pk).values_list(name, flat=True)
        if form is not None:
            return (form.initial.get(name),)
        return (getattr(obj, self.model._meta.get_field(name).attname),)
