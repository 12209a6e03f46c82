"""An import's last writes: the references files imported in another order left open,
and the junk no paper uses, hidden."""

from __future__ import annotations

from django.db.models.functions import Length
from django.utils import timezone

from papers.archive.read import normalise as n
from papers.archive.write.core import touch
from papers.db import chunks, select_rows
from papers.models import Dataset, LeaderboardRow, Method, Paper, PaperDataset, PaperMethod


def resolve_references() -> None:
    """Link leaderboard rows, methods and datasets to papers imported after them."""
    rows = list(
        LeaderboardRow.objects.filter(paper__isnull=True)
        .exclude(paper_url="")
        .values_list("id", "paper_url")
    )
    _resolve(LeaderboardRow, "paper_id", rows)
    for model in (Method, Dataset):
        items = list(
            model.objects.filter(introduced_by__isnull=True)
            .exclude(paper_url="")
            .values_list("id", "paper_url")
        )
        _resolve(model, "introduced_by_id", items)


def _resolve(model, fk: str, items: list[tuple[int, str]]) -> None:
    if not items:
        return
    slugs = {pk: n.paper_slug(url, "paper_url") for pk, url in items}
    arxivs = {pk: n.arxiv_from_url(url, "paper_url") for pk, url in items}
    by_slug = {
        r["slug"]: r["id"]
        for r in select_rows(Paper, "slug", filter(None, slugs.values()), ["id", "slug"])
    }
    by_arxiv = {
        r["arxiv_id"]: r["id"]
        for r in select_rows(Paper, "arxiv_id", filter(None, arxivs.values()), ["id", "arxiv_id"])
    }
    updates = []
    for pk, _ in items:
        paper_id = by_slug.get(slugs[pk]) or by_arxiv.get(arxivs[pk])
        if paper_id:
            updates.append(model(id=pk, **{fk: paper_id}))
    model.objects.bulk_update(updates, [fk], batch_size=500)
    if model is not LeaderboardRow:
        # The introducing paper's record now names this method or dataset.
        now = timezone.now()
        touch(Paper, sorted({getattr(u, fk) for u in updates}), now)
        touch(model, [u.id for u in updates], now)


def hide_junk(model) -> int:
    """Flag as hidden the records that are plainly junk (n.looks_like_junk) and that no
    paper uses; returns how many. Staff see them in the admin's hidden filter; one they
    show again is marked edited, and no import hides it again."""
    links = PaperMethod if model is Method else PaperDataset
    short = model.objects.annotate(size=Length("description")).filter(
        hidden=False, edited_in_admin=False, size__gt=0, size__lte=n.JUNK_MAX
    )
    junk = [
        pk
        for pk, name, full_name, description in short.values_list(
            "id", "name", "full_name", "description"
        )
        if n.looks_like_junk(name, full_name, description)
    ]
    fk = "method_id" if model is Method else "dataset_id"
    used = set()
    for part in chunks(junk):
        used.update(links.objects.filter(**{f"{fk}__in": part}).values_list(fk, flat=True))
    hide = [pk for pk in junk if pk not in used]
    for part in chunks(hide):
        model.objects.filter(id__in=part).update(hidden=True, updated_at=timezone.now())
    return len(hide)
