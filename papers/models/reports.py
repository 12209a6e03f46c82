"""The execution report: samples run from linked repositories, and the report's repositories."""

from __future__ import annotations

from collections import Counter

from django.db import models

from papers.vocabularies import ContractCheck, RepoKind, SampleStatus, label_for


class SampleQuerySet(models.QuerySet):
    def status_counts(self) -> dict[str, int]:
        """{status: n}, most frequent first; unknown statuses included."""
        rows = self.order_by().values_list("status").annotate(n=models.Count("pk"))
        return dict(sorted(rows, key=lambda row: (-row[1], row[0])))


class SampleManager(models.Manager.from_queryset(SampleQuerySet)):
    def get_by_natural_key(self, paper_slug, position):
        return self.get(paper__slug=paper_slug, position=position)


class Sample(models.Model):
    """One function from a linked repository, run on synthesized inputs.

    `status`, `contract_check` and `repo_kind` hold the archive's values verbatim,
    including ones our vocabularies do not know yet; the *_label properties show them.
    """

    # No index of its own: sample_position_unique starts with this column.
    paper = models.ForeignKey(
        "Paper", on_delete=models.CASCADE, related_name="samples", db_index=False
    )
    position = models.PositiveIntegerField(help_text="Order in the record.")
    # No index of its own: sample_repository_idx starts with this column.
    repository = models.ForeignKey(
        "Repository",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="samples",
        db_index=False,
    )
    repo = models.CharField(max_length=500, help_text="owner/name as the report gives it.")
    repo_kind = models.CharField(
        max_length=64, blank=True, help_text=f"Known: {', '.join(RepoKind.values)}."
    )
    path = models.CharField(max_length=1000, blank=True)
    entry = models.CharField(max_length=500, blank=True)
    file_url = models.CharField("file URL", max_length=1500, blank=True)
    link_basis = models.CharField(max_length=64, blank=True)
    language = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=64, help_text=f"Known: {', '.join(SampleStatus.values)}.")
    verification_level = models.IntegerField(null=True, blank=True)
    # NULL and "" differ in the record (null: no contract was checked); both kept.
    contract_check = models.CharField(  # noqa: DJ001
        max_length=64,
        null=True,
        blank=True,
        help_text=f"Known: {', '.join(ContractCheck.values)}.",
    )
    metamorphic_tier = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    behaviour_fingerprint = models.BooleanField(null=True, blank=True)
    licence = models.CharField(max_length=100, null=True, blank=True)  # noqa: DJ001 (null kept)
    inline_ok = models.BooleanField(null=True, blank=True)
    code_sha256_prefix = models.CharField(max_length=64, blank=True)
    mcp_code_sha256 = models.CharField(
        max_length=64, blank=True, help_text="The record's mcp_get_code.code_sha256."
    )
    extra = models.JSONField(
        default=dict, blank=True, help_text="Keys this site does not model, kept."
    )

    objects = SampleManager()

    class Meta:
        ordering = ["paper_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "position"], name="sample_position_unique")
        ]
        indexes = [
            # /samples?status=… and the home page's samples-by-status counts.
            models.Index(fields=["status", "id"], name="sample_status_idx"),
            # The status filter checked paper by paper as a search walks its matches, and
            # the status facet: answered from the index alone.
            models.Index(fields=["paper", "status"], name="sample_paper_status_idx"),
            # The repository page: a repository's samples by status.
            models.Index(fields=["repository", "status"], name="sample_repository_idx"),
            # /samples filters on contract check, language and repository kind.
            models.Index(fields=["contract_check"], name="sample_contract_idx"),
            models.Index(fields=["language"], name="sample_language_idx"),
            models.Index(fields=["repo_kind"], name="sample_repokind_idx"),
            # The sample lists' chips count every combination of these four
            # (papers.sample_filters.combinations): a GROUP BY read from this index
            # alone, not from the samples' wide rows (213k samples on SQLite: ~30 ms
            # against ~310 ms).
            models.Index(
                fields=["status", "contract_check", "language", "repo_kind"],
                name="sample_combination_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.repo}:{self.path}::{self.entry} ({self.status})"

    def natural_key(self):
        return (self.paper.slug, self.position)

    natural_key.dependencies = ["papers.paper", "papers.repository"]

    @property
    def status_label(self) -> str:
        return label_for(SampleStatus, self.status)

    @property
    def contract_check_label(self) -> str:
        return label_for(ContractCheck, self.contract_check)

    @property
    def repo_kind_label(self) -> str:
        return label_for(RepoKind, self.repo_kind)

    @property
    def ran(self) -> bool:
        return self.status.startswith("ran")


def report_summary(samples) -> dict[str, int]:
    """The report's `summary`: samples counted by status, in order of first appearance."""
    return dict(Counter(sample.status for sample in samples))


def report_by_repo_kind(samples) -> dict[str, dict[str, int]]:
    """The report's `by_repo_kind`: per kind, samples, how many ran, distinct repositories."""
    kinds: dict[str, dict] = {}
    for sample in samples:
        entry = kinds.setdefault(sample.repo_kind, {"samples": 0, "ran": 0, "repos": set()})
        entry["samples"] += 1
        entry["ran"] += sample.ran
        entry["repos"].add(sample.repo)
    return {
        kind: {"samples": e["samples"], "ran": e["ran"], "repositories": len(e["repos"])}
        for kind, e in kinds.items()
    }


class ReportRepositoryManager(models.Manager):
    def get_by_natural_key(self, paper_slug, repository_url):
        return self.get(paper__slug=paper_slug, repository__url=repository_url)


class ReportRepository(models.Model):
    """A repository the execution report read for a paper (the report's `repos`)."""

    # No index of its own: reportrepository_unique starts with this column.
    paper = models.ForeignKey(
        "Paper", on_delete=models.CASCADE, related_name="report_repositories", db_index=False
    )
    repository = models.ForeignKey("Repository", on_delete=models.CASCADE, related_name="reports")
    provenance = models.CharField(max_length=255, blank=True)
    position = models.PositiveIntegerField(default=0)

    objects = ReportRepositoryManager()

    class Meta:
        ordering = ["paper_id", "position"]
        verbose_name_plural = "report repositories"
        constraints = [
            models.UniqueConstraint(fields=["paper", "repository"], name="reportrepository_unique")
        ]

    def __str__(self) -> str:
        return f"{self.paper_id} · {self.repository}"

    def natural_key(self):
        return (self.paper.slug, self.repository.url)

    natural_key.dependencies = ["papers.paper", "papers.repository"]
