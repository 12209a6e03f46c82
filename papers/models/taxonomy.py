"""Tasks, methods (with their collections) and datasets, and how papers use them."""

from collections import Counter

from django.db import models
from django.db.models.functions import ExtractYear, Upper
from django.urls import reverse
from django.utils.text import slugify

from papers.db import update_rows
from papers.models.base import Record, SlugManager
from papers.models.leaderboards import Leaderboard, LeaderboardRow
from papers.models.papers import Paper
from papers.models.venues import Venue, refresh_venues


class CuratedQuerySet(models.QuerySet):
    """Tasks, methods or datasets, with the denormalised counts the browse pages sort and
    show (`paper_count`, `code_paper_count`, the execution aggregates, `benchmark_count`,
    a method's `papers_by_year`)."""

    def listed(self):
        return self.filter(hidden=False)

    def refresh_counts(self) -> int:
        """Recompute the counts of these records from the paper links and leaderboards,
        writing only the rows whose counts changed; how many changed. A few grouped
        queries over the link table, whatever the number of records: an import calls it
        once at its end (`refresh_browse_counts()`)."""
        model = self.model
        link = model._meta.get_field("paper_links").related_model
        key = f"{model._meta.model_name}_id"
        links = link.objects.filter(paper__hidden=False).order_by()
        ids = None
        if self.query.has_filters():
            ids = list(self.values_list("id", flat=True))
            links = links.filter(**{f"{key}__in": ids})
        papers = dict(links.values_list(key).annotate(n=models.Count("paper_id")))
        fields = ["paper_count", "code_paper_count"]
        boards: dict[int, int] = {}
        years: dict[int, dict[str, int]] = {}
        with_code = links.filter(paper__code_link_count__gt=0)
        code = dict(with_code.values_list(key).annotate(n=models.Count("paper_id")))
        if hasattr(model, "benchmark_count"):
            fields.append("benchmark_count")
            found = Leaderboard.objects.order_by()
            if ids is not None:
                found = found.filter(**{f"{key}__in": ids})
            boards = dict(found.values_list(key).annotate(n=models.Count("id")))
        if hasattr(model, "papers_by_year"):
            fields.append("papers_by_year")
            rows = (
                links.filter(paper__published__isnull=False, paper__date_uncertain=False)
                .annotate(year=ExtractYear("paper__published"))
                .values_list(key, "year")
                .annotate(n=models.Count("paper_id"))
            )
            for pk, year, n in rows:
                years.setdefault(pk, {})[str(year)] = n
        fields += EXECUTION_FIELDS
        execution = _execution(links, key)
        changed = []
        for pk, *stored in self.order_by().values_list("id", *fields):
            fresh = {
                "paper_count": papers.get(pk, 0),
                "benchmark_count": boards.get(pk, 0),
                "code_paper_count": code.get(pk, 0),
                "papers_by_year": dict(sorted(years.get(pk, {}).items())),
                **(execution.get(pk) or _Execution()).fields(),
            }
            values = [fresh[f] for f in fields]
            if values != stored:
                changed.append((*values, pk))
        # Plain UPDATEs: bulk_update builds a CASE expression per record and field, which
        # for every task, method and dataset of an archive costs more time and memory
        # at the end of an import than the queries above.
        return update_rows(model, fields, changed)


class CuratedManager(SlugManager.from_queryset(CuratedQuerySet)):
    pass


# The execution aggregates of a task, method or dataset (Curated), which refresh_counts()
# keeps beside its paper counts.
EXECUTION_FIELDS = [
    "report_paper_count",
    "sample_statuses",
    "status_paper_counts",
    "report_claims",
]
CLAIMS_KEPT = 3  # distinct claim sentences a record keeps, the most common first


class _Execution:
    """One record's fresh execution aggregates, as _execution() adds them up."""

    __slots__ = ("claims", "papers", "samples", "statuses")

    def __init__(self):
        self.papers = 0
        self.samples: dict[str, int] = {}
        self.statuses: dict[str, int] = {}
        self.claims: Counter[str] = Counter()

    def fields(self) -> dict:
        by_samples = sorted(self.samples.items(), key=lambda item: (-item[1], item[0]))
        return {
            "report_paper_count": self.papers,
            "sample_statuses": dict(by_samples),
            "status_paper_counts": {status: self.statuses[status] for status, _ in by_samples},
            "report_claims": [claim for claim, _ in self.claims.most_common(CLAIMS_KEPT)],
        }


def _execution(links, key: str) -> dict[int, _Execution]:
    """Per record: its visible papers with code whose code has an execution report, their
    samples by status (from each paper's own counts, Paper.sample_statuses, which the
    search's status filter reads too), how many of them have a sample of each status,
    and their claim sentences. One query, streamed: a row per (record, reported paper)."""
    found: dict[int, _Execution] = {}
    rows = links.filter(paper__code_link_count__gt=0, paper__has_report=True).values_list(
        key, "paper__sample_statuses", "paper__report_claim"
    )
    for pk, statuses, claim in rows.iterator(chunk_size=5000):
        record = found.get(pk)
        if record is None:
            record = found[pk] = _Execution()
        record.papers += 1
        for status, n in (statuses or {}).items():
            if n:
                record.samples[status] = record.samples.get(status, 0) + n
                record.statuses[status] = record.statuses.get(status, 0) + 1
        if claim:
            record.claims[claim] += 1
    return found


def refresh_browse_counts() -> int:
    """Every task's, method's and dataset's counts (see CuratedQuerySet.refresh_counts),
    the venues (papers.models.venues.refresh_venues()), then every leaderboard's rankings
    (papers.rankings.refresh_boards()): what an import must call once its papers'
    counts, links and leaderboards are written."""
    from papers.rankings import refresh_boards  # it reads these models

    changed = sum(model.objects.refresh_counts() for model in (Task, Method, Dataset))
    changed += refresh_venues()
    refresh_boards()
    return changed


def linked_records(paper_ids) -> dict[type, set]:
    """The ids of the tasks, methods and datasets these papers are linked to, and of the
    leaderboards with rows of theirs, by model, and (under Venue) the `proceeding`
    values they hold, which name their venues: one query a model."""
    ids = sorted({pk for pk in paper_ids if pk is not None})
    found: dict[type, set] = {model: set() for model in (Task, Method, Dataset, Leaderboard)}
    found[Venue] = set()
    if not ids:
        return found
    rows = Paper.objects.filter(id__in=ids).exclude(proceeding="").order_by()
    found[Venue] = set(rows.values_list("proceeding", flat=True).distinct())
    for model in (Task, Method, Dataset):
        link = model._meta.get_field("paper_links").related_model
        key = f"{model._meta.model_name}_id"
        rows = link.objects.filter(paper_id__in=ids).order_by().values_list(key, flat=True)
        found[model] = set(rows.distinct())
    rows = LeaderboardRow.objects.filter(paper_id__in=ids).order_by()
    found[Leaderboard] = set(rows.values_list("leaderboard_id", flat=True).distinct())
    return found


def refresh_browse_counts_of_papers(paper_ids, also: dict | None = None) -> int:
    """After an edit of these papers, their links or their reports (once the papers' own
    counts are fresh): the counts of the tasks, methods and datasets they are linked to,
    the rankings of the leaderboards they have rows on, and those of the records `also`
    names ({Task: {ids}, Leaderboard: {ids}, …}: those linked before the edit, which it
    may have unlinked). The admin's one way to keep the browse counts true; an import
    refreshes every record instead (refresh_browse_counts())."""
    from papers.rankings import refresh_boards  # it reads these models

    wanted = linked_records(paper_ids)
    changed = 0
    for model, ids in wanted.items():
        ids |= {pk for pk in (also or {}).get(model, ()) if pk is not None}
        if not ids:
            continue
        if model is Leaderboard:
            refresh_boards(ids)
        elif model is Venue:
            changed += refresh_venues(ids)
        else:
            changed += model.objects.filter(id__in=sorted(ids)).refresh_counts()
    return changed


class Curated(Record):
    """A task, method or dataset: slug identity, name, description, and a junk flag."""

    slug = models.CharField(max_length=255)
    name = models.CharField(max_length=500)
    description = models.TextField(blank=True)
    hidden = models.BooleanField(
        default=False,
        help_text="Flagged as junk (e.g. a placeholder record): kept, but left out of lists. "
        "Untick to show it again.",
    )
    # Denormalised for the browse pages; CuratedQuerySet.refresh_counts() keeps them true
    # (imports through refresh_browse_counts(), the admin through
    # refresh_browse_counts_of_papers()).
    paper_count = models.IntegerField(
        default=0, editable=False, help_text="Visible papers linked to it."
    )
    code_paper_count = models.IntegerField(
        default=0, editable=False, help_text="Visible papers linked to it that have code."
    )
    report_paper_count = models.IntegerField(
        default=0,
        editable=False,
        help_text="Of its papers with code, those with an execution report.",
    )
    sample_statuses = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="The samples of those reports by status: {status: number of samples}, "
        "most first. Statuses outside the vocabulary are kept verbatim.",
    )
    status_paper_counts = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="{status: number of those papers with a sample of that status}.",
    )
    report_claims = models.JSONField(
        default=list,
        blank=True,
        editable=False,
        help_text="The claim sentences of those reports as the records word them (the "
        "most common first, at most three).",
    )

    objects = CuratedManager()

    class Meta:
        abstract = True
        ordering = ["name"]
        indexes = [
            # Search filters by name in any case (papers.querysets.named_ids): PostgreSQL
            # compares UPPER(name); the slug side of that OR has its unique index.
            models.Index(Upper("name"), name="%(class)s_name_upper_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    def natural_key(self):
        return (self.slug,)

    @staticmethod
    def slug_for(name: str) -> str:
        return slugify(name)[:255]


class Task(Curated):
    categories = models.JSONField(
        default=list, blank=True, help_text="Areas, as the archive names them."
    )
    source_link = models.CharField(max_length=500, blank=True)
    source_link_title = models.CharField(
        max_length=500, blank=True, help_text='The source link\'s title ("CheXpert Leaderboard").'
    )
    content_key = models.CharField(
        max_length=40,
        blank=True,
        editable=False,
        help_text="A digest of what the evaluation tables hold under this task (description, "
        "datasets, subtasks): a subtask repeated under several parents is one task, a "
        "different node of the same name is another.",
    )
    parents = models.ManyToManyField(
        "self",
        through="TaskEdge",
        through_fields=("child", "parent"),
        symmetrical=False,
        related_name="subtasks",
        blank=True,
    )
    benchmark_count = models.IntegerField(
        default=0, editable=False, help_text="Its leaderboards (one per dataset)."
    )

    class Meta(Curated.Meta):
        constraints = [models.UniqueConstraint(fields=["slug"], name="task_slug_unique")]

    def get_absolute_url(self) -> str:
        return reverse("task", kwargs={"slug": self.slug})


class TaskEdgeManager(models.Manager):
    def get_by_natural_key(self, parent_slug, child_slug):
        return self.get(parent__slug=parent_slug, child__slug=child_slug)


class TaskEdge(models.Model):
    """parent → subtask. A subtask may sit under several parents, so this is a graph."""

    # No index of its own: taskedge_unique starts with this column.
    parent = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="child_edges", db_index=False
    )
    child = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="parent_edges")
    position = models.PositiveIntegerField(default=0)

    objects = TaskEdgeManager()

    class Meta:
        ordering = ["parent_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["parent", "child"], name="taskedge_unique"),
            models.CheckConstraint(
                condition=~models.Q(parent=models.F("child")), name="taskedge_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.parent} → {self.child}"

    def natural_key(self):
        return (self.parent.slug, self.child.slug)

    natural_key.dependencies = ["papers.task"]


class Collection(Record):
    """A method collection ("Generative Models"), within an area ("Computer Vision")."""

    slug = models.CharField(max_length=255)
    name = models.CharField(max_length=500)
    area_id = models.CharField(max_length=255, blank=True)
    area = models.CharField(max_length=255, blank=True)
    description = models.TextField(blank=True)

    objects = SlugManager()

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["slug"], name="collection_slug_unique")]

    def __str__(self) -> str:
        return self.name

    def natural_key(self):
        return (self.slug,)


class Method(Curated):
    full_name = models.CharField(max_length=1000, blank=True)
    introduced_by = models.ForeignKey(
        "Paper",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="methods_introduced",
    )
    paper_title = models.CharField(
        max_length=1000,
        blank=True,
        help_text="The introducing paper's title as the archive gives it.",
    )
    paper_url = models.CharField(max_length=500, blank=True)
    introduced_year = models.IntegerField(null=True, blank=True)
    year_uncertain = models.BooleanField(
        default=False,
        help_text="The archive's year is its placeholder for unknown (2000) or impossible: "
        "not shown.",
    )
    source_url = models.CharField(max_length=500, blank=True)
    source_title = models.CharField(max_length=1000, blank=True)
    code_snippet_url = models.CharField(max_length=500, blank=True)
    num_papers = models.IntegerField(null=True, blank=True)
    collections = models.ManyToManyField(
        Collection, through="MethodCollection", related_name="methods", blank=True
    )
    papers_by_year = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="Year → visible papers using it (dated with certainty), for its chart.",
    )

    class Meta(Curated.Meta):
        constraints = [models.UniqueConstraint(fields=["slug"], name="method_slug_unique")]

    def get_absolute_url(self) -> str:
        return reverse("method", kwargs={"slug": self.slug})

    @property
    def shown_year(self) -> int | None:
        return None if self.year_uncertain else self.introduced_year

    @property
    def paper_slug(self) -> str:
        """The introducing paper's slug: the paper's if imported, else the one its URL
        names (the archive names papers it does not hold)."""
        from papers.archive.read.normalise import paper_slug

        if self.introduced_by_id is not None:
            return self.introduced_by.slug
        return paper_slug(self.paper_url, "paper_url")


class MethodCollectionManager(models.Manager):
    def get_by_natural_key(self, method_slug, collection_slug):
        return self.get(method__slug=method_slug, collection__slug=collection_slug)


class MethodCollection(models.Model):
    """A method's collections in the dump's order: the first is its primary one."""

    # No index of its own: methodcollection_unique starts with this column.
    method = models.ForeignKey(Method, on_delete=models.CASCADE, db_index=False)
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE)
    position = models.PositiveSmallIntegerField(default=0)

    objects = MethodCollectionManager()

    class Meta:
        ordering = ["method_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["method", "collection"], name="methodcollection_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.method} in {self.collection}"

    def natural_key(self):
        return (self.method.slug, self.collection.slug)

    natural_key.dependencies = ["papers.method", "papers.collection"]


class Dataset(Curated):
    full_name = models.CharField(max_length=1000, blank=True)
    homepage = models.CharField(max_length=500, blank=True)
    introduced_date = models.DateField(null=True, blank=True)
    date_uncertain = models.BooleanField(
        default=False,
        help_text="The date is before 1900 or after the snapshot: kept but not shown as a fact.",
    )
    introduced_by = models.ForeignKey(
        "Paper",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="datasets_introduced",
    )
    paper_title = models.CharField(max_length=1000, blank=True)
    paper_url = models.CharField(max_length=500, blank=True)
    paper_year = models.IntegerField(
        null=True, blank=True, help_text="The introducing paper's year, where the source gives it."
    )
    modalities = models.JSONField(default=list, blank=True)
    languages = models.JSONField(default=list, blank=True)
    variants = models.JSONField(default=list, blank=True)
    num_papers = models.IntegerField(null=True, blank=True)
    tasks = models.ManyToManyField(Task, related_name="datasets", blank=True)
    extra = models.JSONField(
        default=dict, blank=True, help_text="Keys this site does not model, kept."
    )
    in_dump = models.BooleanField(
        default=False,
        editable=False,
        help_text="Described by a datasets file; unset for a name only leaderboards or "
        "records mention, which the first dataset record of that name fills in.",
    )
    benchmark_count = models.IntegerField(
        default=0, editable=False, help_text="Its leaderboards (one per task)."
    )

    class Meta(Curated.Meta):
        constraints = [models.UniqueConstraint(fields=["slug"], name="dataset_slug_unique")]
        indexes = [
            *Curated.Meta.indexes,
            # Datasets known by name: the importer finds a dataset record's row by name.
            models.Index(fields=["name"], name="dataset_name_idx"),
        ]

    def get_absolute_url(self) -> str:
        return reverse("dataset", kwargs={"slug": self.slug})


class PaperLinkManager(models.Manager):
    target = ""

    def get_by_natural_key(self, paper_slug, target_slug):
        return self.get(paper__slug=paper_slug, **{f"{self.target}__slug": target_slug})


class PaperTaskManager(PaperLinkManager):
    target = "task"


class PaperMethodManager(PaperLinkManager):
    target = "method"


class PaperDatasetManager(PaperLinkManager):
    target = "dataset"


class PaperTask(models.Model):
    # No index of its own: papertask_unique starts with this column.
    paper = models.ForeignKey(
        "Paper", on_delete=models.CASCADE, related_name="task_links", db_index=False
    )
    # No index of its own: papertask_task_idx starts with this column.
    task = models.ForeignKey(
        Task, on_delete=models.CASCADE, related_name="paper_links", db_index=False
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in the record.")
    name = models.CharField(
        max_length=500, blank=True, help_text="The name as this paper's record spells it."
    )

    objects = PaperTaskManager()

    class Meta:
        ordering = ["paper_id", "position"]
        constraints = [models.UniqueConstraint(fields=["paper", "task"], name="papertask_unique")]
        indexes = [
            # The task page's papers and the search task filter.
            models.Index(fields=["task", "paper"], name="papertask_task_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.paper_id} · {self.task}"

    def natural_key(self):
        return (self.paper.slug, self.task.slug)

    natural_key.dependencies = ["papers.paper", "papers.task"]


class PaperMethod(models.Model):
    # No index of its own: papermethod_unique starts with this column.
    paper = models.ForeignKey(
        "Paper", on_delete=models.CASCADE, related_name="method_links", db_index=False
    )
    # No index of its own: papermethod_method_idx starts with this column.
    method = models.ForeignKey(
        Method, on_delete=models.CASCADE, related_name="paper_links", db_index=False
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in the record.")
    name = models.CharField(
        max_length=500, blank=True, help_text="The name as this paper's record spells it."
    )

    objects = PaperMethodManager()

    class Meta:
        ordering = ["paper_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "method"], name="papermethod_unique")
        ]
        indexes = [
            # The method page's papers and the search method filter.
            models.Index(fields=["method", "paper"], name="papermethod_method_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.paper_id} · {self.method}"

    def natural_key(self):
        return (self.paper.slug, self.method.slug)

    natural_key.dependencies = ["papers.paper", "papers.method"]


class PaperDataset(models.Model):
    # No index of its own: paperdataset_unique starts with this column.
    paper = models.ForeignKey(
        "Paper", on_delete=models.CASCADE, related_name="dataset_links", db_index=False
    )
    # No index of its own: paperdataset_dataset_idx starts with this column.
    dataset = models.ForeignKey(
        Dataset, on_delete=models.CASCADE, related_name="paper_links", db_index=False
    )
    position = models.PositiveSmallIntegerField(default=0, help_text="Order in the record.")

    objects = PaperDatasetManager()

    class Meta:
        ordering = ["paper_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "dataset"], name="paperdataset_unique")
        ]
        indexes = [
            # The dataset page's papers and the search dataset filter.
            models.Index(fields=["dataset", "paper"], name="paperdataset_dataset_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.paper_id} · {self.dataset}"

    def natural_key(self):
        return (self.paper.slug, self.dataset.slug)

    natural_key.dependencies = ["papers.paper", "papers.dataset"]
