"""The naive import, as a baseline: one ORM save() per object, no batching.

    python bench/naive_import.py PAPERS_FILE LINKS_FILE --limit 20000

Reads the first --limit papers (and the links naming them) and writes them the way
a first rebuild would: update_or_create per paper, get_or_create per author and
repository, one row at a time. bench/import.py times it against import_archive.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from pathlib import Path

import ijson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")

import django

django.setup()

from django.db import transaction  # noqa: E402

from papers.archive.read.normalise import paper_slug  # noqa: E402
from papers.models import Author, CodeLink, Paper, PaperAuthor, Repository  # noqa: E402


def records(path: str):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        yield from ijson.items(fh, "item", use_float=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("papers")
    parser.add_argument("links")
    parser.add_argument("--limit", type=int, default=20_000)
    args = parser.parse_args()
    started = time.monotonic()
    slugs = set()
    count = 0
    for row in records(args.papers):
        if count >= args.limit:
            break
        count += 1
        slug = paper_slug(row["paper_url"], "paper_url")
        slugs.add(slug)
        with transaction.atomic():
            paper, _ = Paper.objects.update_or_create(
                slug=slug,
                defaults={
                    "title": row.get("title") or "",
                    "abstract": row.get("abstract") or "",
                    "arxiv_id": row.get("arxiv_id"),
                    "published": row.get("date"),
                    "url_abs": row.get("url_abs") or "",
                    "url_pdf": row.get("url_pdf") or "",
                    "proceeding": row.get("proceeding") or "",
                },
            )
            PaperAuthor.objects.filter(paper=paper).delete()
            for position, name in enumerate(row.get("authors") or []):
                author, _ = Author.objects.get_or_create(
                    slug=Author.slug_for(name), defaults={"name": name}
                )
                PaperAuthor.objects.create(paper=paper, author=author, position=position)
    links = 0
    for row in records(args.links):
        slug = paper_slug(row["paper_url"], "paper_url")
        if slug not in slugs:
            continue
        links += 1
        with transaction.atomic():
            repository, _ = Repository.objects.get_or_create(url=row["repo_url"])
            CodeLink.objects.update_or_create(
                paper=Paper.objects.get(slug=slug),
                repository=repository,
                defaults={
                    "is_official": bool(row.get("is_official")),
                    "framework": row.get("framework") or "",
                },
            )
    elapsed = time.monotonic() - started
    print(f"naive {count} papers {links} links {elapsed:.2f} s")


if __name__ == "__main__":
    main()
