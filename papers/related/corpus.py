"""What compute_related reads: every visible paper's text, in id order and in batches."""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from papers.db import chunks
from papers.models import Paper, PaperMethod, PaperTask
from papers.related.model import paper_text


@dataclass
class Texts:
    ids: np.ndarray  # int64, ascending
    slugs: list[str]
    texts: list[str]

    def __len__(self) -> int:
        return len(self.ids)


def slug_hashes(slugs: Sequence[str]) -> np.ndarray:
    """A checksum per slug: a paper id whose slug changed names another paper."""
    return np.fromiter((zlib.crc32(s.encode()) for s in slugs), np.uint32, len(slugs))


def visible_papers() -> tuple[np.ndarray, np.ndarray]:
    """(ids ascending, slug checksums) of every paper that may have or be in a list."""
    rows = Paper.objects.visible().order_by("id").values_list("id", "slug")
    ids, slugs = [], []
    for pk, slug in rows.iterator(chunk_size=20_000):
        ids.append(pk)
        slugs.append(slug)
    return np.array(ids, np.int64), slug_hashes(slugs)


def read(ids: Sequence[int], title_weight: int) -> Texts:
    """The texts of these papers (visible ones with a title or an abstract), by id."""
    ids = sorted(int(i) for i in ids)
    rows, tasks, methods = [], defaultdict(list), defaultdict(list)
    for part in chunks(ids):
        rows += (
            Paper.objects.visible()
            .filter(id__in=part)
            .values_list("id", "slug", "title", "abstract")
        )
        _names(PaperTask.objects.filter(paper_id__in=part), "task__name", tasks)
        _names(PaperMethod.objects.filter(paper_id__in=part), "method__name", methods)
    return _texts(sorted(rows), tasks, methods, title_weight)


def batches(batch_size: int, title_weight: int) -> Iterator[Texts]:
    """Every visible paper's text, in id order, `batch_size` papers a batch (three
    queries each: the papers, their tasks' names and their methods' names)."""
    last = 0
    while True:
        rows = list(
            Paper.objects.visible()
            .filter(id__gt=last)
            .order_by("id")
            .values_list("id", "slug", "title", "abstract")[:batch_size]
        )
        if not rows:
            return
        first, last = rows[0][0], rows[-1][0]
        between = {"paper_id__gte": first, "paper_id__lte": last}
        tasks, methods = defaultdict(list), defaultdict(list)
        _names(PaperTask.objects.filter(**between), "task__name", tasks)
        _names(PaperMethod.objects.filter(**between), "method__name", methods)
        yield _texts(rows, tasks, methods, title_weight)


def _names(links, field: str, into: dict) -> None:
    for paper_id, name in links.order_by("paper_id", "position").values_list("paper_id", field):
        into[paper_id].append(name)


def _texts(rows, tasks, methods, title_weight: int) -> Texts:
    ids, slugs, texts = [], [], []
    for pk, slug, title, abstract in rows:
        if not (title or "").strip() and not (abstract or "").strip():
            continue  # a stub a code link created: nothing to compare
        ids.append(pk)
        slugs.append(slug)
        texts.append(paper_text(title, abstract, tasks[pk], methods[pk], title_weight))
    return Texts(np.array(ids, np.int64), slugs, texts)
