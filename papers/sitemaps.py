"""sitemap.xml: an index over paged sitemaps of every paper, author, repository, task,
method and dataset page (django.contrib.sitemaps).

Each page is one query on an id-ordered queryset reading only the columns a URL needs
(no per-item queries), LIMIT items long; the index counts each section once. The
index carries no lastmod: Django would compute it by walking every item.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap

from papers.models import Author, Dataset, Method, Paper, Repository, Task

LIMIT = 10_000


class ArchiveSitemap(Sitemap):
    limit = LIMIT

    @property
    def protocol(self) -> str | None:
        """SITE_URL's scheme (the sitemap index reads this attribute too); None: the
        request's. The index takes its host from the request, which ALLOWED_HOSTS vets."""
        return urlsplit(settings.SITE_URL).scheme if settings.SITE_URL else None

    def get_domain(self, site=None):
        if settings.SITE_URL:
            return urlsplit(settings.SITE_URL).netloc
        return super().get_domain(site)

    def get_latest_lastmod(self):
        return None

    def lastmod(self, item):
        return item.updated_at


class PaperSitemap(ArchiveSitemap):
    def items(self):
        return Paper.objects.visible().order_by("id").only("id", "slug", "updated_at")


class AuthorSitemap(ArchiveSitemap):
    def items(self):
        return Author.objects.order_by("id").only("id", "slug", "updated_at")


class RepositorySitemap(ArchiveSitemap):
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


class MethodSitemap(CuratedSitemap):
    model = Method


class DatasetSitemap(CuratedSitemap):
    model = Dataset


SITEMAPS = {
    "papers": PaperSitemap,
    "tasks": TaskSitemap,
    "methods": MethodSitemap,
    "datasets": DatasetSitemap,
    "authors": AuthorSitemap,
    "repositories": RepositorySitemap,
}
