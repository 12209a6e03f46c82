"""Writing RelatedPaper rows: each paper's list made to match its computed neighbours.

Rows are diffed, not replaced: a second run over the same neighbours writes nothing, a
changed list writes only its changed rows. Entries staff hid are kept as they are and
their paper is left out of the visible list (the search returns a few extra neighbours
so a list with hidden entries still fills up). One transaction per batch of papers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.db import IntegrityError, transaction
from django.db.models import Count

from papers.db import chunks, delete_where_in, insert_rows, update_rows
from papers.models import Paper, RelatedPaper

LIST_SIZE = 20  # entries a paper's list shows
SCORE_DIGITS = 4  # scores are stored rounded, so a rerun compares them exactly
COLUMNS = ["paper_id", "related_id", "score", "rank", "hidden"]


@dataclass
class Written:
    created: int = 0
    updated: int = 0
    deleted: int = 0
    papers: int = 0  # papers whose list is not empty

    def add(self, other: Written) -> None:
        self.created += other.created
        self.updated += other.updated
        self.deleted += other.deleted
        self.papers += other.papers

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated or self.deleted)


def hidden_extra() -> int:
    """How many more neighbours than LIST_SIZE to search for: the most entries staff hid
    in one paper's list (each is skipped when the list is written)."""
    counts = (
        RelatedPaper.objects.filter(hidden=True)
        .values("paper_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .values_list("n", flat=True)[:1]
    )
    return min(LIST_SIZE, max(counts, default=0))


def write(
    paper_ids: np.ndarray,
    neighbour_ids: np.ndarray,
    scores: np.ndarray,
    *,
    everything: bool,
    batch_size: int = 1000,
    progress=None,
) -> Written:
    """Make the lists of `paper_ids` (ascending) hold their neighbours (paper ids, -1 for
    none, best first) and scores. With `everything`, the lists of papers not named
    (hidden, deleted text, too few papers) are emptied too: a full run leaves no stale
    list behind."""
    total = Written()
    n = len(paper_ids)
    if everything and n == 0:
        with transaction.atomic():
            stale = RelatedPaper.objects.filter(hidden=False)
            total.deleted = stale.count()
            stale.delete()
        return total
    for start in range(0, n, batch_size):
        stop = min(n, start + batch_size)
        if everything:  # contiguous id ranges cover every paper, named or not
            low = None if start == 0 else int(paper_ids[start])
            high = None if stop == n else int(paper_ids[stop])  # exclusive
            existing = RelatedPaper.objects.all()
            if low is not None:
                existing = existing.filter(paper_id__gte=low)
            if high is not None:
                existing = existing.filter(paper_id__lt=high)
            existing = [existing]
        else:
            part = [int(i) for i in paper_ids[start:stop]]
            existing = [RelatedPaper.objects.filter(paper_id__in=piece) for piece in chunks(part)]
        rows = [r for q in existing for r in q.values_list("id", *COLUMNS)]
        batch = slice(start, stop)
        try:
            total.add(_write_batch(paper_ids[batch], neighbour_ids[batch], scores[batch], rows))
        except IntegrityError:
            # A paper named as a neighbour was deleted while we computed: drop it, retry.
            wanted = np.unique(neighbour_ids[batch][neighbour_ids[batch] >= 0])
            alive = _existing_ids(wanted)
            gone = ~np.isin(neighbour_ids[batch], alive)
            ids, sc = neighbour_ids[batch].copy(), scores[batch].copy()
            ids[gone], sc[gone] = -1, -np.inf
            total.add(_write_batch(paper_ids[batch], ids, sc, rows))
        if progress is not None:
            progress(stop, n)
    return total


def _existing_ids(ids: np.ndarray) -> np.ndarray:
    found = []
    for piece in chunks(ids):
        part = [int(i) for i in piece]
        found += Paper.objects.filter(id__in=part).values_list("id", flat=True)
    return np.array(found, np.int64)


def _write_batch(paper_ids, neighbour_ids, scores, rows) -> Written:
    visible: dict[int, dict[int, tuple]] = defaultdict(dict)
    hidden: dict[int, set[int]] = defaultdict(set)
    for row_id, paper, related, score, rank, is_hidden in rows:
        if is_hidden:
            hidden[paper].add(related)
        else:
            visible[paper][related] = (row_id, score, rank)
    inserts, updates, deletes = [], [], []
    written = Written()
    for paper, related_ids, related_scores in zip(
        paper_ids.tolist(), neighbour_ids.tolist(), scores.tolist(), strict=True
    ):
        have = visible.pop(paper, {})
        skip = hidden.get(paper, set())
        rank = 0
        for related, score in zip(related_ids, related_scores, strict=True):
            if rank == LIST_SIZE:
                break
            if related < 0 or related == paper or related in skip:
                continue
            score = round(score, SCORE_DIGITS)
            if related in have:
                row_id, old_score, old_rank = have.pop(related)
                if (old_score, old_rank) != (score, rank):
                    updates.append((score, rank, row_id))
            else:
                inserts.append((paper, related, score, rank, False))
            rank += 1
        written.papers += rank > 0
        deletes += [row_id for row_id, _, _ in have.values()]
    for have in visible.values():  # papers with rows in range that have no list now
        deletes += [row_id for row_id, _, _ in have.values()]
    with transaction.atomic():
        delete_where_in(RelatedPaper, "id", deletes)
        update_rows(RelatedPaper, ["score", "rank"], updates)
        insert_rows(RelatedPaper, COLUMNS, inserts)
    written.created, written.updated, written.deleted = len(inserts), len(updates), len(deletes)
    return written
