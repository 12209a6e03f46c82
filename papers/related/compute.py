"""compute_related: every paper's list, or only what papers imported since the last run
change.

A full run fits the text model (on a sample of `fit_sample` papers at archive scale),
transforms every visible paper, finds each one's nearest neighbours and writes the lists,
then stores the state (papers.related.state). `--only-new` loads that state and:
- transforms the papers that are not in it (new since the last run, by id and slug);
- searches their neighbours exactly among all stored and new vectors;
- slots each new paper into every stored list whose last neighbour it beats (the same
  similarity matrix, read the other way);
- searches again, exactly, the lists that named a paper since deleted or hidden;
and writes only those lists. Papers whose text changed keep their vectors until the next
full run; a list never shows a hidden or deleted paper meanwhile, since the page filters
at read time and deletion cascades.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from django.utils import timezone

from codewithpapers.cache import bump_content_version
from papers.related import corpus, lists, neighbours, state
from papers.related.model import DEFAULT, EmptyCorpus, Params, TextModel, fit

FIT_SAMPLE = 100_000  # papers the model is fitted on (all of them below this)
TRANSFORM_BATCH = 5_000  # papers read and transformed at a time

Progress = Callable[[str], None]


@dataclass
class Result:
    mode: str  # "full" or "only-new"
    papers: int = 0  # papers with a vector
    new: int = 0  # --only-new: papers added since the last run
    listed: int = 0  # lists written (full: every paper's)
    written: lists.Written = field(default_factory=lists.Written)
    seconds: dict[str, float] = field(default_factory=dict)
    note: str = ""


class _Timer:
    def __init__(self, result: Result, say: Progress):
        self.result, self.say, self.started = result, say, time.monotonic()
        self.step, self.since = "", self.started

    def __call__(self, step: str) -> None:
        now = time.monotonic()
        if self.step:
            self.result.seconds[self.step] = now - self.since
        self.step, self.since = step, now
        if step:
            self.say(f"{step} ({now - self.started:.0f} s)")


def compute_all(
    *,
    params: Params = DEFAULT,
    fit_sample: int = FIT_SAMPLE,
    batch_size: int = 1000,
    say: Progress = lambda message: None,
) -> Result:
    result = Result("full")
    step = _Timer(result, say)
    step("reading paper ids")
    ids, _ = corpus.visible_papers()
    sample = ids
    if len(ids) > fit_sample:
        rng = np.random.default_rng(params.seed)
        sample = np.sort(rng.choice(ids, fit_sample, replace=False))
    step(f"reading {len(sample):,} papers to fit the model on")
    fitted = corpus.read(sample, params.title_weight)
    step(f"fitting the model on {len(fitted):,} papers")
    try:
        model = fit(fitted.texts, params)
    except EmptyCorpus as exc:
        step("emptying every list")
        result.written = lists.write(np.zeros(0, np.int64), None, None, everything=True)
        state.clear()
        result.note = f"no lists: {exc}"
        step("")
        return _finish(result)
    if len(sample) == len(ids):
        step(f"transforming {len(fitted):,} papers")
        texts, vectors = fitted, _transform(model, fitted.texts)
    else:
        del fitted
        step(f"reading and transforming {len(ids):,} papers")
        texts, vectors = _transform_all(model, params, say)
    keep = np.abs(vectors).sum(axis=1) > 0  # a paper with no known word is near nothing
    paper_ids, vectors = texts.ids[keep], vectors[keep]
    hashes = corpus.slug_hashes([s for s, k in zip(texts.slugs, keep, strict=True) if k])
    del texts
    result.papers = len(paper_ids)
    k = lists.LIST_SIZE + lists.hidden_extra()
    step(f"searching the {k} nearest of {len(paper_ids):,} papers")
    found, scores = neighbours.all_top_k(vectors, k, seed=params.seed)
    neighbour_ids = np.where(found >= 0, paper_ids[np.maximum(found, 0)], -1)
    step("writing the lists")
    result.written = lists.write(
        paper_ids, neighbour_ids, scores, everything=True, batch_size=batch_size
    )
    result.listed = len(paper_ids)
    step("saving the state for --only-new")
    state.save(
        state.State(model, paper_ids, hashes, vectors, neighbour_ids, scores, timezone.now())
    )
    step("")
    return _finish(result)


def compute_new(
    *,
    params: Params = DEFAULT,
    fit_sample: int = FIT_SAMPLE,
    batch_size: int = 1000,
    say: Progress = lambda message: None,
) -> Result:
    saved = state.load()
    if saved is None or saved.model.params != params:
        why = "no state from an earlier run" if saved is None else "the model's settings changed"
        say(f"{why}: computing every list")
        result = compute_all(params=params, fit_sample=fit_sample, batch_size=batch_size, say=say)
        result.note = f"{why}: computed every list"
        return result
    result = Result("only-new")
    step = _Timer(result, say)
    step("reading paper ids")
    ids, hashes = corpus.visible_papers()
    kept = _still_there(saved, ids, hashes)
    fresh = ~np.isin(ids, saved.ids[kept])
    step(f"reading {int(fresh.sum()):,} papers not in the state")
    new = _new_papers(saved.model, ids[fresh], params)
    result.new = len(new.ids)
    old = _Stored.of(saved, kept)
    pool_ids = np.concatenate([old.ids, new.ids])
    pool = np.concatenate([old.vectors, new.vectors])

    step(f"searching {len(new.ids):,} new papers among {len(pool_ids):,}")
    new_nb, new_scores, entering = _search_new(new, old, pool_ids, pool)
    step("slotting new papers into existing lists")
    touched = _slot(old, entering)
    if old.repair.any():
        step(f"searching again {int(old.repair.sum()):,} lists that named a removed paper")
        _search_again(old, pool_ids, pool)
        touched |= old.repair

    write_ids = np.concatenate([old.ids[touched], new.ids])
    step(f"writing {len(write_ids):,} lists")
    result.written = _write(
        write_ids,
        np.concatenate([old.neighbours[touched], new_nb]),
        np.concatenate([old.scores[touched], new_scores]),
        batch_size,
    )
    result.listed = len(write_ids)

    step("saving the state")
    _save(
        saved.model,
        pool_ids,
        pool,
        np.concatenate([saved.slug_hashes[kept], new.hashes]),
        np.concatenate([old.neighbours, new_nb]),
        np.concatenate([old.scores, new_scores]),
    )
    result.papers = len(pool_ids)
    step("")
    return _finish(result)


def _save(model: TextModel, ids: np.ndarray, vectors, hashes, neighbour_ids, scores) -> None:
    """Keep the state for the next run, in the order of the papers' ids."""
    order = np.argsort(ids, kind="stable")
    state.save(
        state.State(
            model,
            ids[order],
            hashes[order],
            vectors[order],
            neighbour_ids[order],
            scores[order],
            timezone.now(),
        )
    )


def _write(ids: np.ndarray, neighbour_ids, scores, batch_size: int) -> lists.Written:
    """Write these papers' lists (in the order of their ids), and only them."""
    order = np.argsort(ids, kind="stable")
    return lists.write(
        ids[order], neighbour_ids[order], scores[order], everything=False, batch_size=batch_size
    )


def _still_there(saved: state.State, ids: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """Which stored papers are still visible under the same id and slug."""
    if not len(ids):
        return np.zeros(len(saved.ids), bool)
    at = np.searchsorted(ids, saved.ids).clip(max=len(ids) - 1)
    return (ids[at] == saved.ids) & (hashes[at] == saved.slug_hashes)


@dataclass
class _New:
    """The papers not in the state that have a vector: ids, vectors, slug hashes."""

    ids: np.ndarray
    vectors: np.ndarray
    hashes: np.ndarray


def _new_papers(model: TextModel, fresh_ids: np.ndarray, params: Params) -> _New:
    texts = corpus.read(fresh_ids, params.title_weight)
    vectors = _transform(model, texts.texts)
    nonzero = np.abs(vectors).sum(axis=1) > 0
    hashes = corpus.slug_hashes([s for s, k in zip(texts.slugs, nonzero, strict=True) if k])
    return _New(texts.ids[nonzero], vectors[nonzero], hashes)


@dataclass
class _Stored:
    """The stored papers still there (deleted, hidden or renamed ones left out), with
    their lists: a neighbour since gone is cut from its list, which is searched again
    (`repair`)."""

    ids: np.ndarray
    vectors: np.ndarray
    neighbours: np.ndarray
    scores: np.ndarray
    repair: np.ndarray

    @classmethod
    def of(cls, saved: state.State, kept: np.ndarray) -> _Stored:
        gone_ids = saved.ids[~kept]  # deleted, hidden, or their id now names another paper
        nb, sc = saved.neighbour_ids[kept].copy(), saved.neighbour_scores[kept].copy()
        lost = np.isin(nb, gone_ids) & (nb >= 0)
        nb[lost], sc[lost] = -1, -np.inf
        repair = lost.any(axis=1)  # lists that named a paper since gone: searched again
        return cls(saved.ids[kept], saved.vectors[kept], nb, sc, repair)


def _search_new(new: _New, old: _Stored, pool_ids: np.ndarray, pool: np.ndarray):
    """The new papers' lists among every vector (exact), and the stored lists each may
    enter: (stored row, new paper id, cosine) in blocks."""
    k, n_old = old.neighbours.shape[1], len(old.ids)
    new_found = np.full((len(new.ids), k), -1, np.int64)
    new_scores = np.full((len(new.ids), k), -np.inf, np.float32)
    # Lists a new paper may enter: its cosine beats their last neighbour's.
    threshold = np.where(old.repair, np.inf, old.scores[:, -1])
    entering: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    block = max(1, neighbours.BLOCK_BYTES // (4 * max(len(pool), 1)))
    for start in range(0, len(new.ids), block):
        stop = min(len(new.ids), start + block)
        s = new.vectors[start:stop] @ pool.T
        rows = np.arange(stop - start)
        s[rows, n_old + start + rows] = -np.inf  # not its own neighbour
        new_found[start:stop], new_scores[start:stop] = neighbours.top_k_rows(s, k)
        q, p = np.nonzero(s[:, :n_old] > threshold[None, :])
        entering.append((p, new.ids[start + q], s[q, p]))
    new_nb = np.where(new_found >= 0, pool_ids[np.maximum(new_found, 0)], -1)
    return new_nb, new_scores, entering


def _slot(old: _Stored, entering: list) -> np.ndarray:
    """Slot the new papers into the stored lists they enter; which lists changed."""
    touched = np.zeros(len(old.ids), bool)
    if entering:
        k = old.neighbours.shape[1]
        p = np.concatenate([e[0] for e in entering])
        q = np.concatenate([e[1] for e in entering])
        s = np.concatenate([e[2] for e in entering]).astype(np.float32)
        for row in np.unique(p):
            pick = p == row
            old.neighbours[row], old.scores[row] = _merge(
                old.neighbours[row], old.scores[row], q[pick], s[pick], k
            )
        touched[np.unique(p)] = True
    return touched


def _search_again(old: _Stored, pool_ids: np.ndarray, pool: np.ndarray) -> None:
    """Search the lists to repair again, exactly, among every vector."""
    rows = np.flatnonzero(old.repair)
    found, scores = neighbours.exact_top_k(
        pool[rows], pool, old.neighbours.shape[1], self_index=rows
    )
    old.neighbours[rows] = np.where(found >= 0, pool_ids[np.maximum(found, 0)], -1)
    old.scores[rows] = scores


def _merge(ids, scores, extra_ids, extra_scores, k):
    """The k best of a list and new entries, best first (ties: the earlier first)."""
    all_ids = np.concatenate([ids, extra_ids])
    all_scores = np.concatenate([scores, extra_scores])
    order = np.argsort(-all_scores, kind="stable")[:k]
    return all_ids[order], all_scores[order]


def _transform(model: TextModel, texts: list[str]) -> np.ndarray:
    parts = [
        model.transform(texts[i : i + TRANSFORM_BATCH])
        for i in range(0, len(texts), TRANSFORM_BATCH)
    ]
    return np.concatenate(parts) if parts else np.zeros((0, model.dims), np.float32)


def _transform_all(model: TextModel, params: Params, say: Progress):
    ids, slugs, parts = [], [], []
    last = time.monotonic()
    count = 0
    for batch in corpus.batches(TRANSFORM_BATCH, params.title_weight):
        ids.append(batch.ids)
        slugs += batch.slugs
        parts.append(model.transform(batch.texts))
        count += len(batch)
        if time.monotonic() - last >= 10:
            last = time.monotonic()
            say(f"  {count:,} papers transformed")
    vectors = np.concatenate(parts) if parts else np.zeros((0, model.dims), np.float32)
    ids = np.concatenate(ids) if ids else np.zeros(0, np.int64)
    return corpus.Texts(ids, slugs, []), vectors


def _finish(result: Result) -> Result:
    if result.written.changed:
        bump_content_version()
    return result


def last_run() -> dt.datetime | None:
    saved = state.load()
    return saved.computed_at if saved else None
