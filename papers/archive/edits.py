"""Staff edits through an export and back: the records an import's files say staff
edited (`"edited_in_admin": true`, which papers.archive.export writes on them) are
marked edited, so that a later import of the original dumps leaves them alone.

Tasks, leaderboards, their rows and method collections come from one kind of file each
and are marked as they are written (papers.archive.read.parsers). Papers, code links,
methods and datasets are marked here once every file of the import is written: several
files fill the same paper (the papers file, then its full record, which ranks higher),
and a row marked edited halfway would refuse the files after it.
"""

from __future__ import annotations

from django.db.models import Q

from papers.models import CodeLink, Dataset, Method, Paper

PART = 500  # natural keys a query names


class EditedRecords:
    """The natural keys of the records an import's files say staff edited."""

    def __init__(self) -> None:
        self.papers: set[str] = set()
        self.links: set[tuple[str, str]] = set()
        self.methods: set[str] = set()
        self.datasets: set[str] = set()
        self.dataset_names: set[str] = set()

    def note(self, kind: str | None, batch: list) -> None:
        """After a batch of `kind` is written (papers keyed by arXiv id have their slugs)."""
        for item in batch:
            if kind == "papers" and item.edited:
                self.papers.add(item.slug)
            elif kind == "links" and item.edited:
                self.links.add((item.paper.slug, item.repo.url))
            elif kind == "methods" and item.edited:
                self.methods.add(item.slug)
            elif kind == "datasets" and item.edited:
                if item.slug:
                    self.datasets.add(item.slug)
                else:
                    self.dataset_names.add(item.fields["name"])

    def merge(self, other: EditedRecords) -> None:
        """Take `other`'s keys too (a file's, once its batches are kept)."""
        self.papers |= other.papers
        self.links |= other.links
        self.methods |= other.methods
        self.datasets |= other.datasets
        self.dataset_names |= other.dataset_names

    def apply(self) -> int:
        """Mark them edited; how many rows were not yet."""
        marked = 0
        for model, field, keys in (
            (Paper, "slug", self.papers),
            (Method, "slug", self.methods),
            (Dataset, "slug", self.datasets),
            (Dataset, "name", self.dataset_names),
        ):
            keys = sorted(keys)
            for start in range(0, len(keys), PART):
                rows = model.objects.filter(
                    **{f"{field}__in": keys[start : start + PART]}, edited_in_admin=False
                )
                marked += rows.update(edited_in_admin=True)
        links = sorted(self.links)
        for start in range(0, len(links), PART):
            pairs = Q()
            for slug, url in links[start : start + PART]:
                pairs |= Q(paper__slug=slug, repository__url=url)
            marked += CodeLink.objects.filter(pairs, edited_in_admin=False).update(
                edited_in_admin=True
            )
        return marked
