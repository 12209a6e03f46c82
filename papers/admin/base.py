"""What every admin of the app builds on: edit flags kept from imports (`RecordAdmin`),
initial values checked (`CheckedInitialAdmin`), and a paper's rows (`PaperRowsAdmin`,
`PaperRowInline`) marking the paper edited."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models
from django.utils import timezone

from papers import jsonsafe
from papers.contributions import revisions
from papers.kept.admin import KeptAdmin
from papers.models import Paper, Record
from papers.models.contributions import Via

RECORD_READONLY = ("edited_at", "contributed_by", "contributed_at", "created_at", "updated_at")


def stamp_edited(obj: Record, form, *, adding: bool) -> None:
    """Mark `obj` edited when staff changed it in `form`, unless they set its edit
    flag by hand: ticking it marks the record edited, unticking it lets imports
    update the record again."""
    if "edited_in_admin" in form.changed_data:
        if obj.edited_in_admin:
            obj.mark_edited()
        else:
            obj.updated_at = timezone.now()
    elif adding or form.has_changed():
        obj.mark_edited()


def mark_papers_edited(paper_ids) -> None:
    """Mark these papers edited, so that an import keeps a change to their rows."""
    for paper in Paper.objects.filter(pk__in=paper_ids).only("pk"):
        paper.mark_edited()
        paper.save(update_fields=["edited_in_admin", "edited_at", "updated_at"])


# --- base classes -------------------------------------------------------------------


# JSON typed in a form keeps a NaN, an infinity or an overlong integer as its text, which
# every JSON column takes (papers.jsonsafe), instead of failing the save with a 500.
JSON_AS_TYPED = {models.JSONField: {"decoder": jsonsafe.Decoder}}


class CheckedInitialAdmin(admin.ModelAdmin):
    """The add form takes initial values from its query string (?task=3). Django hands
    them to the widgets as they are, and an autocomplete widget looking up `?task=:`
    would raise a 500. Values a field cannot hold are dropped, as if they were not given.

    Every save and delete is a revision (papers.contributions.revisions) by "admin
    (<user>)": the fields it changed, or the rows a delete removed, which a revert puts
    back."""

    formfield_overrides = JSON_AS_TYPED

    def save_model(self, request, obj, form, change):
        before = revisions.snapshot(revisions.fresh(obj)) if change else {}
        super().save_model(request, obj, form, change)
        revisions.record(obj, before, revisions.Actor(user=request.user, via=Via.ADMIN))

    def delete_model(self, request, obj):
        revisions.delete(obj, revisions.Actor(user=request.user, via=Via.ADMIN))

    def delete_queryset(self, request, queryset):
        actor = revisions.Actor(user=request.user, via=Via.ADMIN)
        for obj in queryset:
            revisions.delete(obj, actor)

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        for name, value in list(initial.items()):
            try:
                field = self.model._meta.get_field(name)
            except FieldDoesNotExist:
                continue
            target = field.target_field if field.is_relation else field
            try:
                for item in value if isinstance(value, list) else [value]:
                    target.run_validators(target.to_python(item))
            except (ValidationError, TypeError, ValueError):
                del initial[name]
        return initial


class RecordAdmin(CheckedInitialAdmin):
    """For models inheriting `Record`: a staff save marks the record edited, and so
    does one of its inline rows carrying its own flag. Changing a paper's rows inline
    marks the paper edited too (inlines with `marks_parent_edited`), since the
    importer guards those rows by the paper's flag. The flag stays editable so staff
    can release a record back to the importer."""

    def get_readonly_fields(self, request, obj=None):
        own = tuple(super().get_readonly_fields(request, obj))
        return own + tuple(f for f in RECORD_READONLY if f not in own)

    def save_model(self, request, obj, form, change):
        stamp_edited(obj, form, adding=not change)
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change):
        formset.save(commit=False)
        for obj in formset.deleted_objects:
            obj.delete()
        for row_form in formset.saved_forms:
            row = row_form.instance
            if isinstance(row, Record):
                stamp_edited(row, row_form, adding=row._state.adding)
            row.save()
        formset.save_m2m()

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        parent = form.instance
        inlines_changed = any(
            getattr(formset, "marks_parent_edited", False) and formset.has_changed()
            for formset in formsets
        )
        if inlines_changed and "edited_in_admin" not in form.changed_data:
            parent.mark_edited()
            parent.save(update_fields=["edited_in_admin", "edited_at", "updated_at"])


class PaperRowsAdmin(KeptAdmin, CheckedInitialAdmin):
    """For rows that belong to a paper (`paper` foreign key). Saving or deleting one
    refreshes what the paper feeds (and what it fed, for a row moved to another paper)
    and, unless the row has its own edit flag, marks the paper edited: the importer
    rewrites a paper's rows unless the paper is flagged."""

    kept_paper = "paper"
    marks_paper_edited = True

    def papers_touched(self, request, paper_ids, *, deleted, changed):
        if self.marks_paper_edited and changed:
            mark_papers_edited(paper_ids)


class PaperRowInline(admin.TabularInline):
    """A paper's rows on its change page. `marks_parent_edited` is read by
    `RecordAdmin.save_related` (through the formset)."""

    formfield_overrides = JSON_AS_TYPED
    extra = 0
    marks_parent_edited = True
    select_related: tuple[str, ...] = ()

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        return queryset.select_related(*self.select_related) if self.select_related else queryset

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        formset.marks_parent_edited = self.marks_parent_edited
        return formset
