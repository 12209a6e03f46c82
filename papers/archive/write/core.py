"""What every writer of an import shares: upserts on natural keys, the counts they make,
and free slugs for new rows.

Every write is an upsert on a natural key: `Core.upsert()` reads the batch's existing
rows in one query per model, compares, and writes only what differs (bulk inserts for
new rows, bulk updates for changed ones). Records staff edited in the admin are left
alone unless `overwrite_edits`. Counts go to `Stats` per model. The writers of each
record kind (papers.py, links.py, records.py, taxonomy.py, evaluations.py) and the
identity rules (identity.py) write through one Core, which papers.archive.write.loader
gives them.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from django.db import models
from django.utils import timezone

from papers.db import chunks, insert_rows, reserve_ids, select_rows, update_rows

OUTCOMES = ("created", "updated", "unchanged", "left_alone", "deleted", "hidden", "rejected")
SUFFIXES = 20  # slugs tried per round when a name's own slug is taken: base, base-2, …


def empty(value: Any) -> bool:
    """The archive's many ways of saying "nothing" (False is a value, not nothing)."""
    return value is None or (isinstance(value, str | list | dict) and not value)


class Stats:
    def __init__(self):
        self.counts: dict[str, Counter] = defaultdict(Counter)

    def add(self, model: str, outcome: str, n: int = 1) -> None:
        if n:
            self.counts[model][outcome] += n

    def total(self, outcome: str) -> int:
        return sum(c[outcome] for c in self.counts.values())

    def merge(self, other: Stats) -> None:
        for model, counter in other.counts.items():
            self.counts[model].update(counter)


class IdSet:
    """A set of row ids as a bitmap, iterated in ascending order. The papers an import
    touches are up to every paper it reads: the full archive's would take tens of MB as a
    set of ints, and take under 100 KB here (ids are dense: one bit per id up to the largest)."""

    def __init__(self) -> None:
        self.bits = bytearray()

    def update(self, ids: Iterable[int]) -> None:
        bits = self.bits
        for i in ids:
            byte = i >> 3
            if byte >= len(bits):
                bits.extend(bytes(max(byte + 1, 2 * len(bits)) - len(bits)))
            bits[byte] |= 1 << (i & 7)

    def __iter__(self) -> Iterator[int]:
        for byte, value in enumerate(self.bits):
            if value:
                base = byte << 3
                for bit in range(8):
                    if value >> bit & 1:
                        yield base + bit


class Core:
    """One import's upserts and their counts."""

    def __init__(self, *, overwrite_edits: bool = False):
        self.overwrite_edits = overwrite_edits
        self.stats = Stats()
        self.now = timezone.now()
        # Rows a fill-only upsert (an author, task or method named by a paper) has seen
        # with every field filled: (model, fields) → {key: id}. Such a row cannot change
        # through a fill-only upsert, so later batches need not read it again. The author
        # pool is heavily reused: most of a batch's names were met in earlier batches.
        self.filled: dict[tuple, dict[Any, int]] = defaultdict(dict)

    def upsert(
        self,
        model: type[models.Model],
        key: str,
        items: dict[Any, dict[str, Any]],
        *,
        extra_key: dict[str, Any] | None = None,
        fill_only: bool = False,
        count: bool = True,
        derived: tuple[str, ...] = (),
    ) -> dict[Any, int]:
        """Insert or update `model` rows whose `key` field takes the dict's keys.

        `fill_only` writes only into empty fields (used for stubs); otherwise a
        non-empty incoming value replaces the stored one. `derived` fields (worked out
        from the others, maybe from more than one row) are written with a new or changed
        row but never compared: they alone change nothing. Returns key → id.
        """
        name = model.__name__
        if not items:
            return {}
        fields = sorted({f for values in items.values() for f in values})
        ids: dict[Any, int] = {}
        filled = self.filled[(model, tuple(fields))] if fill_only and not extra_key else None
        if filled:
            items = self._known_filled(name, items, filled, ids, count)
            if not items:
                return ids
        editable = hasattr(model, "edited_in_admin")
        compared = [f for f in fields if f not in derived]
        only = ["id", key, *compared] + (["edited_in_admin"] if editable else [])
        filters = extra_key or {}
        existing = {row[key]: row for row in select_rows(model, key, items, only, filters)}
        new: list[tuple] = []
        changed: list[tuple] = []
        defaults = {f: model._meta.get_field(f).get_default() for f in fields}
        counted = self.stats.add if count else lambda *args: None
        for k, values in items.items():
            row = existing.get(k)
            if row is None:
                new.append((*filters.values(), k, *(values.get(f, defaults[f]) for f in fields)))
                continue
            ids[k] = row["id"]
            merged = _merged(row, values, fields, derived, defaults, fill_only)
            if merged is None:
                counted(name, "unchanged")
                if filled is not None and not any(empty(row[f]) for f in compared):
                    filled[k] = row["id"]
            elif editable and row["edited_in_admin"] and not self.overwrite_edits:
                counted(name, "left_alone")
            else:
                changed.append((*merged, *([self.now] if editable else []), row["id"]))
        if new:
            ids.update(_insert_new(model, [*filters, key, *fields], new, len(filters), filled))
        if changed:
            update_rows(model, [*fields, *(["updated_at"] if editable else [])], changed)
        counted(name, "created", len(new))
        counted(name, "updated", len(changed))
        return ids

    def _known_filled(
        self, name: str, items: dict, filled: dict[Any, int], ids: dict[Any, int], count: bool
    ) -> dict:
        """Take the items a fill-only upsert has seen full (unchanged: their ids go into
        `ids`); returns the others."""
        known = [k for k in items if k in filled]
        for k in known:
            ids[k] = filled[k]
        if count:
            self.stats.add(name, "unchanged", len(known))
        if len(known) == len(items):
            return {}
        return {k: v for k, v in items.items() if k not in filled}


def _merged(
    row: dict, values: dict, fields: list[str], derived: tuple, defaults: dict, fill_only: bool
) -> list | None:
    """The stored row's values (in `fields` order) once this write changes it, or None
    when nothing it compares (every field but the `derived`) changes."""
    diff = _diff(row, {f: v for f, v in values.items() if f not in derived}, fill_only)
    if not diff:
        return None
    return [values.get(f, defaults[f]) if f in derived else diff.get(f, row[f]) for f in fields]


def _diff(row: dict, values: dict[str, Any], fill_only: bool) -> dict[str, Any]:
    """The incoming values that change a stored row: non-empty and different (and, when
    `fill_only`, only into its empty fields)."""
    diff = {}
    for f, v in values.items():
        current = row[f]
        if current == v or empty(v):
            continue
        if fill_only and not empty(current):
            continue
        diff[f] = v
    return diff


def _insert_new(
    model: type[models.Model],
    columns: list[str],
    new: list[tuple],
    position: int,
    filled: dict[Any, int] | None,
) -> dict[Any, int]:
    """Insert rows of `columns` (the key at `position`, the fields after it); returns key
    → new id, and remembers in `filled` the rows that have every field filled."""
    new_ids = reserve_ids(model, len(new))
    insert_rows(model, ["id", *columns], [(i, *r) for i, r in zip(new_ids, new, strict=True)])
    ids = {}
    for new_id, row in zip(new_ids, new, strict=True):
        ids[row[position]] = new_id
    if filled is not None:
        for new_id, row in zip(new_ids, new, strict=True):
            if not any(empty(v) for v in row[position + 1 :]):
                filled[row[position]] = new_id
    return ids


def touch(model, ids: list[int], when) -> None:
    """Move these rows' updated_at: for papers, when their record changed through rows
    without timestamps of their own (samples, report repositories, what they introduce),
    so the record's Last-Modified moves with it."""
    for part in chunks(ids):
        model.objects.filter(id__in=part).update(updated_at=when)


def candidates(base: str, start: int = 1) -> list[str]:
    return [base if i == 1 else f"{base}-{i}"[:255] for i in range(start, start + SUFFIXES)]


class FreeSlugs:
    """Slugs for new rows of `model`: each base slug, or the first free -2, -3…, never one
    the table or this batch has taken."""

    def __init__(self, model):
        self.model = model
        self.taken: set[str] = set()

    def take(self, bases: Iterable[str]) -> dict[str, list[str]]:
        """A free slug for each occurrence of each base, in the order given."""
        wanted = defaultdict(int)
        for base in bases:
            wanted[base] += 1
        out: dict[str, list[str]] = defaultdict(list)
        start = 1
        while wanted:
            tried = {base: candidates(base, start) for base in wanted}
            held = {
                row["slug"]
                for row in select_rows(
                    self.model, "slug", itertools.chain(*tried.values()), ["slug"]
                )
            }
            for base, slugs in tried.items():
                for slug in slugs:
                    if wanted[base] and slug not in held and slug not in self.taken:
                        self.taken.add(slug)
                        out[base].append(slug)
                        wanted[base] -= 1
            wanted = defaultdict(int, {b: k for b, k in wanted.items() if k})
            start += SUFFIXES
        return out
