"""Papers and their rows: authors, code links, repositories, related papers, and the
execution report's samples and repositories."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.db.models import Exists, OuterRef, Q

from papers.admin.base import (
    CheckedInitialAdmin,
    PaperRowInline,
    PaperRowsAdmin,
    RecordAdmin,
    mark_papers_edited,
)
from papers.identifiers import arxiv_id_from
from papers.kept.admin import KeptAdmin
from papers.models import (
    NEWEST_FIRST,
    Author,
    CodeLink,
    Paper,
    PaperAuthor,
    PaperDataset,
    PaperMethod,
    PaperTask,
    RelatedPaper,
    ReportRepository,
    Repository,
    Sample,
)
from papers.vocabularies import ReachStatus, label_for


class HasCodeFilter(admin.SimpleListFilter):
    title = "code"
    parameter_name = "has_code"

    def lookups(self, request, model_admin):
        return [("yes", "Has code"), ("no", "No code")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.with_code()
        if self.value() == "no":
            return queryset.without_code()
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
            {
                "classes": ("collapse",),
                "fields": (
                    "arxiv_primary_category",
                    "arxiv_categories",
                    "arxiv_metadata",
                    "extracted_results",
                    "extra",
                ),
            },
        ),
        (
            "Edits",
            {
                "fields": (
                    "edited_in_admin",
                    "edited_at",
                    "contributed_by",
                    "contributed_at",
                    "created_at",
                    "updated_at",
                )
            },
        ),
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
