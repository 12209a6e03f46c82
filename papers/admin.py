"""The admin: where staff fix the archive's data by hand.

Three rules hold across it:
- A staff edit is protected from the next import. Saving a record that carries the
  edit flag (`Record`) marks it edited; saving one of a paper's rows (an author, a
  sample, a linked task…) marks the paper edited, since the importer guards a paper's
  rows by the paper's flag. Unticking "edited in admin" by hand is honoured.
- What is kept of the records follows every edit: a paper's counts, the counts of the
  tasks, methods and datasets it is linked to, its venue, its boards' rankings. Each
  admin declares what its objects feed, and `papers.kept.admin.KeptAdmin` refreshes
  it after a save or delete.
- Every changelist runs a fixed number of queries, however many rows it shows, and
  the big tables are never counted twice (`show_full_result_count = False`).
"""

from __future__ import annotations

import re

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import FieldDoesNotExist, PermissionDenied, ValidationError
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme

from papers import jsonsafe
from papers.kept import after_write
from papers.kept.admin import KeptAdmin
from papers.metrics import inferred_direction
from papers.models import (
    NEWEST_FIRST,
    Author,
    CodeLink,
    Collection,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    MethodCollection,
    Paper,
    PaperAuthor,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Record,
    RelatedPaper,
    ReportRepository,
    Repository,
    Sample,
    Task,
    TaskEdge,
    restate_directions,
)
from papers.vocabularies import ReachStatus, label_for

RECORD_READONLY = ("edited_at", "created_at", "updated_at")

# An arXiv id as people paste it: 2006.12467, arXiv:2006.12467v3, an abs or pdf URL,
# or an old-style id (hep-th/9901001).
_ARXIV_ID = re.compile(
    r"^(?:https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/|arxiv:)?"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})(?:v\d+)?(?:\.pdf)?$",
    re.IGNORECASE,
)


def arxiv_id_from(text: str) -> str | None:
    """The bare arXiv id in `text` (no prefix, no version), or None."""
    match = _ARXIV_ID.match(text.strip())
    return match.group("id") if match else None


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
    would raise a 500. Values a field cannot hold are dropped, as if they were not given."""

    formfield_overrides = JSON_AS_TYPED

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


# --- list filters ---------------------------------------------------------------------


class HasCodeFilter(admin.SimpleListFilter):
    title = "code"
    parameter_name = "has_code"

    def lookups(self, request, model_admin):
        return [("yes", "Has code"), ("no", "No code")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(code_link_count__gt=0)
        if self.value() == "no":
            return queryset.filter(code_link_count=0)
        return queryset


class PublishedYearFilter(admin.SimpleListFilter):
    title = "published year"
    parameter_name = "year"

    def lookups(self, request, model_admin):
        years = Paper.objects.dates("published", "year", order="DESC")
        return [(str(day.year), str(day.year)) for day in years] + [("none", "No date")]

    def queryset(self, request, queryset):
        value = self.value()
        if value is None:
            return queryset
        if value == "none":
            return queryset.filter(published__isnull=True)
        if not value.isdigit():
            raise IncorrectLookupParameters(f"year must be a number, got {value!r}")
        return queryset.filter(published__year=int(value))


# --- papers -----------------------------------------------------------------------


class PaperAuthorInline(PaperRowInline):
    model = PaperAuthor
    fields = ("position", "author")
    ordering = ("position",)
    autocomplete_fields = ("author",)
    select_related = ("author",)


class CodeLinkInline(PaperRowInline):
    model = CodeLink
    fields = (
        "position",
        "repository",
        "is_official",
        "framework",
        "mentioned_in_paper",
        "mentioned_in_github",
        "edited_in_admin",
    )
    ordering = ("position", "id")
    autocomplete_fields = ("repository",)
    select_related = ("paper", "repository")
    show_change_link = True


class ReportRepositoryInline(PaperRowInline):
    model = ReportRepository
    fields = ("position", "repository", "provenance")
    ordering = ("position",)
    autocomplete_fields = ("repository",)
    select_related = ("repository",)


class SampleInline(PaperRowInline):
    model = Sample
    fields = (
        "position",
        "repo",
        "path",
        "entry",
        "language",
        "status",
        "status_label",
        "contract_check",
        "repo_kind",
        "repository",
    )
    readonly_fields = ("status_label",)
    ordering = ("position",)
    autocomplete_fields = ("repository",)
    show_change_link = True
    classes = ("collapse",)


class PaperTaskInline(PaperRowInline):
    model = PaperTask
    fields = ("position", "task")
    ordering = ("position",)
    autocomplete_fields = ("task",)
    select_related = ("task",)


class PaperMethodInline(PaperRowInline):
    model = PaperMethod
    fields = ("position", "method")
    ordering = ("position",)
    autocomplete_fields = ("method",)
    select_related = ("method",)


class PaperDatasetInline(PaperRowInline):
    model = PaperDataset
    fields = ("position", "dataset")
    ordering = ("position",)
    autocomplete_fields = ("dataset",)
    select_related = ("dataset",)


class RelatedPaperInline(PaperRowInline):
    """Computed by compute_related: staff can only hide entries. Hiding one does not
    mark the paper edited, so imports keep updating the paper itself."""

    model = RelatedPaper
    fk_name = "paper"
    fields = ("rank", "related", "score", "hidden")
    readonly_fields = ("rank", "related", "score")
    ordering = ("rank",)
    select_related = ("related",)
    marks_parent_edited = False
    can_delete = False
    verbose_name_plural = "related papers"

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Paper)
class PaperAdmin(KeptAdmin, RecordAdmin):
    kept_paper = "pk"
    list_display = (
        "title",
        "slug",
        "arxiv_id",
        "published",
        "code_link_count",
        "sample_count",
        "has_official_code",
        "hidden",
    )
    list_filter = (
        "has_official_code",
        HasCodeFilter,
        PublishedYearFilter,
        "date_uncertain",
        "hidden",
        "edited_in_admin",
    )
    search_fields = ("title", "slug")
    ordering = NEWEST_FIRST  # the paper_published_idx order: no sort of every paper
    search_help_text = (
        "Words of the title or slug; an arXiv id (2006.12467, arXiv:2006.12467v3 or its "
        "URL); an author's name; part of a repository URL."
    )
    show_full_result_count = False
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "title",
                    "slug",
                    "author_names",
                    "arxiv_id",
                    "published",
                    "date_uncertain",
                    "hidden",
                )
            },
        ),
        (
            "Venue and links",
            {
                "fields": (
                    "proceeding",
                    "conference",
                    "conference_url_abs",
                    "conference_url_pdf",
                    "nips_id",
                    "openreview_id",
                    "url_abs",
                    "url_pdf",
                )
            },
        ),
        ("Abstract", {"fields": ("abstract", "short_abstract")}),
        (
            "Code and execution report",
            {
                "classes": ("collapse",),
                "fields": (
                    ("code_link_count", "has_official_code", "sample_count"),
                    ("frameworks", "sample_statuses"),
                    "has_report",
                    "report_url",
                    "report_atlas_url",
                    "report_developers_url",
                    "report_read_at",
                    "report_read_at_is",
                    "report_claim",
                    "report_mcp",
                    "report_repo_kind_vocabulary",
                    "report_n_pointer_only_for_licence",
                ),
            },
        ),
        (
            "Source",
            {
                "classes": ("collapse",),
                "fields": (
                    "source_archive",
                    "source_snapshot",
                    "source_row_kind",
                    "source_licence_url",
                    "source_rank",
                ),
            },
        ),
        (
            "Kept as given",
            {"classes": ("collapse",), "fields": ("arxiv_metadata", "extracted_results", "extra")},
        ),
        ("Edits", {"fields": ("edited_in_admin", "edited_at", "created_at", "updated_at")}),
    )
    readonly_fields = (
        "author_names",
        "code_link_count",
        "has_official_code",
        "sample_count",
        "frameworks",
        "sample_statuses",
        "source_rank",
    )
    inlines = (
        PaperAuthorInline,
        CodeLinkInline,
        ReportRepositoryInline,
        SampleInline,
        PaperTaskInline,
        PaperMethodInline,
        PaperDatasetInline,
        RelatedPaperInline,
    )

    def get_search_results(self, request, queryset, search_term):
        """Title and slug words (Django's per-word search), or, for the whole term:
        an author's name, part of a repository URL, or the arXiv id however pasted."""
        matched, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if not term:
            return matched, may_have_duplicates
        also = Exists(
            PaperAuthor.objects.filter(paper=OuterRef("pk"), author__name__icontains=term)
        ) | Exists(CodeLink.objects.filter(paper=OuterRef("pk"), repository__url__icontains=term))
        arxiv_id = arxiv_id_from(term)
        if arxiv_id:
            also |= Q(arxiv_id__in={arxiv_id, term})
        return matched | queryset.filter(also), may_have_duplicates

    def save_model(self, request, obj, form, change):
        if "published" in form.changed_data and "date_uncertain" not in form.changed_data:
            obj.refresh_flags()
        super().save_model(request, obj, form, change)


@admin.register(Author)
class AuthorAdmin(KeptAdmin, RecordAdmin):
    """Renaming or deleting an author rewrites the author names of their papers; deleting
    one also marks them edited (their author lists changed)."""

    kept_paper = "authorships__paper"
    kept_fields = ("name",)
    kept_author_names = True
    list_display = ("name", "slug", "edited_in_admin")
    list_filter = ("edited_in_admin",)
    search_fields = ("name",)
    show_full_result_count = False

    def papers_touched(self, request, paper_ids, *, deleted, changed):
        if deleted:
            mark_papers_edited(paper_ids)


@admin.register(PaperAuthor)
class PaperAuthorAdmin(PaperRowsAdmin):
    kept_author_names = True
    list_display = ("paper", "position", "author")
    list_select_related = ("paper", "author")
    search_fields = ("author__name", "paper__slug__exact")
    search_help_text = "An author's name, or a paper's exact slug."
    autocomplete_fields = ("paper", "author")
    ordering = ("-id",)
    show_full_result_count = False


@admin.register(Repository)
class RepositoryAdmin(RecordAdmin):
    list_display = ("url", "host", "owner", "name", "licence", "reachability", "stars")
    list_filter = ("host", "reach_status", "edited_in_admin")
    search_fields = ("url", "owner", "name")
    readonly_fields = ("host", "owner", "name")
    show_full_result_count = False

    @admin.display(description="reachability", ordering="reach_status")
    def reachability(self, obj):
        return label_for(ReachStatus, obj.reach_status)


@admin.register(CodeLink)
class CodeLinkAdmin(PaperRowsAdmin, RecordAdmin):
    # A code link has its own edit flag (the links import checks it), so editing one
    # does not lock the whole paper.
    marks_paper_edited = False
    list_display = ("paper", "repository", "is_official", "framework", "position")
    list_select_related = ("paper", "repository")
    list_filter = ("framework", "is_official", "edited_in_admin")
    search_fields = ("repository__url", "paper__slug__exact")
    search_help_text = "Part of a repository URL, or a paper's exact slug."
    autocomplete_fields = ("paper", "repository")
    ordering = ("-id",)
    show_full_result_count = False


@admin.register(RelatedPaper)
class RelatedPaperAdmin(CheckedInitialAdmin):
    list_display = ("paper", "rank", "related", "score", "hidden")
    list_select_related = ("paper", "related")
    list_filter = ("hidden",)
    search_fields = ("paper__slug__exact",)
    search_help_text = "A paper's exact slug."
    autocomplete_fields = ("paper", "related")
    ordering = ("-id",)
    show_full_result_count = False


# --- the execution report -----------------------------------------------------------


@admin.register(Sample)
class SampleAdmin(PaperRowsAdmin):
    list_display = (
        "repo",
        "path",
        "entry",
        "paper",
        "status_label",
        "contract_check_label",
        "repo_kind_label",
        "language",
    )
    list_select_related = ("paper",)
    # Free-form values from the archive: plain field filters list the values present.
    list_filter = ("status", "contract_check", "language", "repo_kind")
    search_fields = ("repo", "path", "entry")
    search_help_text = "Part of the repository (owner/name), the file path or the entry point."
    readonly_fields = ("status_label", "contract_check_label", "repo_kind_label")
    autocomplete_fields = ("paper", "repository")
    ordering = ("-id",)
    show_full_result_count = False

    @admin.display(description="status", ordering="status")
    def status_label(self, obj):
        return obj.status_label

    @admin.display(description="contract check", ordering="contract_check")
    def contract_check_label(self, obj):
        return obj.contract_check_label

    @admin.display(description="repository kind", ordering="repo_kind")
    def repo_kind_label(self, obj):
        return obj.repo_kind_label


@admin.register(ReportRepository)
class ReportRepositoryAdmin(PaperRowsAdmin):
    list_display = ("paper", "position", "repository", "provenance")
    list_select_related = ("paper", "repository")
    search_fields = ("repository__url", "paper__slug__exact")
    search_help_text = "Part of a repository URL, or a paper's exact slug."
    autocomplete_fields = ("paper", "repository")
    ordering = ("-id",)
    show_full_result_count = False


# --- tasks, methods, datasets -------------------------------------------------------


class SubtaskInline(admin.TabularInline):
    formfield_overrides = JSON_AS_TYPED
    model = TaskEdge
    fk_name = "parent"
    fields = ("position", "child")
    autocomplete_fields = ("child",)
    extra = 0
    verbose_name = "subtask"
    verbose_name_plural = "subtasks"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("parent", "child")


class ParentTaskInline(admin.TabularInline):
    formfield_overrides = JSON_AS_TYPED
    model = TaskEdge
    fk_name = "child"
    fields = ("parent", "position")
    autocomplete_fields = ("parent",)
    extra = 0
    verbose_name = "parent task"
    verbose_name_plural = "parent tasks"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("parent", "child")


@admin.register(Task)
class TaskAdmin(RecordAdmin):
    list_display = ("name", "slug", "hidden")
    list_filter = ("hidden", "edited_in_admin")
    search_fields = ("name", "slug")
    inlines = (ParentTaskInline, SubtaskInline)


@admin.register(TaskEdge)
class TaskEdgeAdmin(CheckedInitialAdmin):
    list_display = ("parent", "child", "position")
    list_select_related = ("parent", "child")
    search_fields = ("parent__name", "child__name")
    autocomplete_fields = ("parent", "child")


@admin.register(Collection)
class CollectionAdmin(RecordAdmin):
    list_display = ("name", "slug", "area")
    list_filter = ("area", "edited_in_admin")
    search_fields = ("name", "slug")


class MethodCollectionInline(admin.TabularInline):
    """A method's collections in order: the first is its primary collection."""

    formfield_overrides = JSON_AS_TYPED

    model = MethodCollection
    fields = ("position", "collection")
    ordering = ("position", "id")
    autocomplete_fields = ("collection",)
    extra = 0
    marks_parent_edited = True


@admin.register(MethodCollection)
class MethodCollectionAdmin(CheckedInitialAdmin):
    list_display = ("method", "position", "collection")
    list_select_related = ("method", "collection")
    search_fields = ("method__name", "collection__name")
    autocomplete_fields = ("method", "collection")
    ordering = ("method__name", "position")


@admin.register(Method)
class MethodAdmin(RecordAdmin):
    list_display = ("name", "slug", "introduced_year", "year_uncertain", "num_papers", "hidden")
    list_filter = ("hidden", "year_uncertain", "edited_in_admin")
    search_fields = ("name", "slug")
    autocomplete_fields = ("introduced_by",)
    inlines = (MethodCollectionInline,)


@admin.register(Dataset)
class DatasetAdmin(RecordAdmin):
    list_display = ("name", "slug", "introduced_date", "date_uncertain", "num_papers", "hidden")
    list_filter = ("hidden", "date_uncertain", "edited_in_admin")
    search_fields = ("name", "slug")
    autocomplete_fields = ("introduced_by", "tasks")


@admin.register(PaperTask)
class PaperTaskAdmin(PaperRowsAdmin):
    list_display = ("paper", "position", "task")
    list_select_related = ("paper", "task")
    search_fields = ("task__name", "paper__slug__exact")
    search_help_text = "A task's name, or a paper's exact slug."
    autocomplete_fields = ("paper", "task")
    ordering = ("-id",)
    show_full_result_count = False


@admin.register(PaperMethod)
class PaperMethodAdmin(PaperRowsAdmin):
    list_display = ("paper", "position", "method")
    list_select_related = ("paper", "method")
    search_fields = ("method__name", "paper__slug__exact")
    search_help_text = "A method's name, or a paper's exact slug."
    autocomplete_fields = ("paper", "method")
    ordering = ("-id",)
    show_full_result_count = False


@admin.register(PaperDataset)
class PaperDatasetAdmin(PaperRowsAdmin):
    list_display = ("paper", "position", "dataset")
    list_select_related = ("paper", "dataset")
    search_fields = ("dataset__name", "paper__slug__exact")
    search_help_text = "A dataset's name, or a paper's exact slug."
    autocomplete_fields = ("paper", "dataset")
    ordering = ("-id",)
    show_full_result_count = False


# --- leaderboards -------------------------------------------------------------------


class LeaderboardMetricInline(admin.TabularInline):
    formfield_overrides = JSON_AS_TYPED
    model = LeaderboardMetric
    fields = ("position", "name", "lower_is_better", "stated_lower_is_better", "is_lower_better")
    readonly_fields = ("stated_lower_is_better", "is_lower_better")
    ordering = ("position",)
    extra = 0


class LeaderboardRowInline(admin.TabularInline):
    formfield_overrides = JSON_AS_TYPED
    model = LeaderboardRow
    fields = ("position", "row_key", "model_name", "paper", "paper_title", "metrics")
    ordering = ("position", "id")
    raw_id_fields = ("paper",)
    extra = 0
    show_change_link = True

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("leaderboard__task", "leaderboard__dataset")
        )


@admin.register(Leaderboard)
class LeaderboardAdmin(KeptAdmin, RecordAdmin):
    """Saving or deleting a board refreshes its ranking (after its metrics and rows, the
    inlines) and the benchmark counts of its task and dataset (and, for a board moved,
    of those it had)."""

    kept_board = "pk"
    kept_records = ("task", "dataset")
    list_display = ("__str__", "task", "dataset", "parent", "position")
    list_select_related = ("task", "dataset", "parent__task", "parent__dataset")
    list_filter = ("edited_in_admin",)
    search_fields = ("task__name", "dataset__name")
    autocomplete_fields = ("task", "dataset", "parent")
    inlines = (LeaderboardMetricInline, LeaderboardRowInline)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if "description" in form.changed_data:
            restate_directions(obj)  # what the description states, before it is ranked


class BoardPartAdmin(KeptAdmin):
    """For a board's metrics and rows: after staff save or delete some, refresh the
    rankings of their boards (and of the board one was moved from)."""

    kept_board = "leaderboard"


DECIDED_BY = {
    "staff": "staff",
    "description": "the board's description",
    "name": "the metric's name",
    "default": "nothing (higher is better)",
}


class DirectionFilter(admin.SimpleListFilter):
    """Who decides a metric's direction: staff, the board's description, the metric's
    name (papers/metrics.py) or nothing (higher is better by default)."""

    title = "direction decided by"
    parameter_name = "decided_by"

    def lookups(self, request, model_admin):
        return list(DECIDED_BY.items())

    def queryset(self, request, queryset):
        chosen = self.value()
        if chosen == "staff":
            return queryset.filter(lower_is_better__isnull=False)
        if chosen == "description":
            return queryset.filter(
                lower_is_better__isnull=True, stated_lower_is_better__isnull=False
            )
        if chosen in ("name", "default"):
            # The name's verdict is worked out in Python (papers/metrics.py), over the
            # distinct names of the metrics neither staff nor a description decide.
            undecided = queryset.filter(
                lower_is_better__isnull=True, stated_lower_is_better__isnull=True
            )
            names = undecided.values_list("name", flat=True).distinct()
            wanted = [n for n in names if (inferred_direction(n) is None) == (chosen == "default")]
            return undecided.filter(name__in=wanted)
        return queryset


@admin.register(LeaderboardMetric)
class LeaderboardMetricAdmin(BoardPartAdmin, CheckedInitialAdmin):
    list_display = ("name", "leaderboard", "position", "direction", "decided_by", "fix")
    list_select_related = ("leaderboard__task", "leaderboard__dataset")
    list_filter = (DirectionFilter, "lower_is_better")
    search_fields = ("name",)
    search_help_text = "A metric's name."
    readonly_fields = ("is_lower_better", "stated_lower_is_better", "decided_by")
    autocomplete_fields = ("leaderboard",)
    actions = ("make_lower_better", "make_higher_better", "decide_again")

    @admin.display(boolean=True, description="lower is better (as used)")
    def is_lower_better(self, obj):
        return obj.is_lower_better

    @admin.display(description="better")
    def direction(self, obj):
        return "lower" if obj.is_lower_better else "higher"

    @admin.display(description="decided by")
    def decided_by(self, obj):
        return DECIDED_BY[obj.direction_source]

    @admin.display(description="fix")
    def fix(self, obj):
        # A button of the changelist's own form (with its CSRF token) posting to the
        # metric's flip view: one click turns the direction around.
        url = reverse("admin:papers_leaderboardmetric_flip", args=[obj.pk])
        return format_html(
            '<button type="submit" class="button" formaction="{}" formmethod="post" '
            "formnovalidate>Make {} better</button>",
            url,
            "higher" if obj.is_lower_better else "lower",
        )

    def get_urls(self):
        flip = path(
            "<int:pk>/flip/",
            self.admin_site.admin_view(self.flip_view),
            name="papers_leaderboardmetric_flip",
        )
        return [flip, *super().get_urls()]

    def flip_view(self, request, pk: int):
        metric = get_object_or_404(LeaderboardMetric, pk=pk)
        if request.method != "POST" or not self.has_change_permission(request, metric):
            raise PermissionDenied
        metric.lower_is_better = not metric.is_lower_better
        metric.save(update_fields=["lower_is_better"])
        after_write(boards={metric.leaderboard_id})
        better = "lower" if metric.lower_is_better else "higher"
        self.message_user(request, f"{metric} on {metric.leaderboard}: {better} is better.")
        back = request.headers.get("Referer", "")
        changelist = reverse("admin:papers_leaderboardmetric_changelist")
        if not url_has_allowed_host_and_scheme(back, {request.get_host()}) or (
            changelist not in back
        ):
            back = changelist
        return HttpResponseRedirect(back)

    def _set_direction(self, request, queryset, lower: bool | None) -> None:
        boards = set(queryset.values_list("leaderboard_id", flat=True))
        changed = queryset.update(lower_is_better=lower)
        after_write(boards=boards)  # an update() sends no signal: refresh them all
        self.message_user(request, f"{changed} metric(s) changed; their boards ranked again.")

    @admin.action(description="Set: lower is better")
    def make_lower_better(self, request, queryset):
        self._set_direction(request, queryset, True)

    @admin.action(description="Set: higher is better")
    def make_higher_better(self, request, queryset):
        self._set_direction(request, queryset, False)

    @admin.action(description="Let the description and the name decide again")
    def decide_again(self, request, queryset):
        self._set_direction(request, queryset, None)


@admin.register(LeaderboardRow)
class LeaderboardRowAdmin(BoardPartAdmin, RecordAdmin):
    list_display = ("model_name", "leaderboard", "paper", "position")
    list_select_related = ("leaderboard__task", "leaderboard__dataset", "paper")
    list_filter = ("uses_additional_data", "edited_in_admin")
    search_fields = ("model_name", "paper_title")
    readonly_fields = ("metric_values",)
    autocomplete_fields = ("leaderboard",)
    raw_id_fields = ("paper",)
    ordering = ("-id",)
    show_full_result_count = False


admin.site.site_header = "Code with Papers admin"
admin.site.site_title = "Code with Papers admin"
admin.site.index_title = "Papers, code and execution reports"
