"""sitemap.xml: an index over paged sitemaps of every paper, author, repository, task,
method, dataset and leaderboard page, and the browse pages (django.contrib.sitemaps).

Pages are id ranges, not offsets: page n lists the rows with ids in
(first + (n-1)·LIMIT, first + n·LIMIT], so any page, the 100th as fast as the first, is
one index range scan reading only the columns a URL needs, and the number of pages comes
from the first and last ids (index lookups) instead of COUNT(*) (a scan of 576k rows on every
request). URLs are built without reverse() and dates printed without the date filter:
at 5,000 entries a page renders in about a quarter of a second on SQLite. A page
may hold fewer than LIMIT entries where ids were skipped or rows are hidden. The index
carries no lastmod: Django would compute it by walking every item.
"""

from __future__ import annotations

from urllib.parse import quote

from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as sitemap_views
from django.core.paginator import EmptyPage, PageNotAnInteger
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.functional import cached_property

from codewithpapers.middleware import reads
from codewithpapers.public import PublicRequest
from papers.models import Author, Dataset, Leaderboard, Method, Paper, Repository, Task
from papers.taxonomy import areas

LIMIT = 5_000


class IdRangePage:
    def __init__(self, object_list: QuerySet, number: int):
        self.object_list = object_list
        self.number = number


class IdRangePaginator:
    """What django.contrib.sitemaps needs of a paginator (num_pages, page()), by id range.

    Not papers.paging, which pages every other list by offset: a sitemap page lists
    5,000 rows of tables of up to 576k, and crawlers ask for the deep pages as often as
    the first, which an offset would make walk every row before them (and the count of
    pages a COUNT(*) of the table); an id range is one index scan at any depth."""

    def __init__(self, queryset: QuerySet, per_page: int):
        self.queryset = queryset
        self.per_page = per_page

    @cached_property
    def _bounds(self) -> tuple[int, int]:
        # Two ordered LIMIT 1 lookups: both engines walk the id index from one end. (One
        # MIN/MAX aggregate with the visibility filter is a full scan on SQLite.)
        ids = self.queryset.values_list("id", flat=True)
        low, high = ids.order_by("id").first(), ids.order_by("-id").first()
        return (low or 1) - 1, high or 0

    @property
    def num_pages(self) -> int:
        before, high = self._bounds
        return max(1, -(-(high - before) // self.per_page))

    def page(self, number) -> IdRangePage:
        try:
            number = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger("not a page number") from None
        if not 1 <= number <= self.num_pages:
            raise EmptyPage("no such page")
        before = self._bounds[0]
        low, high = before + (number - 1) * self.per_page, before + number * self.per_page
        return IdRangePage(self.queryset.filter(id__gt=low, id__lte=high), number)


class ArchiveSitemap(Sitemap):
    limit = LIMIT

    @property
    def paginator(self) -> IdRangePaginator:
        return IdRangePaginator(self.items(), self.limit)

    def get_latest_lastmod(self):
        return None

    def lastmod(self, item):
        # A date: the sitemap says the day, and the template prints it with isoformat
        # (Django's date filter costs more than the rest of an entry).
        return item.updated_at.date()

    def location(self, item) -> str:
        # The URL without reverse() (10,000 calls a page): prefix + quoted slug.
        return self.prefix + quote(item.slug, safe="")


class PaperSitemap(ArchiveSitemap):
    prefix = "/paper/"

    def location(self, item) -> str:
        # As Paper.get_absolute_url: a slug ending in ".json" has a trailing slash.
        return super().location(item) + ("/" if item.slug.endswith(".json") else "")

    def items(self):
        return Paper.objects.visible().order_by("id").only("id", "slug", "updated_at")


class AuthorSitemap(ArchiveSitemap):
    prefix = "/author/"

    def items(self):
        return Author.objects.order_by("id").only("id", "slug", "updated_at")


class RepositorySitemap(ArchiveSitemap):
    def location(self, item) -> str:
        return item.get_absolute_url()

    def items(self):
        # Only repositories whose URL names host, owner and name have a page.
        return (
            Repository.objects.exclude(host="")
            .exclude(owner="")
            .exclude(name="")
            .order_by("id")
            .only("id", "host", "owner", "name", "updated_at")
        )


class CuratedSitemap(ArchiveSitemap):
    model = Task

    def items(self):
        return (
            self.model.objects.filter(hidden=False).order_by("id").only("id", "slug", "updated_at")
        )


class TaskSitemap(CuratedSitemap):
    model = Task
    prefix = "/task/"


class MethodSitemap(CuratedSitemap):
    model = Method
    prefix = "/method/"


class DatasetSitemap(CuratedSitemap):
    model = Dataset
    prefix = "/dataset/"


class LeaderboardSitemap(ArchiveSitemap):
    """/sota/<task>-on-<dataset>: every leaderboard, by id range like the rest."""

    def location(self, item) -> str:
        return f"/sota/{quote(item.task.slug, safe='')}-on-{quote(item.dataset.slug, safe='')}"

    def items(self):
        return (
            Leaderboard.objects.select_related("task", "dataset")
            .order_by("id")
            .only("id", "updated_at", "task__slug", "dataset__slug")
        )


class BrowseSitemap(Sitemap):
    """The state-of-the-art index, its areas, and the task, dataset and method indexes: a
    few hundred URLs at most, read from one query of the tasks' categories."""

    def items(self) -> list[str]:
        return ["/sota", "/tasks", "/datasets", "/methods"] + [
            f"/area/{quote(area.slug, safe='')}" for area in areas(keep=0)
        ]

    def location(self, item: str) -> str:
        return item


@reads()
def index(request: HttpRequest) -> HttpResponse:
    """The sitemap index, at the site's public address (codewithpapers.public)."""
    return sitemap_views.index(
        PublicRequest(request), sitemaps=SITEMAPS, sitemap_url_name="papers:sitemap-section"
    )


@reads({"p": int})  # Django's page parameter, which its paginator reads with int()
def section(request: HttpRequest, section: str) -> HttpResponse:
    """One page of one section. A leaner template than Django's (no alternates,
    changefreq or priority): a page of 10,000 URLs renders in a fraction of the time."""
    return sitemap_views.sitemap(
        PublicRequest(request),
        sitemaps=SITEMAPS,
        section=section,
        template_name="sitemaps/section.xml",
    )


SITEMAPS = {
    "browse": BrowseSitemap,
    "leaderboards": LeaderboardSitemap,
    "papers": PaperSitemap,
    "tasks": TaskSitemap,
    "methods": MethodSitemap,
    "datasets": DatasetSitemap,
    "authors": AuthorSitemap,
    "repositories": RepositorySitemap,
}
