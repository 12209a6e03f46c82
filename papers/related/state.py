"""What a run of compute_related leaves for the next `--only-new` run.

One file per database under RELATED_STATE_DIR (default `var/related/` in the checkout):
the fitted text model, every paper's vector, and every paper's neighbours as searched
(a few more than a list shows, with their scores). With it, new papers are transformed
by the same model, searched against the stored vectors, and slotted into the stored
lists they now belong in, without reading or transforming the rest of the archive.

The file is a pickle written by this code and read only by it: keep the directory
writable by the site's user alone. It is replaced atomically (written beside, then
renamed), so a run that dies leaves the previous state whole.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection

from papers.related.model import TextModel

VERSION = 1


@dataclass
class State:
    model: TextModel
    ids: np.ndarray  # int64, ascending: the papers that have a vector
    slug_hashes: np.ndarray  # uint32, one per id (corpus.slug_hashes)
    vectors: np.ndarray  # float32, one unit row per id
    neighbour_ids: np.ndarray  # int64, ids x K paper ids, best first, -1 for none
    neighbour_scores: np.ndarray  # float32, the cosines, -inf for none
    computed_at: dt.datetime
    database: str = ""
    version: int = VERSION


def database_key() -> str:
    """Names the database the state belongs to, so two databases never share one: its
    engine, server and name as the settings give them. (It names the database; nothing
    here depends on which engine that is.)"""
    db = connection.settings_dict
    name = f"{db['ENGINE']}|{db.get('HOST') or ''}|{db.get('PORT') or ''}|{db['NAME']}"
    return hashlib.sha256(name.encode()).hexdigest()[:16]


def path() -> Path:
    return Path(settings.RELATED_STATE_DIR) / f"related-{database_key()}.pickle"


def load() -> State | None:
    """The state of the last run on this database, or None (none, or unreadable)."""
    try:
        with path().open("rb") as f:
            state = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None
    if not isinstance(state, State) or state.version != VERSION:
        return None
    if state.database != database_key():
        return None
    return state


def save(state: State) -> Path:
    state.database = database_key()
    target = path()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as f:
        pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(partial, target)
    return target


def clear() -> None:
    path().unlink(missing_ok=True)
