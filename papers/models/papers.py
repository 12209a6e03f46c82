from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

from django.conf import settings
from django.db import models
from django.db.models.lookups import In, IsNull
from django.urls import reverse
from django.utils.text import slugify

from papers.identifiers import PAPER_SLUG, arxiv_of_slug, parse_arxiv
from papers.models.base import Record, SlugManager


def uncertain_date(value: dt.date | None, *, from_arxiv: bool = False) -> bool:
    """Dates before 1900 or after the archive snapshot are kept but marked uncertain. A
    date arXiv gives (a paper harvested since: `from_arxiv`, it has an arXiv category) is
    its first version's, uncertain only if it lies in the future."""
    if value is None:
        return False
    if from_arxiv:
        return value.year < 1900 or value > dt.date.today() + dt.timedelta(days=1)
    snapshot = dt.date.fromisoformat(settings.ARCHIVE_SNAPSHOT)
    return value.year < 1900 or value > snapshot


# The methods dump writes `introduced_year: 2000` for "unknown" (most methods have it).
PLACEHOLDER_YEAR = 2000


def uncertain_year(year: int | None) -> bool:
    """A method's introduced year that is the dump's placeholder, or impossible (after the
    snapshot, or before modern science); real early years stand (SGD 1951, LSTM 1997)."""
    if year is None:
        return False
    snapshot = dt.date.fromisoformat(settings.ARCHIVE_SNAPSHOT)
    return year == PLACEHOLDER_YEAR or year > snapshot.year or year < 1600


# A paper's date as newest-first lists read it: none when the date is flagged uncertain
# (a placeholder such as 2099-12-15, past the snapshot), so such a paper sorts with the
# undated ones instead of before every real date. Written without bound parameters, so
# that SQLite matches the ORDER BY to paper_newest_idx's expressions.
LISTED_DATE = models.Case(
    models.When(
        models.ExpressionWrapper(models.F("date_uncertain"), models.BooleanField()),
        then=models.Value(None),
    ),
    default=models.F("published"),
    output_field=models.DateField(),
)
UNDATED = IsNull(LISTED_DATE, True)
# Newest first, undated (and uncertain) papers last, by id, the same on every engine: the
# order paper_newest_idx serves. Undated papers come last by the first key, not by NULLS
# LAST, which SQLite cannot say in an index and PostgreSQL's DESC does not do.
NEWEST_FIRST = (UNDATED.asc(), LISTED_DATE.desc(), models.F("id").desc())


class Unindexed(models.Func):
    """A column compared without an index on SQLite, which reads `+column` as a term no
    index serves; the bare column elsewhere. For a list read newest first from
    paper_newest_idx: SQLite's planner would rather answer `code_link_count > 0` or a
    year's range from their own indexes, then sort every match."""

    template = "%(expressions)s"
    arity = 1

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template="+%(expressions)s", **extra_context)


class PaperQuerySet(models.QuerySet):
    def visible(self):
        return self.filter(hidden=False)

    def with_code(self, *, walked: bool = False):
        """Papers with code. `walked`: for a list read down another index (newest first),
        the term is one no index serves (Unindexed), which is also how SQLite counts
        them fastest."""
        if walked:
            return self.alias(walked_links=Unindexed("code_link_count")).filter(walked_links__gt=0)
        return self.filter(code_link_count__gt=0)

    def without_code(self):
        # A range, not `= 0`: SQLite answers an equality from paper_codecount_idx (every
        # codeless paper, then sorted) rather than walking the newest-first index.
        return self.filter(code_link_count__lt=1)

    def newest_with_code(self):
        """latest() with code, read down paper_newest_idx until a page is full."""
        return self.latest().with_code(walked=True)

    def latest(self):
        """Newest first, leaving out papers whose date is flagged uncertain."""
        return (
            self.visible()
            .filter(date_uncertain=False, published__isnull=False)
            .order_by(*NEWEST_FIRST)
        )

    def in_category(self, category: str):
        """Papers arXiv lists in `category` ("cs.CV"), as primary or cross-list."""
        c = category
        return self.filter(
            models.Q(arxiv_primary_category=c)
            | models.Q(arxiv_categories=c)
            | models.Q(arxiv_categories__startswith=f"{c} ")
            | models.Q(arxiv_categories__endswith=f" {c}")
            | models.Q(arxiv_categories__contains=f" {c} ")
        )

    def with_authors(self):
        """With their authorships in order, each with its author (two queries in all)."""
        return self.prefetch_related(
            models.Prefetch(
                "authorships", PaperAuthor.objects.select_related("author").order_by("position")
            )
        )

    def named_by(self, text: str) -> Paper | None:
        """The visible paper an arXiv id ("2006.12467", "arXiv:2006.12467v3", an arXiv URL)
        or a Papers with Code slug names, or None."""
        text = text.strip()
        arxiv = parse_arxiv(text) if text and " " not in text else ""
        if arxiv:
            return self.visible().filter(arxiv_id=arxiv).order_by("id").first()
        if PAPER_SLUG.match(text) and "-" in text:
            return self.visible().filter(slug=text).first()
        return None

    def renamed_from(self, slug: str) -> Paper | None:
        """The paper that was known by its arXiv id only ("arxiv-2006.12467") and has since
        taken its Papers with Code slug, or None: the old address leads to it."""
        arxiv = arxiv_of_slug(slug)
        if not arxiv or self.filter(slug=slug).exists():
            return None
        return self.visible().filter(arxiv_id=arxiv).order_by("id").first()


class PaperManager(SlugManager.from_queryset(PaperQuerySet)):
    pass


class Paper(Record):
    """A paper, identified by its slug (the last part of its Papers with Code URL)."""

    slug = models.CharField(max_length=255, help_text="Stable identity: /paper/<slug>.")
    title = models.CharField(max_length=1000, blank=True)
    # NULL, not "": a paper without an arXiv id has no second key (and records say null).
    arxiv_id = models.CharField("arXiv id", max_length=32, null=True, blank=True)  # noqa: DJ001
    nips_id = models.CharField("NeurIPS id", max_length=64, blank=True)
    openreview_id = models.CharField("OpenReview id", max_length=64, blank=True)
    published = models.DateField(null=True, blank=True)
    date_uncertain = models.BooleanField(
        default=False,
        help_text="Before 1900 or after the snapshot date: shown as uncertain and kept out "
        "of latest-paper lists.",
    )
    proceeding = models.CharField(max_length=255, blank=True)
    conference = models.CharField(max_length=255, blank=True)
    conference_url_abs = models.CharField("conference abstract URL", max_length=500, blank=True)
    conference_url_pdf = models.CharField("conference PDF URL", max_length=500, blank=True)
    abstract = models.TextField(blank=True)
    short_abstract = models.TextField(blank=True)
    url_abs = models.CharField("abstract URL", max_length=500, blank=True)
    url_pdf = models.CharField("PDF URL", max_length=500, blank=True)
    hidden = models.BooleanField(
        default=False, help_text="Hidden papers are kept but left out of lists and search."
    )
    source_rank = models.PositiveSmallIntegerField(
        default=0,
        editable=False,
        help_text="The highest-ranked archive source that has written this paper: 0 a link or "
        "leaderboard row, 1 the papers dump, 2 a full record. Lower-ranked sources never "
        "overwrite its values, so files import to the same state in any order.",
    )

    # Provenance: the record's `source` block.
    source_archive = models.CharField(max_length=255, blank=True)
    source_snapshot = models.CharField(max_length=32, blank=True)
    source_row_kind = models.CharField(max_length=64, blank=True)
    source_licence_url = models.CharField(max_length=500, blank=True)

    # The execution report's header: the record's `syntology` block without its
    # samples (Sample), repositories (ReportRepository) and counts (derived).
    has_report = models.BooleanField(default=False)
    report_url = models.CharField(max_length=500, blank=True)
    report_atlas_url = models.CharField(max_length=500, blank=True)
    report_developers_url = models.CharField(max_length=500, blank=True)
    report_mcp = models.JSONField(null=True, blank=True)
    report_read_at = models.DateTimeField(null=True, blank=True)
    report_read_at_is = models.CharField(max_length=500, blank=True)
    report_claim = models.TextField(blank=True)
    report_repo_kind_vocabulary = models.JSONField(default=dict, blank=True)
    report_n_pointer_only_for_licence = models.IntegerField(null=True, blank=True)

    arxiv_metadata = models.JSONField(null=True, blank=True)
    # arXiv's classification (papers.arxiv): the primary category, shown as a badge, and
    # every category the paper is listed in, space-separated, primary first.
    arxiv_primary_category = models.CharField("arXiv primary category", max_length=32, blank=True)
    arxiv_categories = models.CharField("arXiv categories", max_length=500, blank=True)
    extracted_results = models.JSONField(null=True, blank=True)
    extra = models.JSONField(
        default=dict, blank=True, help_text="Keys of the record this site does not model, kept."
    )

    # Denormalised for search and lists: the authors' names in order, kept by the importer
    # and papers.kept (Paper.refresh_author_names) so the full-text index can weigh them.
    author_names = models.TextField(blank=True, editable=False)
    # Denormalised for lists, sorting, search filters and facets; papers.kept.papers keeps
    # them true wherever links or samples change (imports, papers.kept.after_write()).
    code_link_count = models.IntegerField(default=0, editable=False)
    has_official_code = models.BooleanField(default=False, editable=False)
    sample_count = models.IntegerField(default=0, editable=False)
    frameworks = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="The code links' frameworks: {framework: number of links}.",
    )
    sample_statuses = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="The execution report's samples by status: {status: number of samples}.",
    )

    authors = models.ManyToManyField("Author", through="PaperAuthor", related_name="papers")
    tasks = models.ManyToManyField("Task", through="PaperTask", related_name="papers")
    methods = models.ManyToManyField("Method", through="PaperMethod", related_name="papers")
    datasets = models.ManyToManyField("Dataset", through="PaperDataset", related_name="papers")

    objects = PaperManager()

    class Meta:
        ordering = ["-published", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["slug"], name="paper_slug_unique"),
        ]
        indexes = [
            # Second key: /search?q=2006.12467 and leaderboard rows resolved by arXiv id.
            models.Index(fields=["arxiv_id"], name="paper_arxiv_idx"),
            # The search's year filters and the admin's year filter (published ranges).
            models.Index(fields=["-published", "-id"], name="paper_published_idx"),
            # Every newest-first list (NEWEST_FIRST: the home page, task, method, dataset,
            # author, repository and venue pages, search without words, the API, the
            # admin).
            models.Index(*NEWEST_FIRST, name="paper_newest_idx"),
            # The visible papers whose code has a report, newest first (the search's
            # has_report filter without words: its page and its capped count read this
            # index alone, not every paper).
            models.Index(
                *NEWEST_FIRST,
                condition=models.Q(has_report=True, hidden=False),
                name="paper_report_newest_idx",
            ),
            # A venue's papers, newest first (/conference/<slug>: papers.models.venues),
            # and the venues' counts.
            models.Index(models.F("proceeding"), *NEWEST_FIRST, name="paper_proceeding_idx"),
            # "Most implementations" sort and the has-code filter.
            models.Index(fields=["-code_link_count", "-id"], name="paper_codecount_idx"),
            # compute_related --only-new: papers created since the last run.
            models.Index(fields=["created_at"], name="paper_created_idx"),
            # /latest?category=cs.CV and its feed: a category's newest papers.
            models.Index(
                models.F("arxiv_primary_category"), *NEWEST_FIRST, name="paper_category_idx"
            ),
        ]

    def __str__(self) -> str:
        return self.title or self.slug

    def get_absolute_url(self) -> str:
        # `/paper/<slug>.json` is a paper's record: a slug ending in ".json" gets a page
        # address of its own, with a trailing slash.
        name = "papers:paper-dot-json" if self.slug.endswith(".json") else "papers:paper"
        return reverse(name, kwargs={"slug": self.slug})

    def natural_key(self):
        return (self.slug,)

    @property
    def paper_url(self) -> str:
        return f"/paper/{self.slug}"

    def refresh_flags(self) -> None:
        self.date_uncertain = uncertain_date(
            self.published, from_arxiv=bool(self.arxiv_primary_category)
        )

    @property
    def arxiv_category_list(self) -> list[str]:
        return self.arxiv_categories.split()

    def refresh_author_names(self) -> None:
        names = self.authorships.order_by("position").values_list("author__name", flat=True)
        Paper.objects.filter(pk=self.pk).update(author_names=", ".join(names))


class Holds(models.Lookup):
    """`frameworks__holds="pytorch"`: the JSON object has this key, exactly. (Django's
    has_key builds a JSON path on SQLite, which reads a key holding a quote as another
    key; the archive's values are kept verbatim, quotes and all.)"""

    lookup_name = "holds"
    prepare_rhs = False

    def as_sql(self, compiler, connection):
        lhs, params = self.process_lhs(compiler, connection)
        return f"({lhs} ? %s)", [*params, self.rhs]

    def as_sqlite(self, compiler, connection):
        lhs, params = self.process_lhs(compiler, connection)
        return f"EXISTS (SELECT 1 FROM json_each({lhs}) WHERE key = %s)", [*params, self.rhs]


for _name in ("frameworks", "sample_statuses"):
    Paper._meta.get_field(_name).register_lookup(Holds)


class Author(Record):
    name = models.CharField(max_length=500)
    slug = models.CharField(max_length=255)

    objects = SlugManager()

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["slug"], name="author_slug_unique")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("papers:author", kwargs={"slug": self.slug})

    def natural_key(self):
        return (self.slug,)

    @staticmethod
    def slug_for(name: str) -> str:
        return slugify(name)[:255] or "unknown"


class PaperAuthorManager(models.Manager):
    def get_by_natural_key(self, paper_slug, position):
        return self.get(paper__slug=paper_slug, position=position)


class PaperAuthor(models.Model):
    """The ordered author list: position 0 is the first author."""

    # No index of its own: paperauthor_position_unique starts with this column.
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
    # No index of its own: paperauthor_author_idx starts with this column.
    author = models.ForeignKey(
        Author, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
    position = models.PositiveSmallIntegerField()
    name = models.CharField(
        max_length=500, blank=True, help_text="The name as this paper's record spells it."
    )

    objects = PaperAuthorManager()

    class Meta:
        ordering = ["paper_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "position"], name="paperauthor_position_unique"
            )
        ]
        indexes = [
            # The author page: an author's papers.
            models.Index(fields=["author", "paper"], name="paperauthor_author_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.author} (#{self.position + 1})"

    def natural_key(self):
        return (self.paper.slug, self.position)

    natural_key.dependencies = ["papers.paper", "papers.author"]


class RepositoryManager(models.Manager):
    def get_by_natural_key(self, url):
        return self.get(url=url)


class Repository(Record):
    url = models.CharField("URL", max_length=500)
    host = models.CharField(max_length=255, blank=True)
    owner = models.CharField(max_length=255, blank=True)
    name = models.CharField(max_length=255, blank=True)
    licence = models.CharField("licence (SPDX)", max_length=100, blank=True)
    reach_status = models.CharField(
        "reachability", max_length=32, blank=True, help_text="As the archive reports it: ok, gone…"
    )
    description = models.TextField(blank=True)
    stars = models.IntegerField(null=True, blank=True)

    objects = RepositoryManager()

    class Meta:
        ordering = ["host", "owner", "name"]
        verbose_name_plural = "repositories"
        constraints = [models.UniqueConstraint(fields=["url"], name="repository_url_unique")]
        indexes = [
            # /repo/<host>/<owner>/<name> looks a repository up by its parts.
            models.Index(fields=["host", "owner", "name"], name="repository_parts_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}" if self.owner else self.url

    def get_absolute_url(self) -> str:
        return reverse(
            "papers:repository", kwargs={"host": self.host, "owner": self.owner, "name": self.name}
        )

    @property
    def has_page(self) -> bool:
        """/repo/<host>/<owner>/<name> needs all three: a URL like `javascript:x` or
        `https://example.org/` gives none (and no link to a page)."""
        return bool(self.host and self.owner and self.name)

    def natural_key(self):
        return (self.url,)

    def save(self, *args, **kwargs):
        self.host, self.owner, self.name = self.parts_from_url(self.url)
        super().save(*args, **kwargs)

    @staticmethod
    def parts_from_url(url: str) -> tuple[str, str, str]:
        """('github.com', 'owner', 'name') from a repository URL; owner is the whole
        middle path for nested groups (GitLab subgroups)."""
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower()
        segments = [s for s in parts.path.split("/") if s]
        if segments and segments[-1].endswith(".git"):
            segments[-1] = segments[-1][:-4]
        if len(segments) >= 2:
            return host, "/".join(segments[:-1])[:255], segments[-1][:255]
        return host, "", (segments[0] if segments else "")[:255]


class CodeLinkManager(models.Manager):
    def get_by_natural_key(self, paper_slug, repository_url):
        return self.get(paper__slug=paper_slug, repository__url=repository_url)


class CodeLink(Record):
    """A paper ↔ repository link from the links-between-papers-and-code dump."""

    # No index of its own: codelink_unique starts with this column.
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="code_links", db_index=False
    )
    # No index of its own: codelink_repository_idx starts with this column.
    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="code_links", db_index=False
    )
    is_official = models.BooleanField(default=False)
    mentioned_in_paper = models.BooleanField(default=False)
    mentioned_in_github = models.BooleanField(default=False)
    framework = models.CharField(max_length=64, blank=True)
    position = models.PositiveIntegerField(default=0, help_text="Order in the record.")

    objects = CodeLinkManager()

    class Meta:
        ordering = ["paper_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "repository"], name="codelink_unique")
        ]
        indexes = [
            # The repository page: a repository's papers.
            models.Index(fields=["repository", "paper"], name="codelink_repository_idx"),
            # The framework filter on search.
            models.Index(fields=["framework"], name="codelink_framework_idx"),
            # The framework filter checked paper by paper as a search walks its matches,
            # and the framework facet: answered from the index alone.
            models.Index(fields=["paper", "framework"], name="codelink_paper_framework_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.paper.slug} → {self.repository.url}"

    def natural_key(self):
        return (self.paper.slug, self.repository.url)

    natural_key.dependencies = ["papers.paper", "papers.repository"]


class RelatedPaperQuerySet(models.QuerySet):
    def shown(self):
        """Entries a reader may see: not hidden by staff, naming a paper not hidden. The
        lists are computed in bulk and go stale between runs; this filter (with deletion
        cascading) is what keeps a stale list from ever showing a hidden paper."""
        return self.filter(hidden=False, related__hidden=False)

    def section(self, paper: Paper, limit: int = 20):
        """The paper page's "Related papers" section, in rank order, in one query."""
        return (
            self.shown()
            .filter(paper=paper)
            .select_related("related")
            .only("rank", "related", "related__slug", "related__title", "related__abstract")
            .order_by("rank", "id")[:limit]
        )


class RelatedPaperManager(models.Manager.from_queryset(RelatedPaperQuerySet)):
    def get_by_natural_key(self, paper_slug, related_slug):
        return self.get(paper__slug=paper_slug, related__slug=related_slug)


class RelatedPaper(models.Model):
    """One entry of a paper's "Related papers" list, computed by compute_related."""

    # No index of its own: relatedpaper_unique starts with this column.
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="related_entries", db_index=False
    )
    related = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField()
    rank = models.PositiveSmallIntegerField()
    hidden = models.BooleanField(default=False, help_text="Hidden by staff: never shown.")

    objects = RelatedPaperManager()

    class Meta:
        ordering = ["paper_id", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "related"], name="relatedpaper_unique"),
        ]
        indexes = [
            # The paper page's section: a paper's list in rank order.
            models.Index(fields=["paper", "rank"], name="relatedpaper_rank_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.paper.slug} ~ {self.related.slug} ({self.score:.3f})"

    def natural_key(self):
        return (self.paper.slug, self.related.slug)

    natural_key.dependencies = ["papers.paper"]


class ReadFirst(In):
    """`id__read_first=<subquery>`: IN, with the subquery's rows read first on
    PostgreSQL (`= ANY(ARRAY(…))`, an init plan). Its planner would otherwise join a
    small set of linked papers (an author's) by walking paper_newest_idx until a page is
    found, tens of thousands of papers, rather than reading the few ids and sorting."""

    lookup_name = "read_first"

    def as_postgresql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} = ANY(ARRAY{rhs})", (*lhs_params, *rhs_params)


Paper._meta.get_field("id").register_lookup(ReadFirst)
