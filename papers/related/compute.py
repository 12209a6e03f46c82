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
    at = np.searchsorted(ids, saved.ids).clip(max=max(len(ids) - 1, 0))
    kept = (
        (ids[at] == saved.ids) & (hashes[at] == saved.slug_hashes)
        if len(ids)
        else np.zeros(len(saved.ids), bool)
    )
    gone_ids = saved.ids[~kept]  # deleted, hidden, or their id now names another paper
    fresh = ~np.isin(ids, saved.ids[kept])
    step(f"reading {int(fresh.sum()):,} papers not in the state")
    texts = corpus.read(ids[fresh], params.title_weight)
    new_vectors = _transform(saved.model, texts.texts)
    nonzero = np.abs(new_vectors).sum(axis=1) > 0
    new_ids, new_vectors = texts.ids[nonzero], new_vectors[nonzero]
    new_hashes = corpus.slug_hashes([s for s, k in zip(texts.slugs, nonzero, strict=True) if k])
    result.new = len(new_ids)

    old_ids, old_vectors = saved.ids[kept], saved.vectors[kept]
    old_nb, old_sc = saved.neighbour_ids[kept].copy(), saved.neighbour_scores[kept].copy()
    lost = np.isin(old_nb, gone_ids) & (old_nb >= 0)
    old_nb[lost], old_sc[lost] = -1, -np.inf
    repair = lost.any(axis=1)  # lists that named a paper since gone: searched again
    k = old_nb.shape[1]
    pool_ids = np.concatenate([old_ids, new_ids])
    pool = np.concatenate([old_vectors, new_vectors])
    n_old = len(old_ids)

    step(f"searching {len(new_ids):,} new papers among {len(pool_ids):,}")
    new_found = np.full((len(new_ids), k), -1, np.int64)
    new_scores = np.full((len(new_ids), k), -np.inf, np.float32)
    # Lists a new paper may enter: its cosine beats their last neighbour's.
    threshold = np.where(repair, np.inf, old_sc[:, -1])
    entering: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    block = max(1, neighbours.BLOCK_BYTES // (4 * max(len(pool), 1)))
    for start in range(0, len(new_ids), block):
        stop = min(len(new_ids), start + block)
        s = new_vectors[start:stop] @ pool.T
        rows = np.arange(stop - start)
        s[rows, n_old + start + rows] = -np.inf  # not its own neighbour
        new_found[start:stop], new_scores[start:stop] = neighbours.top_k_rows(s, k)
        q, p = np.nonzero(s[:, :n_old] > threshold[None, :])
        entering.append((p, new_ids[start + q], s[q, p]))
    new_nb = np.where(new_found >= 0, pool_ids[np.maximum(new_found, 0)], -1)

    step("slotting new papers into existing lists")
    touched = np.zeros(n_old, bool)
    if entering:
        p = np.concatenate([e[0] for e in entering])
        q = np.concatenate([e[1] for e in entering])
        s = np.concatenate([e[2] for e in entering]).astype(np.float32)
        for row in np.unique(p):
            pick = p == row
            old_nb[row], old_sc[row] = _merge(old_nb[row], old_sc[row], q[pick], s[pick], k)
        touched[np.unique(p)] = True
    if repair.any():
        step(f"searching again {int(repair.sum()):,} lists that named a removed paper")
        rows = np.flatnonzero(repair)
        found, scores = neighbours.exact_top_k(pool[rows], pool, k, self_index=rows)
        old_nb[rows] = np.where(found >= 0, pool_ids[np.maximum(found, 0)], -1)
        old_sc[rows] = scores
        touched |= repair

    write_ids = np.concatenate([old_ids[touched], new_ids])
    write_nb = np.concatenate([old_nb[touched], new_nb])
    write_sc = np.concatenate([old_sc[touched], new_scores])
    order = np.argsort(write_ids, kind="stable")
    step(f"writing {len(write_ids):,} lists")
    result.written = lists.write(
        write_ids[order], write_nb[order], write_sc[order], everything=False, batch_size=batch_size
    )
    result.listed = len(write_ids)

    step("saving the state")
    all_ids = pool_ids
    order = np.argsort(all_ids, kind="stable")
    state.save(
        state.State(
            saved.model,
            all_ids[order],
            np.concatenate([saved.slug_hashes[kept], new_hashes])[order],
            pool[order],
            np.concatenate([old_nb, new_nb])[order],
            np.concatenate([old_sc, new_scores])[order],
            timezone.now(),
        )
    )
    result.papers = len(all_ids)
    step("")
    return _finish(result)


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
