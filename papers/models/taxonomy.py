"""Tasks, methods (with their collections) and datasets, and how papers use them."""

from django.db import models
from django.db.models.functions import Upper
from django.urls import reverse
from django.utils.text import slugify

from papers.models.base import Record, SlugManager


class CuratedQuerySet(models.QuerySet):
    """Tasks, methods or datasets, with the denormalised counts the browse pages sort and
    show (`paper_count`, `code_paper_count`, the execution aggregates, `benchmark_count`,
    a method's `papers_by_year`), which papers.kept.curated keeps."""

    def listed(self):
        return self.filter(hidden=False)


class CuratedManager(SlugManager.from_queryset(CuratedQuerySet)):
    pass


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
    # Denormalised for the browse pages; papers.kept.curated keeps them true (imports
    # through papers.kept.refresh_all(), other writes through papers.kept.after_write()).
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
        return reverse("papers:task", kwargs={"slug": self.slug})


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
        return reverse("papers:method", kwargs={"slug": self.slug})

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

    @property
    def loaders(self) -> list[dict]:
        """The archive's data loaders of the dataset (kept in `extra`): each its URL, the
        repository holding it, its frameworks and the text to show; the same URL once."""
        found, seen = [], set()
        given = (self.extra or {}).get("data_loaders") if isinstance(self.extra, dict) else None
        for item in given if isinstance(given, list) else []:
            if not isinstance(item, dict) or not isinstance(item.get("url"), str):
                continue
            if item["url"] in seen:
                continue
            seen.add(item["url"])
            frameworks = item.get("frameworks")
            found.append(
                {
                    "url": item["url"],
                    "repo": item.get("repo") if isinstance(item.get("repo"), str) else "",
                    "frameworks": [f for f in frameworks if isinstance(f, str)]
                    if isinstance(frameworks, list)
                    else [],
                    "shown": item["url"].removeprefix("https://").removeprefix("http://"),
                }
            )
        return found

    def get_absolute_url(self) -> str:
        return reverse("papers:dataset", kwargs={"slug": self.slug})


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
