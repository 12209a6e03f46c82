"""Tasks (with their subtask graph), method collections, methods, datasets, and the
papers' links to them."""

from __future__ import annotations

from django.contrib import admin

from papers.admin.base import (
    JSON_AS_TYPED,
    CheckedInitialAdmin,
    PaperRowsAdmin,
    RecordAdmin,
)
from papers.models import (
    Collection,
    Dataset,
    Method,
    MethodCollection,
    PaperDataset,
    PaperMethod,
    PaperTask,
    Task,
    TaskEdge,
)

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
