"""Nearest neighbours by cosine over unit vectors: exact in blocks, or an inverted file.

Both keep memory bounded (a block of similarities is at most BLOCK_BYTES) and choose the
best k of each row without sorting it: a threshold from a strided sample of the row keeps
a few times k candidates, and only those are sorted (rows the threshold would short-change
fall back to a full partition). At archive scale (576k papers) exact search would compare
every pair, 3.3e11 of them; the inverted file (`ivf_top_k`) clusters the vectors into
cells and compares each cell's papers only with the papers of the `probes` cells nearest
to it, about 1/40 of the pairs at the defaults. bench/related.py measures its recall
against exact search.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import MiniBatchKMeans

BLOCK_BYTES = 128 * 2**20  # the largest block of similarities held at once
EXACT_UP_TO = 30_000  # at most this many vectors: exact search (IVF only beyond)
CELL_SIZE = 500  # papers per inverted-file cell, on average
PROBES = 16  # cells each cell's papers are compared with (their own included)


def top_k_rows(s: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Column indices and values of the k largest entries of each row, best first.
    Rows with fewer than k finite entries are padded with index -1 and -inf."""
    m, n = s.shape
    take = min(k, n)
    if take == 0:
        return np.full((m, k), -1, np.int64), np.full((m, k), -np.inf, np.float32)
    stride = n // (16 * take)
    if stride >= 2:
        sample = s[:, ::stride]
        j = min(sample.shape[1], -(-2 * take // stride))  # about 2k entries of the row pass
        threshold = np.partition(sample, sample.shape[1] - j, axis=1)[:, -j]
        mask = s >= threshold[:, None]
        short = mask.sum(axis=1) < take
        mask[short] = False
        rows, cols = np.nonzero(mask)
        vals = s[rows, cols]
        order = np.lexsort((-vals, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        starts = np.searchsorted(rows, np.arange(m))
        idx = np.zeros((m, take), np.int64)
        top = np.zeros((m, take), np.float32)
        good = ~short
        offsets = starts[good][:, None] + np.arange(take)[None, :]
        idx[good], top[good] = cols[offsets], vals[offsets]
        if short.any():
            idx[short], top[short] = _partition_rows(s[short], take)
    else:
        idx, top = _partition_rows(s, take)
    bad = ~np.isfinite(top)
    idx[bad], top[bad] = -1, -np.inf
    if take < k:
        idx = np.pad(idx, ((0, 0), (0, k - take)), constant_values=-1)
        top = np.pad(top, ((0, 0), (0, k - take)), constant_values=-np.inf)
    return idx, top


def _partition_rows(s: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    n = s.shape[1]
    part = np.argpartition(s, n - k, axis=1)[:, n - k :]
    vals = np.take_along_axis(s, part, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1), np.take_along_axis(vals, order, axis=1)


def exact_top_k(
    queries: np.ndarray, base: np.ndarray, k: int, self_index: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest rows of `base` for each query (indices into base, cosines), leaving
    out base[self_index[i]] for query i (-1: leave nothing out)."""
    m = len(queries)
    idx = np.full((m, k), -1, np.int64)
    top = np.full((m, k), -np.inf, np.float32)
    if m == 0 or len(base) == 0:
        return idx, top
    block = max(1, BLOCK_BYTES // (4 * len(base)))
    for start in range(0, m, block):
        stop = min(m, start + block)
        s = queries[start:stop] @ base.T
        if self_index is not None:
            rows = np.arange(stop - start)
            own = self_index[start:stop]
            s[rows[own >= 0], own[own >= 0]] = -np.inf
        idx[start:stop], top[start:stop] = top_k_rows(s, k)
    return idx, top


def all_top_k(
    vectors: np.ndarray,
    k: int,
    *,
    exact_up_to: int = EXACT_UP_TO,
    cell_size: int = CELL_SIZE,
    probes: int = PROBES,
    seed: int = 0,
    progress=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each vector's k nearest others: exact for small sets, else the inverted file."""
    n = len(vectors)
    if n <= exact_up_to:
        return exact_top_k(vectors, vectors, k, self_index=np.arange(n))
    return ivf_top_k(vectors, k, cell_size=cell_size, probes=probes, seed=seed, progress=progress)


def ivf_top_k(
    vectors: np.ndarray,
    k: int,
    *,
    cell_size: int = CELL_SIZE,
    probes: int = PROBES,
    seed: int = 0,
    progress=None,
) -> tuple[np.ndarray, np.ndarray]:
    """Approximate `exact_top_k(vectors, vectors, k)` without self-matches: vectors are
    put in k-means cells; each cell's members are compared with the members of the
    `probes` cells whose centroids are nearest its own."""
    n = len(vectors)
    cells = max(1, n // cell_size)
    probes = min(probes, cells)
    rng = np.random.default_rng(seed)
    sample = vectors[np.sort(rng.choice(n, min(n, 100 * cells), replace=False))]
    kmeans = MiniBatchKMeans(
        cells, random_state=seed, batch_size=4096, n_init=1, max_no_improvement=20
    ).fit(sample)
    centroids = kmeans.cluster_centers_.astype(np.float32)
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    cell_of = np.empty(n, np.int64)
    step = max(1, BLOCK_BYTES // (4 * cells))
    for start in range(0, n, step):
        cell_of[start : start + step] = np.argmax(vectors[start : start + step] @ centroids.T, 1)
    order = np.argsort(cell_of, kind="stable")
    bounds = np.searchsorted(cell_of[order], np.arange(cells + 1))
    nearest_cells, _ = exact_top_k(centroids, centroids, probes)

    idx = np.full((n, k), -1, np.int64)
    top = np.full((n, k), -np.inf, np.float32)
    done = 0
    position = np.full(n, -1, np.int64)  # where each candidate sits in its block
    for cell in range(cells):
        members = order[bounds[cell] : bounds[cell + 1]]
        if len(members) == 0:
            continue
        probed = nearest_cells[cell][nearest_cells[cell] >= 0]
        candidates = np.concatenate([order[bounds[c] : bounds[c + 1]] for c in probed])
        position[candidates] = np.arange(len(candidates))
        local, scores = exact_top_k(  # each member leaves itself out
            vectors[members], vectors[candidates], k, self_index=position[members]
        )
        position[candidates] = -1
        found = np.where(local >= 0, candidates[np.maximum(local, 0)], -1)
        idx[members], top[members] = found, scores
        done += len(members)
        if progress is not None:
            progress(done, n)
    return idx, top
