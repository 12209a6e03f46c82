"""Write parsed archive records to the database in batches, idempotently.

Every write is an upsert on a natural key: the loader reads the batch's existing
rows in one query per model, compares, and writes only what differs (bulk inserts
for new rows, bulk updates for changed ones). Records staff edited in the admin
are left alone unless `overwrite_edits`. Counts go to `Stats` per model.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, connection, models, transaction
from django.db.models.functions import Length
from django.utils import timezone

from papers.archive.engines.postgresql.link_counts import LinkCounts, unpack
from papers.archive.read import normalise as n
from papers.archive.read.parsers import (
    DatasetIn,
    EvaluationIn,
    LeaderboardIn,
    LinkIn,
    MethodIn,
    PaperIn,
    RecordIn,
    RepoIn,
)
from papers.archive.write.identity import DatasetNames, FreeSlugs, TaskTree
from papers.db import (
    chunks,
    delete_where_in,
    insert_rows,
    reserve_ids,
    select_rows,
    update_rows,
)
from papers.kept import forget_boards, refresh_all
from papers.kept.papers import refresh_counts
from papers.models import (
    Author,
    CodeLink,
    Collection,
    Dataset,
    Leaderboard,
    LeaderboardMetric,
    LeaderboardRow,
    Method,
    MethodCollection,
    Paper,
    PaperAuthor,
    PaperDataset,
    PaperMethod,
    PaperTask,
    ReportRepository,
    Repository,
    Sample,
    Task,
    revalue_boards,
    uncertain_date,
    unranked_values,
)
from papers.search import index as search_index

OUTCOMES = ("created", "updated", "unchanged", "left_alone", "deleted", "hidden", "rejected")

PAPER_FIELDS = (
    "title", "arxiv_id", "nips_id", "openreview_id", "published", "proceeding", "conference",
    "conference_url_abs", "conference_url_pdf", "abstract", "short_abstract", "url_abs",
    "url_pdf", "source_archive", "source_snapshot", "source_row_kind", "source_licence_url",
    "arxiv_metadata", "extracted_results", "extra", "has_report", "report_url",
    "report_atlas_url", "report_developers_url", "report_mcp", "report_read_at",
    "report_read_at_is", "report_claim", "report_repo_kind_vocabulary",
    "report_n_pointer_only_for_licence",
)  # fmt: skip
SAMPLE_FIELDS = (
    "position", "repo", "repo_kind", "path", "entry", "file_url", "link_basis", "language",
    "status", "verification_level", "contract_check", "metamorphic_tier",
    "behaviour_fingerprint", "licence", "inline_ok", "code_sha256_prefix", "mcp_code_sha256",
    "extra",
)  # fmt: skip
PAPER_DEFAULTS = {f: Paper._meta.get_field(f).get_default() for f in PAPER_FIELDS}
TITLE, ABSTRACT = PAPER_FIELDS.index("title"), PAPER_FIELDS.index("abstract")
LINK_FIELDS = ("is_official", "mentioned_in_paper", "mentioned_in_github", "framework", "position")


@dataclass(slots=True)
class NewPaper:
    """A paper the batch inserts: its row's values."""

    slug: str
    rank: int
    date_uncertain: bool
    author_names: str
    counts: tuple  # code_link_count, has_official_code, frameworks (forecast), or ()
    values: list  # in PAPER_FIELDS order
    vector: str | None  # the search vector computed ahead for exactly this text


@dataclass(slots=True)
class ChangedPaper:
    """A stored paper the batch updates: its row's new values."""

    id: int
    slug: str
    rank: int
    date_uncertain: bool
    author_names: str
    values: list  # in the order of the batch's written columns


@dataclass(slots=True)
class GivenBoard:
    """A board as the file being imported has given it so far."""

    board_id: int
    metrics: list[str] = field(default_factory=list)
    # Row key → a digest of the row's content: a row given again with the same content is
    # the same row; one with other content under the same key is another row.
    rows: dict[str, str] = field(default_factory=dict)
    written: bool = False  # some occurrence gave it rows

    def add(self, row: dict[str, Any]) -> str | None:
        """The key a parsed row takes on the board (None: the board has it already).
        papers.archive.fidelity finds the rows it expects with this too."""
        row_key = row["row_key"]
        shown = {k: v for k, v in row.items() if k not in ("position", "row_key", "stub_paper")}
        content = hashlib.sha1(
            json.dumps(shown, sort_keys=True, default=str, ensure_ascii=False).encode()
        ).hexdigest()
        key, again = row_key, 0
        while key in self.rows:
            if self.rows[key] == content:
                return None
            again += 1
            key = hashlib.sha1(f"{row_key}+{again}".encode()).hexdigest()
        self.rows[key] = content
        return key


def empty(value: Any) -> bool:
    """The archive's many ways of saying "nothing" (False is a value, not nothing)."""
    return value is None or (isinstance(value, str | list | dict) and not value)


class KnownSlugs:
    """The paper slugs the table may hold, as a Bloom filter: the slugs it held when the
    import began (when they were few) and every slug the import has inserted since. A
    slug it has never seen is not in the table, so a batch's new papers are inserted
    without first being looked up by slug. In an import into an empty database that is
    the whole papers file: a query per 900 papers, several seconds of a full import's
    writer. It can only err the other way: a
    slug it wrongly takes for known is looked up, as every slug is without it. 2 MiB, two
    bits a slug: at 576,000 slugs about 0.5% are looked up needlessly, at 2 million 4.5%.

    A paper someone else adds while the import runs (in the admin, say) is not in it: if
    the import then inserts a paper with that slug, the batch fails on the unique slug and
    Loader.write_batch() writes it again with every slug looked up.
    """

    BITS = 1 << 24
    SEED_MAX = 100_000  # more papers than this at the start: no filter (every slug looked up)

    def __init__(self, slugs: Iterable[str] = ()):
        self.bits = bytearray(self.BITS >> 3)
        self.update(slugs)

    @classmethod
    def for_import(cls, papers: int) -> KnownSlugs | None:
        """A filter seeded with the table's slugs (`papers` of them), or None when it
        holds too many for the filter to save lookups."""
        if papers > cls.SEED_MAX:
            return None
        return cls(Paper.objects.values_list("slug", flat=True).iterator(chunk_size=10_000))

    def update(self, slugs: Iterable[str]) -> None:
        bits, mask = self.bits, self.BITS - 1
        for slug in slugs:
            h = hash(slug)
            a, b = h & mask, (h >> 32) & mask
            bits[a >> 3] |= 1 << (a & 7)
            bits[b >> 3] |= 1 << (b & 7)

    def __contains__(self, slug: str) -> bool:
        h = hash(slug)
        mask = self.BITS - 1
        a, b = h & mask, (h >> 32) & mask
        return bool(self.bits[a >> 3] >> (a & 7) & 1 and self.bits[b >> 3] >> (b & 7) & 1)


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


def _in(model, field: str, values: Iterable, *only: str) -> list[dict]:
    return select_rows(model, field, values, only)


class Loader:
    def __init__(self, *, overwrite_edits: bool = False):
        self.overwrite_edits = overwrite_edits
        self.stats = Stats()
        self.touched_papers = IdSet()
        self.now = timezone.now()
        # Rows a fill-only upsert (an author, task or method named by a paper) has seen
        # with every field filled: (model, fields) → {key: id}. Such a row cannot change
        # through a fill-only upsert, so later batches need not read it again. The author
        # pool is heavily reused: most of a batch's names were met in earlier batches.
        self.filled: dict[tuple, dict[Any, int]] = defaultdict(dict)
        # The full-text index is built at the end of the import (search.index.defer()).
        self.index_deferred = False
        # While it is: the papers inserted and changed since the last commit, for
        # papers.archive.engines.sqlite.fts_side (see take_text_writes()).
        self.text_added: list[int] = []
        self.text_changed: list[int] = []
        # Each new paper's code links, counted ahead
        # (papers.archive.engines.postgresql.link_counts).
        self.link_counts: LinkCounts | None = None
        # The slugs the papers table may hold (set by the importer), or None: look up all.
        self.known_slugs: KnownSlugs | None = None
        # Datasets known by name, and the slugs this import gave new ones.
        self.dataset_names = DatasetNames(self)
        self.free_dataset_slugs = FreeSlugs(Dataset)
        # Whether the papers table may hold papers keyed by their arXiv id (None: not
        # yet asked).
        self.arxiv_keyed: bool | None = None
        # The boards the file being imported has given so far, by (task id, dataset id).
        self.file_boards: dict[tuple[int, int], GivenBoard] = {}

    # --- generic upsert ----------------------------------------------------------------

    def upsert(
        self,
        model: type[models.Model],
        key: str,
        items: dict[Any, dict[str, Any]],
        *,
        extra_key: dict[str, Any] | None = None,
        fill_only: bool = False,
        count: bool = True,
    ) -> dict[Any, int]:
        """Insert or update `model` rows whose `key` field takes the dict's keys.

        `fill_only` writes only into empty fields (used for stubs); otherwise a
        non-empty incoming value replaces the stored one. Returns key → id.
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
        only = ["id", key, *fields] + (["edited_in_admin"] if editable else [])
        filters = extra_key or {}
        existing = {row[key]: row for row in select_rows(model, key, items, only, filters)}
        new: list[tuple] = []
        changed: list[tuple] = []
        defaults = {f: model._meta.get_field(f).get_default() for f in fields}
        for k, values in items.items():
            row = existing.get(k)
            if row is None:
                new.append((*filters.values(), k, *(values.get(f, defaults[f]) for f in fields)))
                continue
            ids[k] = row["id"]
            diff = _diff(row, values, fill_only)
            if not diff:
                if count:
                    self.stats.add(name, "unchanged")
                if filled is not None and not any(empty(row[f]) for f in fields):
                    filled[k] = row["id"]
                continue
            if editable and row["edited_in_admin"] and not self.overwrite_edits:
                if count:
                    self.stats.add(name, "left_alone")
                continue
            merged = [diff.get(f, row[f]) for f in fields]
            changed.append((*merged, *([self.now] if editable else []), row["id"]))
        if new:
            ids.update(_insert_new(model, [*filters, key, *fields], new, len(filters), filled))
        if changed:
            update_rows(model, [*fields, *(["updated_at"] if editable else [])], changed)
        if count:
            self.stats.add(name, "created", len(new))
            self.stats.add(name, "updated", len(changed))
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

    def write_batch(self, kind: str, batch: list) -> None:
        """Write one batch of records of a kind (the method of that name) in one
        transaction. A batch that inserts a paper someone else added since the import
        began (a slug KnownSlugs never saw, so not looked up) fails on the unique slug:
        it is rolled back, and written again with every slug looked up from then on."""
        write = getattr(self, kind)
        counts = None if self.known_slugs is None else deepcopy(self.stats.counts)
        boards = None if counts is None else deepcopy(self.file_boards)
        try:
            with transaction.atomic():
                write(batch)
        except (IntegrityError, connection.Database.IntegrityError):
            if counts is None:
                raise
            self.stats.counts = counts
            self.file_boards = boards
            self.forget()
            self.known_slugs = None
            with transaction.atomic():
                write(batch)

    def forget(self) -> None:
        """Writes were rolled back (--strict, a batch written again): ids remembered from
        them are void."""
        self.filled.clear()
        self.take_text_writes()

    def take_text_writes(self) -> tuple[list[int], list[int]]:
        """The papers inserted and changed while the index was deferred, since the last
        call (the importer calls it after each commit)."""
        out = self.text_added, self.text_changed
        self.text_added, self.text_changed = [], []
        return out

    # --- papers -------------------------------------------------------------------------

    def papers(self, incoming: list[PaperIn]) -> dict[str, int]:
        """Upsert papers (and their author/task/method lists) by slug; returns slug → id."""
        self._key_by_arxiv(incoming)
        merged: dict[str, PaperIn] = {}
        for paper in incoming:
            merged[paper.slug] = _merge_incoming(merged.get(paper.slug), paper)
        if not merged:
            return {}
        # Only the columns this batch can write are read back and compared: a links
        # file (stubs) never reads abstracts.
        given = set().union(*(p.fields for p in merged.values()))
        written = [f for f in PAPER_FIELDS if f in given]
        if "published" not in written:
            written.append("published")  # date_uncertain is derived from it
        existing, lists = self._stored_papers(merged, written)
        forecast = self.link_counts.counts() if self.link_counts is not None else None
        shapes = self.link_counts.shapes if forecast is not None else []
        new: list[NewPaper] = []
        changed: list[ChangedPaper] = []
        ids: dict[str, int] = {}
        replace_lists: dict[str, dict[str, list[str]]] = {}  # in the batch's order
        for slug, paper in merged.items():
            row = existing.get(slug)
            new_lists = _new_lists(paper, row, lists)
            if row is None:
                counts = () if forecast is None else unpack(forecast.pop(slug, 0), shapes)
                new.append(_new_paper(paper, new_lists, counts))
                replace_lists[slug] = new_lists
                continue
            ids[slug] = row["id"]
            update = self._changed_paper(paper, row, written, new_lists)
            if update is not None:
                changed.append(update)
                replace_lists[slug] = new_lists
        with search_index.bulk_writes(deferred=self.index_deferred) as index:
            if new:
                ids.update(self._insert_papers(new, index, counts=forecast is not None))
            if changed:
                self._update_papers(changed, written, index)
        self.stats.add("Paper", "created", len(new))
        self.stats.add("Paper", "updated", len(changed))
        self.touched_papers.update(ids.values())
        self._replace_lists(
            {ids[s]: lists_ for s, lists_ in replace_lists.items() if lists_},
            {ids[p.slug] for p in new},
        )
        return ids

    def _stored_papers(
        self, merged: dict[str, PaperIn], written: list[str]
    ) -> tuple[dict[str, dict], dict[str, dict[int, list[str]]]]:
        """The stored rows of the batch's papers by slug (their `written` columns), and
        their author, task and method lists where the batch gives any."""
        only = ["id", "slug", "source_rank", "edited_in_admin", "author_names", *written]
        known = self.known_slugs
        lookup = list(merged) if known is None else [slug for slug in merged if slug in known]
        existing = {row["slug"]: row for row in _in(Paper, "slug", lookup, *only)}
        wanted_lists = [
            name
            for name in ("authors", "tasks", "methods")
            if any(getattr(p, name) for p in merged.values())
        ]
        lists = self._current_lists([row["id"] for row in existing.values()], wanted_lists)
        return existing, lists

    def _changed_paper(
        self, paper: PaperIn, row: dict, written: list[str], new_lists: dict[str, list[str]]
    ) -> ChangedPaper | None:
        """The update a stored paper's row takes from `paper`, or None (counted
        unchanged, or left alone when staff edited it)."""
        rank = row["source_rank"]
        values = {}
        for f in PAPER_FIELDS:
            if f not in paper.fields:
                continue
            v, cur = paper.fields[f], row.get(f)
            if empty(v) or v == cur or (paper.rank < rank and not empty(cur)):
                continue
            values[f] = v
        new_rank = max(rank, paper.rank)
        if not values and not new_lists and new_rank == rank:
            self.stats.add("Paper", "unchanged")
            return None
        if row["edited_in_admin"] and not self.overwrite_edits:
            self.stats.add("Paper", "left_alone")
            return None
        full = {f: row[f] for f in written} | values
        names = ", ".join(new_lists["authors"]) if "authors" in new_lists else None
        return ChangedPaper(
            id=row["id"],
            slug=paper.slug,
            rank=new_rank,
            date_uncertain=uncertain_date(full["published"]),
            author_names=row["author_names"] if names is None else names,
            values=[full[f] for f in written],
        )

    def _insert_papers(
        self, new: list[NewPaper], index: search_index._Batch, *, counts: bool
    ) -> dict[str, int]:
        """Insert the batch's new papers (with their code-link `counts` forecast, and the
        search vectors computed ahead where there are any); returns slug → id."""
        new_ids = reserve_ids(Paper, len(new))
        columns = ["id", "slug", "source_rank", "date_uncertain", "author_names"]
        if counts:  # refresh_counts() checks them at the end
            columns += ["code_link_count", "has_official_code", "frameworks"]
        rows = [
            (i, p.slug, p.rank, p.date_uncertain, p.author_names, *p.counts, *p.values)
            for i, p in zip(new_ids, new, strict=True)
        ]
        vectors = any(p.vector for p in new)
        if vectors:
            rows = [(*row, p.vector) for row, p in zip(rows, new, strict=True)]
        insert_rows(
            Paper,
            [*columns, *PAPER_FIELDS],
            rows,
            raw=("search_vector",) if vectors else (),
        )
        if self.known_slugs is not None:
            self.known_slugs.update(p.slug for p in new)
        index.add(new_ids)
        if self.index_deferred:
            self.text_added.extend(new_ids)
        return {p.slug: i for i, p in zip(new_ids, new, strict=True)}

    def _update_papers(
        self, changed: list[ChangedPaper], written: list[str], index: search_index._Batch
    ) -> None:
        ids = [p.id for p in changed]
        if search_index.needs_old_text() and not self.index_deferred:
            index.change(_old_text(ids))
        update_rows(
            Paper,
            ["source_rank", "date_uncertain", "author_names", "updated_at", *written],
            [
                (p.rank, p.date_uncertain, p.author_names, self.now, *p.values, p.id)
                for p in changed
            ],
        )
        if self.index_deferred:
            self.text_changed.extend(ids)

    def _key_by_arxiv(self, incoming: list[PaperIn]) -> None:
        """Papers known only by their arXiv id take the slug of the paper that has it (in
        the table or in this batch); a paper with a slug adopts the row that was keyed
        by its arXiv id until now, which takes its slug (n.arxiv_slug)."""
        if self.arxiv_keyed is None:
            self.arxiv_keyed = Paper.objects.filter(slug__startswith="arxiv-").exists()
        keyed = [p for p in incoming if p.by_arxiv]
        if not keyed and not self.arxiv_keyed:
            return
        slugged = {
            p.fields["arxiv_id"]: p.slug
            for p in incoming
            if not p.by_arxiv and p.fields.get("arxiv_id")
        }
        if self.arxiv_keyed and slugged:
            provisional = {n.arxiv_slug(aid): slug for aid, slug in slugged.items()}
            rows = _in(Paper, "slug", provisional, "id", "slug")
            taken = {r["slug"] for r in _in(Paper, "slug", provisional.values(), "slug")}
            for row in rows:
                slug = provisional[row["slug"]]
                if slug not in taken:
                    Paper.objects.filter(id=row["id"]).update(slug=slug, updated_at=self.now)
                    taken.add(slug)
                    if self.known_slugs is not None:
                        self.known_slugs.update([slug])
        if not keyed:
            return
        ids = [p.fields["arxiv_id"] for p in keyed]
        stored: dict[str, str] = {}
        for row in sorted(_in(Paper, "arxiv_id", ids, "id", "slug", "arxiv_id"),
                          key=lambda r: r["id"]):  # fmt: skip
            stored.setdefault(row["arxiv_id"], row["slug"])
        for paper in keyed:
            aid = paper.fields["arxiv_id"]
            paper.slug = slugged.get(aid) or stored.get(aid) or paper.slug
            if paper.slug == n.arxiv_slug(aid):
                self.arxiv_keyed = True

    def _current_lists(
        self, paper_ids: list[int], names: list[str]
    ) -> dict[str, dict[int, list[str]]]:
        """{"authors": {paper_id: [name, …]}, …}: each paper's lists in order."""
        out: dict[str, dict[int, list[str]]] = {"authors": {}, "tasks": {}, "methods": {}}
        tables = {
            "authors": ("papers_paperauthor", "papers_author", "author_id"),
            "tasks": ("papers_papertask", "papers_task", "task_id"),
            "methods": ("papers_papermethod", "papers_method", "method_id"),
        }
        with connection.cursor() as cursor:
            for name in names:
                link, target, fk = tables[name]
                for part in chunks(paper_ids):
                    cursor.execute(
                        f"SELECT l.paper_id, COALESCE(NULLIF(l.name, ''), t.name) "
                        f"FROM {link} l JOIN {target} t "
                        f"ON t.id = l.{fk} WHERE l.paper_id IN ({', '.join(['%s'] * len(part))}) "
                        "ORDER BY l.paper_id, l.position",
                        part,
                    )
                    for paper_id, value in cursor.fetchall():
                        out[name].setdefault(paper_id, []).append(value)
        return out

    def _replace_lists(self, changes: dict[int, dict[str, list[str]]], created: set[int]) -> None:
        """Write these papers' author/task/method lists (`created`: papers this batch
        inserted, which have no list rows to delete yet)."""
        for name, model, target_model, fk in (
            ("authors", PaperAuthor, Author, "author_id"),
            ("tasks", PaperTask, Task, "task_id"),
            ("methods", PaperMethod, Method, "method_id"),
        ):
            todo = {pid: c[name] for pid, c in changes.items() if name in c}
            if not todo:
                continue
            slugs: dict[str, str] = {}  # each distinct spelling's slug, computed once
            names: dict[str, str] = {}  # slug → the last spelling of it
            for values in todo.values():
                for v in values:
                    slug = slugs.get(v)
                    if slug is None:
                        slug = slugs[v] = _slug(name, v)
                    names[slug] = v
            names.pop("", None)
            target_ids = self.upsert(
                target_model, "slug", {s: {"name": v} for s, v in names.items()}, fill_only=True
            )
            delete_where_in(model, "paper_id", [pid for pid in todo if pid not in created])
            rows, seen = [], set()
            once = name != "authors"  # a task named twice on one paper is one link
            for paper_id, values in todo.items():
                position = 0
                for value in values:
                    target = target_ids.get(slugs[value])
                    if target is None:
                        continue
                    if once:
                        if (paper_id, target) in seen:
                            continue
                        seen.add((paper_id, target))
                    rows.append((paper_id, position, target, value))
                    position += 1
            insert_rows(model, ["paper_id", "position", fk, "name"], rows)

    # --- links --------------------------------------------------------------------------

    def links(self, incoming: list[LinkIn]) -> None:
        paper_ids = self.papers([link.paper for link in incoming])
        repo_ids = self.repositories([link.repo for link in incoming])
        self._code_links(incoming, paper_ids, repo_ids)

    def repositories(self, repos: list[RepoIn]) -> dict[str, int]:
        items: dict[str, dict] = {}
        for repo in repos:
            host, owner, name = Repository.parts_from_url(repo.url)
            values = items.setdefault(repo.url, {"host": host, "owner": owner, "name": name})
            values.update({k: v for k, v in repo.fields.items() if not empty(v)})
        return self.upsert(Repository, "url", items)

    def _code_links(self, links: list[LinkIn], paper_ids, repo_ids) -> None:
        wanted: dict[tuple[int, int], dict] = {}
        for link in links:
            pair = (paper_ids[link.paper.slug], repo_ids[link.repo.url])
            wanted[pair] = link.fields
        existing = {}
        for part in chunks(sorted({p for p, _ in wanted})):
            for row in CodeLink.objects.filter(paper_id__in=part).values():
                existing[(row["paper_id"], row["repository_id"])] = row
        new, changed = [], []
        for (paper_id, repo_id), values in wanted.items():
            row = existing.get((paper_id, repo_id))
            if row is None:
                new.append((paper_id, repo_id, *(values.get(f, 0) for f in LINK_FIELDS)))
                continue
            diff = {k: v for k, v in values.items() if row[k] != v}
            if not diff:
                self.stats.add("CodeLink", "unchanged")
            elif row["edited_in_admin"] and not self.overwrite_edits:
                self.stats.add("CodeLink", "left_alone")
            else:
                merged = {f: row[f] for f in LINK_FIELDS} | diff
                changed.append((*(merged[f] for f in LINK_FIELDS), self.now, row["id"]))
        insert_rows(CodeLink, ["paper_id", "repository_id", *LINK_FIELDS], new)
        update_rows(CodeLink, [*LINK_FIELDS, "updated_at"], changed)
        self.stats.add("CodeLink", "created", len(new))
        self.stats.add("CodeLink", "updated", len(changed))

    # --- records ------------------------------------------------------------------------

    def records(self, incoming: list[RecordIn]) -> None:
        latest: dict[str, RecordIn] = {}
        for record in incoming:
            if record.report:
                record.paper.fields.update(record.report)
            latest[record.paper.slug] = record
        records = list(latest.values())
        paper_ids = self.papers([r.paper for r in records])
        edited = set(
            Paper.objects.filter(
                id__in=list(paper_ids.values()), edited_in_admin=True
            ).values_list("id", flat=True)
            if not self.overwrite_edits
            else []
        )
        records = [r for r in records if paper_ids[r.paper.slug] not in edited]
        repos = [link.repo for r in records for link in r.links]
        repos += [repo for r in records for repo, _ in r.report_repos]
        sample_repos = {}
        for r in records:
            for sample in r.samples:
                url = _sample_repo_url(sample, r)
                sample["_repo_url"] = url
                sample_repos.setdefault(url, RepoIn(url))
        repo_ids = self.repositories(repos + list(sample_repos.values()))
        self._code_links([link for r in records for link in r.links], paper_ids, repo_ids)
        self._report_repositories(records, paper_ids, repo_ids)
        self._samples(records, paper_ids, repo_ids)
        self._introduced(records, paper_ids)

    def _report_repositories(self, records, paper_ids, repo_ids) -> None:
        wanted = {
            paper_ids[r.paper.slug]: [
                (repo_ids[repo.url], provenance, position)
                for position, (repo, provenance) in enumerate(r.report_repos)
            ]
            for r in records
            if r.report is not None
        }
        current: dict[int, list] = defaultdict(list)
        for part in chunks(list(wanted)):
            rows = ReportRepository.objects.filter(paper_id__in=part).order_by(
                "paper_id", "position"
            )
            for paper_id, repo_id, provenance, position in rows.values_list(
                "paper_id", "repository_id", "provenance", "position"
            ):
                current[paper_id].append((repo_id, provenance, position))
        stale = [pid for pid, rows in wanted.items() if current.get(pid, []) != rows]
        self._touch(stale)
        delete_where_in(ReportRepository, "paper_id", stale)
        insert_rows(
            ReportRepository,
            ["paper_id", "repository_id", "provenance", "position"],
            [(pid, rid, prov, pos) for pid in stale for rid, prov, pos in wanted[pid]],
        )

    def _samples(self, records, paper_ids, repo_ids) -> None:
        wanted = {}
        for r in records:
            if r.report is None:
                continue
            rows = []
            for sample in r.samples:
                values = {k: sample[k] for k in SAMPLE_FIELDS}
                values["repository_id"] = repo_ids.get(sample["_repo_url"])
                rows.append(values)
            wanted[paper_ids[r.paper.slug]] = rows
        current: dict[int, list] = defaultdict(list)
        for part in chunks(list(wanted)):
            rows = Sample.objects.filter(paper_id__in=part).order_by("paper_id", "position")
            for row in rows.values("paper_id", "repository_id", *SAMPLE_FIELDS):
                current[row.pop("paper_id")].append(row)
        stale = [pid for pid, rows in wanted.items() if current.get(pid, []) != rows]
        unchanged = sum(len(wanted[pid]) for pid in wanted if pid not in set(stale))
        self.stats.add("Sample", "unchanged", unchanged)
        replaced = sum(len(current.get(pid, [])) for pid in stale)
        self._touch(stale)
        delete_where_in(Sample, "paper_id", stale)
        columns = ["paper_id", "repository_id", *SAMPLE_FIELDS]
        new = [
            (pid, values["repository_id"], *(values[f] for f in SAMPLE_FIELDS))
            for pid in stale
            for values in wanted[pid]
        ]
        insert_rows(Sample, columns, new)
        # A changed report replaces the paper's samples: count rows kept as updated.
        updated = min(replaced, len(new))
        self.stats.add("Sample", "updated", updated)
        self.stats.add("Sample", "created", len(new) - updated)

    def _introduced(self, records, paper_ids) -> None:
        """Point the datasets and methods a record says it introduces at its paper: by
        exact name first (so "PatchAttn" and "patchattn" stay two methods when the
        methods file has both), else by slug, creating a stub when neither exists
        (datasets: papers.archive.write.identity)."""
        for name, model in (("datasets_introduced", Dataset), ("methods_introduced", Method)):
            wanted = [
                (item, paper_ids[r.paper.slug])
                for r in records
                for item in getattr(r, name)
                if n.slug_of(item)
            ]
            if not wanted:
                continue
            if model is Dataset:
                by_name, by_slug = self.dataset_names.mentions(w[0] for w in wanted), {}
            else:
                by_name = {
                    row["name"]: row["id"]
                    for row in select_rows(model, "name", [w[0] for w in wanted], ["id", "name"])
                }
                missing = {n.slug_of(item): item for item, _ in wanted if item not in by_name}
                by_slug = self.upsert(
                    model, "slug", {s: {"name": v} for s, v in missing.items()}, fill_only=True
                )
            for item, paper_id in wanted:
                target = by_name.get(item) or by_slug.get(n.slug_of(item))
                stale = model.objects.filter(pk=target).exclude(introduced_by_id=paper_id)
                if not self.overwrite_edits:
                    stale = stale.filter(edited_in_admin=False)
                losing = [pk for pk in stale.values_list("introduced_by_id", flat=True) if pk]
                if stale.update(introduced_by_id=paper_id, updated_at=self.now):
                    self._touch([paper_id, *losing])

    def _touch(self, paper_ids: list[int]) -> None:
        touch(Paper, paper_ids, self.now)

    # --- methods and datasets -------------------------------------------------------------

    def methods(self, incoming: list[MethodIn]) -> None:
        collections = {c["slug"]: c for m in incoming for c in m.collections}
        collection_ids = self.upsert(
            Collection,
            "slug",
            {s: {k: v for k, v in c.items() if k != "slug"} for s, c in collections.items()},
        )
        latest = {m.slug: m for m in incoming}
        method_ids = self.upsert(Method, "slug", {s: m.fields for s, m in latest.items()})
        # A method's collections in the record's order (the first is its primary one),
        # then any it was in before that the record does not name (kept: a dump lists
        # collections as of its date); rewritten where that differs, unless staff edited
        # the method.
        current = defaultdict(list)
        for part in chunks(list(method_ids.values())):
            for mid, cid in (
                MethodCollection.objects.filter(method_id__in=part)
                .order_by("method_id", "position", "id")
                .values_list("method_id", "collection_id")
            ):
                current[mid].append(cid)
        edited = set()
        for part in chunks(list(method_ids.values())):
            edited.update(
                Method.objects.filter(id__in=part, edited_in_admin=True).values_list(
                    "id", flat=True
                )
            )
        stale, rows = [], []
        for slug, method in latest.items():
            mid = method_ids.get(slug)
            wanted = list(dict.fromkeys(collection_ids[c["slug"]] for c in method.collections))
            if mid is None or not wanted:
                continue
            wanted += [cid for cid in current[mid] if cid not in wanted]
            if wanted == current[mid]:
                continue
            if mid in edited and not self.overwrite_edits:
                continue
            stale.append(mid)
            rows.extend((mid, cid, position) for position, cid in enumerate(wanted))
        delete_where_in(MethodCollection, "method_id", stale)
        insert_rows(MethodCollection, ["method_id", "collection_id", "position"], rows)

    def datasets(self, incoming: list[DatasetIn]) -> None:
        by_url = {d.slug: d for d in incoming if d.slug}
        by_name = {d.fields["name"]: d for d in incoming if not d.slug}
        ids = self.upsert(Dataset, "slug", {s: d.fields for s, d in by_url.items()})
        named = self.dataset_names.definitions({k: d.fields for k, d in by_name.items()})
        targets = [(ids.get(slug), d) for slug, d in by_url.items()]
        targets += [(named.get(name), d) for name, d in by_name.items()]
        names = {n.slug_of(t): t for _, d in targets for t in d.tasks if n.slug_of(t)}
        task_ids = self.upsert(
            Task, "slug", {s: {"name": v} for s, v in names.items()}, fill_only=True
        )
        through = Dataset.tasks.through
        rows = [
            through(dataset_id=dataset_id, task_id=task_ids[n.slug_of(t)])
            for dataset_id, d in targets
            if dataset_id is not None
            for t in d.tasks
            if n.slug_of(t) in task_ids
        ]
        through.objects.bulk_create(rows, ignore_conflicts=True)

    # --- evaluation tables ----------------------------------------------------------------

    def evaluations(self, incoming: list[EvaluationIn]) -> None:
        task_ids = TaskTree(self).resolve([task for ev in incoming for task in ev.tasks])
        boards = [lb for ev in incoming for lb in ev.leaderboards]
        datasets = [d for lb in boards for d in (lb.dataset, lb.parent) if d]
        named = self.dataset_names.mentions(name for name, slug in datasets if not slug)
        at_slugs = self.dataset_names.at_slugs({slug: name for name, slug in datasets if slug})

        def key(lb: LeaderboardIn, dataset: tuple[str, str] | None = None) -> tuple[int, int]:
            name, slug = dataset or lb.dataset
            return task_ids[lb.task], at_slugs[slug] if slug else named[name]

        through = Dataset.tasks.through
        through.objects.bulk_create(
            [through(dataset_id=key(lb)[1], task_id=key(lb)[0]) for lb in boards],
            ignore_conflicts=True,
        )
        stub_ids = self.papers([stub for ev in incoming for stub in ev.stubs])

        # A board this file gives again (a subtask repeated under several parents, a
        # dataset named twice with another case or spacing) is the board it gave first:
        # its fields fill what the first left empty, its rows join the first's.
        first: dict[tuple[int, int], LeaderboardIn] = {}
        again: dict[tuple[int, int], LeaderboardIn] = {}
        for lb in boards:
            k = key(lb)
            if k in self.file_boards or k in first:
                again.setdefault(k, lb)
                self.stats.add("Leaderboard", "given_again")
            else:
                first[k] = lb
        board_ids = {k: given.board_id for k, given in self.file_boards.items()}
        for chosen, fill_only in ((first, False), (again, True)):
            by_task = defaultdict(dict)
            for (task_id, dataset), lb in chosen.items():
                by_task[task_id][dataset] = lb.fields | {"position": lb.position}
            for task_id, items in by_task.items():
                ids = self.upsert(
                    Leaderboard,
                    "dataset_id",
                    items,
                    extra_key={"task_id": task_id},
                    fill_only=fill_only,
                    count=not fill_only,
                )
                for dataset, board_id in ids.items():
                    board_ids[(task_id, dataset)] = board_id
        for k, lb in first.items():
            self.file_boards[k] = GivenBoard(board_ids[k])
            parent = board_ids.get(key(lb, lb.parent)) if lb.parent else None
            if parent is not None:
                Leaderboard.objects.filter(id=board_ids[k]).exclude(parent_id=parent).update(
                    parent_id=parent
                )

        arxiv_ids = {row["paper_arxiv"] for lb in boards for row in lb.rows if row["paper_arxiv"]}
        by_arxiv = {
            row["arxiv_id"]: row["id"]
            for row in _in(Paper, "arxiv_id", arxiv_ids, "id", "arxiv_id")
        }
        for lb in boards:
            self._board(self.file_boards[key(lb)], lb, stub_ids, by_arxiv)
        # Read now, so that pages show this batch's boards ranked while the file goes on.
        forget_boards(revalue_boards(self.file_boards[key(lb)].board_id for lb in boards))

    def _board(self, given: GivenBoard, lb: LeaderboardIn, stub_ids, by_arxiv) -> None:
        """Write the metrics and rows one occurrence of a board adds to what this file gave
        of it so far. What the file no longer gives goes when the file ends
        (end_file())."""
        before = self._board_writes()
        new_metrics = [m for m in lb.metrics if m not in given.metrics]
        metric_items = {
            m: {"position": len(given.metrics) + i, "stated_lower_is_better": lb.stated[m]}
            for i, m in enumerate(new_metrics)
        }
        given.metrics += new_metrics
        self.upsert(
            LeaderboardMetric, "name", metric_items, extra_key={"leaderboard_id": given.board_id}
        )
        rows = {}
        for row in lb.rows:
            values = {
                k: v for k, v in row.items() if k not in {"row_key", "paper_slug", "paper_arxiv"}
            }
            values["paper_id"] = stub_ids.get(row["paper_slug"]) or by_arxiv.get(
                row["paper_arxiv"]
            )
            row_key = given.add(row)
            if row_key is not None:
                values["position"] = len(given.rows) - 1
                rows[row_key] = values
        self.upsert(LeaderboardRow, "row_key", rows, extra_key={"leaderboard_id": given.board_id})
        given.written = given.written or bool(lb.rows)
        if self._board_writes() != before:
            # In the transaction that changes the board: a reader sees its old rows with
            # their kept ranking, or its new rows ranked live, never new rows in an old
            # order (the import's end ranks and keeps them again).
            forget_boards([given.board_id])

    def _board_writes(self) -> tuple[int, ...]:
        counts = self.stats.counts
        return tuple(
            counts[model][outcome]
            for model in ("LeaderboardMetric", "LeaderboardRow")
            for outcome in ("created", "updated")
        )

    def begin_file(self) -> None:
        self.file_boards = {}

    def end_file(self, *, complete: bool) -> None:
        """The boards this file gave are now as it gives them: their rows and metrics it
        does not give are deleted (except rows staff edited and metrics whose direction
        staff set), unless it gave a board no rows (an empty board replaces nothing) or
        the file could not be read to its end. Then every board's values are read again,
        column by column (papers.metrics)."""
        boards = [g for g in self.file_boards.values() if g.written] if complete else []
        shrunk = []
        for given in boards:
            deleted_metrics = (
                LeaderboardMetric.objects.filter(
                    leaderboard_id=given.board_id, lower_is_better__isnull=True
                )
                .exclude(name__in=given.metrics)
                .delete()[0]
            )
            stored = LeaderboardRow.objects.filter(leaderboard_id=given.board_id).values_list(
                "id", "row_key", "edited_in_admin"
            )
            gone = [
                pk
                for pk, row_key, edited in stored
                if row_key not in given.rows and (self.overwrite_edits or not edited)
            ]
            delete_where_in(LeaderboardRow, "id", gone)
            self.stats.add("LeaderboardRow", "deleted", len(gone))
            if gone or deleted_metrics:
                shrunk.append(given.board_id)
        forget_boards(shrunk)
        revalue_boards(shrunk)
        unranked = sum(1 for _ in unranked_values(g.board_id for g in self.file_boards.values()))
        self.stats.add("LeaderboardRow", "unranked", unranked)
        self.file_boards = {}

    # --- end of an import -------------------------------------------------------------------

    def finish(self) -> None:
        """Resolve references that files imported in another order left open, hide
        junk, and refresh the denormalised counts (the papers' first: the browse counts
        read them)."""
        resolve_references()
        for model in (Method, Dataset):
            self.stats.add(model.__name__, "hidden", hide_junk(model))
        refresh_counts(self.touched_papers)
        if any(
            self.stats.total(outcome) for outcome in ("created", "updated", "deleted", "hidden")
        ):
            refresh_all()


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


def _old_text(paper_ids: list[int]) -> list[tuple[int, str, str, str]]:
    """What the full-text index holds for these papers, before they change."""
    rows = select_rows(Paper, "id", paper_ids, ["id", "title", "abstract", "author_names"])
    return [(r["id"], r["title"], r["abstract"], r["author_names"]) for r in rows]


def _new_lists(
    paper: PaperIn, row: dict | None, lists: dict[str, dict[int, list[str]]]
) -> dict[str, list[str]]:
    """The author, task and method lists `paper` replaces: those it gives that differ
    from the stored paper's (`row`), where it outranks the source that wrote them."""
    rank = row["source_rank"] if row else -1
    new_lists = {}
    for name in ("authors", "tasks", "methods"):
        given = getattr(paper, name)
        if given and name != "authors":  # a task named twice is one link
            first: dict[str, str] = {}
            for item in given:
                first.setdefault(_slug(name, item), item)
            given = list(first.values())
        have = lists[name].get(row["id"], []) if row else []
        outranks = paper.rank >= rank or not have
        if given and outranks and given != have:
            new_lists[name] = given
    return new_lists


def _new_paper(paper: PaperIn, new_lists: dict[str, list[str]], counts: tuple) -> NewPaper:
    given = paper.fields
    values = [PAPER_DEFAULTS[f] if (v := given.get(f)) is None else v for f in PAPER_FIELDS]
    names = ", ".join(new_lists["authors"]) if "authors" in new_lists else ""
    # A vector computed ahead of the writer (papers.archive.engines.postgresql.vectors)
    # goes in with the row only if it was computed from exactly this row's text.
    search = paper.search
    vector = (
        search[3]
        if search is not None
        and search[0] == values[TITLE]
        and search[1] == values[ABSTRACT]
        and search[2] == names
        else None
    )
    return NewPaper(
        slug=paper.slug,
        rank=paper.rank,
        date_uncertain=uncertain_date(given.get("published")),
        author_names=names,
        counts=counts,
        values=values,
        vector=vector,
    )


def _merge_incoming(first: PaperIn | None, second: PaperIn) -> PaperIn:
    """Two mentions of one paper in a batch: the higher-ranked one's values win."""
    if first is None:
        return second
    low, high = (first, second) if first.rank <= second.rank else (second, first)
    fields = dict(low.fields)
    fields.update({k: v for k, v in high.fields.items() if not empty(v)})
    return PaperIn(
        slug=second.slug,
        rank=high.rank,
        fields=fields,
        authors=high.authors or low.authors,
        tasks=high.tasks or low.tasks,
        methods=high.methods or low.methods,
    )


@functools.lru_cache(maxsize=200_000)
def _slug(kind: str, name: str) -> str:
    return Author.slug_for(name) if kind == "authors" else n.slug_of(name)


def _sample_repo_url(sample: dict, record: RecordIn) -> str:
    repo = sample["repo"].strip("/")
    suffix = "/" + repo.lower()
    for link in record.links:
        if link.repo.url.lower().rstrip("/").removesuffix(".git").endswith(suffix):
            return link.repo.url
    for repo_in, _ in record.report_repos:
        if repo_in.url.lower().rstrip("/").removesuffix(".git").endswith(suffix):
            return repo_in.url
    if "://" in repo:
        return repo
    host = "github.com"
    if sample["file_url"].startswith(("http://", "https://")):
        host = sample["file_url"].split("/")[2]
    return f"https://{host}/{repo}"


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
        r["slug"]: r["id"] for r in _in(Paper, "slug", filter(None, slugs.values()), "id", "slug")
    }
    by_arxiv = {
        r["arxiv_id"]: r["id"]
        for r in _in(Paper, "arxiv_id", filter(None, arxivs.values()), "id", "arxiv_id")
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


def touch(model, ids: list[int], when) -> None:
    """Move these rows' updated_at: for papers, when their record changed through rows
    without timestamps of their own (samples, report repositories, what they introduce),
    so the record's Last-Modified moves with it."""
    for part in chunks(ids):
        model.objects.filter(id__in=part).update(updated_at=when)


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
