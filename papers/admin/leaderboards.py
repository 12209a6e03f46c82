"""Leaderboards, their metrics (whose direction staff may decide) and rows; every save
or delete ranks the boards it touched again (papers.kept)."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme

from papers.admin.base import (
    JSON_AS_TYPED,
    CheckedInitialAdmin,
    RecordAdmin,
)
from papers.kept import after_write
from papers.kept.admin import KeptAdmin
from papers.metrics import inferred_direction
from papers.models import (
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    restate_directions,
)

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
