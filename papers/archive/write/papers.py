"""Write papers, with their author, task and method lists, by slug.

A batch's papers are merged by slug (the higher-ranked source's values win), compared
with the stored rows and lists, and written in bulk: new papers inserted with ids
reserved ahead (and, where they were computed ahead, their search vectors and code-link
counts), changed ones updated, the lists that differ rewritten. The full-text index
learns the batch's papers as papers.search.index keeps it. Every other writer that
names a paper (a code link's, a leaderboard row's) writes it through `PaperWriter.write`,
which creates a stub that a fuller record fills in later.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from django.db import connection

from papers.archive.read import normalise as n
from papers.archive.read.parsers import PaperIn
from papers.archive.write.core import Core, IdSet, empty
from papers.db import chunks, delete_where_in, insert_rows, reserve_ids, select_rows, update_rows
from papers.models import (
    Author,
    Method,
    Paper,
    PaperAuthor,
    PaperMethod,
    PaperTask,
    Task,
    uncertain_date,
)
from papers.search import index as search_index

PAPER_FIELDS = (
    "title", "arxiv_id", "nips_id", "openreview_id", "published", "proceeding", "conference",
    "conference_url_abs", "conference_url_pdf", "abstract", "short_abstract", "url_abs",
    "url_pdf", "source_archive", "source_snapshot", "source_row_kind", "source_licence_url",
    "arxiv_metadata", "extracted_results", "extra", "has_report", "report_url",
    "report_atlas_url", "report_developers_url", "report_mcp", "report_read_at",
    "report_read_at_is", "report_claim", "report_repo_kind_vocabulary",
    "report_n_pointer_only_for_licence", "arxiv_primary_category", "arxiv_categories",
)  # fmt: skip
PAPER_DEFAULTS = {f: Paper._meta.get_field(f).get_default() for f in PAPER_FIELDS}
TITLE, ABSTRACT = PAPER_FIELDS.index("title"), PAPER_FIELDS.index("abstract")
LISTS = {  # list name → its rows' model, the model they name and the column naming it
    "authors": (PaperAuthor, Author, "author_id"),
    "tasks": (PaperTask, Task, "task_id"),
    "methods": (PaperMethod, Method, "method_id"),
}


SHAPE_SHIFT = 40  # bits of a forecast below its frameworks' shape: 2 * links + official
LOW_MASK = (1 << SHAPE_SHIFT) - 1


class LinkForecast(Protocol):
    """Each paper's code links counted before the writer reaches it (an engine's
    session may hand one: papers.archive.engines.postgresql.link_counts)."""

    # The forecast's distinct {framework: links}, which packed counts index.
    shapes: list[dict[str, int]]

    def counts(self) -> dict[str, int] | None:
        """{paper slug: pack(links, official, shape)}, or None until they have arrived.
        The writer takes entries out as it uses them."""
        ...


def pack(links: int, official: bool, shape: int = 0) -> int:
    """A paper's forecast as one int: its links, whether one is official, and the index
    of its links by framework in the forecast's `shapes` (few distinct ones: most papers
    have one PyTorch link). A paper without frameworks packs to a small int, cached by
    CPython: little memory."""
    return shape << SHAPE_SHIFT | 2 * links + official


def unpack(value: int, shapes: list[dict[str, int]]) -> tuple[int, bool, dict[str, int]]:
    """(links, official, {framework: links}) of a packed forecast."""
    low = value & LOW_MASK
    return low >> 1, bool(low & 1), shapes[value >> SHAPE_SHIFT]


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


def _in(model, field: str, values: Iterable, *only: str) -> list[dict]:
    return select_rows(model, field, values, only)


class PaperWriter:
    def __init__(self, core: Core):
        self.core = core
        self.stats = core.stats
        self.touched = IdSet()  # every paper written, for their counts at the end
        # The full-text index is built at the end of the import (search.index.defer()).
        self.index_deferred = False
        # While it is: the papers inserted and changed since the last commit, for
        # papers.archive.engines.sqlite.fts_side (see take_text_writes()).
        self.text_added: list[int] = []
        self.text_changed: list[int] = []
        # Each new paper's code links, counted ahead (None: counted at the end only).
        self.forecast: LinkForecast | None = None
        # The slugs the papers table may hold (set by the importer), or None: look up all.
        self.known_slugs: KnownSlugs | None = None
        # Whether the papers table may hold papers keyed by their arXiv id (None: not
        # yet asked).
        self.arxiv_keyed: bool | None = None

    def take_text_writes(self) -> tuple[list[int], list[int]]:
        """The papers inserted and changed while the index was deferred, since the last
        call (the importer calls it after each commit)."""
        out = self.text_added, self.text_changed
        self.text_added, self.text_changed = [], []
        return out

    def write(self, incoming: list[PaperIn]) -> dict[str, int]:
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
        forecast = self.forecast.counts() if self.forecast is not None else None
        shapes = self.forecast.shapes if forecast is not None else []
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
        self._write_rows(new, changed, written, ids, counts=forecast is not None)
        self._replace_lists(
            {ids[s]: lists_ for s, lists_ in replace_lists.items() if lists_},
            {ids[p.slug] for p in new},
        )
        return ids

    def _write_rows(
        self,
        new: list[NewPaper],
        changed: list[ChangedPaper],
        written: list[str],
        ids: dict[str, int],
        *,
        counts: bool,
    ) -> None:
        """Insert and update the batch's papers as the full-text index is kept; the new
        papers' ids go into `ids`."""
        with search_index.bulk_writes(deferred=self.index_deferred) as index:
            if new:
                ids.update(self._insert_papers(new, index, counts=counts))
            if changed:
                self._update_papers(changed, written, index)
        self.stats.add("Paper", "created", len(new))
        self.stats.add("Paper", "updated", len(changed))
        self.touched.update(ids.values())

    def _stored_papers(
        self, merged: dict[str, PaperIn], written: list[str]
    ) -> tuple[dict[str, dict], dict[str, dict[int, list[str]]]]:
        """The stored rows of the batch's papers by slug (their `written` columns), and
        their author, task and method lists where the batch gives any."""
        only = ["id", "slug", "source_rank", "edited_in_admin", "author_names", *written]
        if "arxiv_primary_category" not in only:  # whether arXiv dated it
            only.append("arxiv_primary_category")
        known = self.known_slugs
        lookup = list(merged) if known is None else [slug for slug in merged if slug in known]
        existing = {row["slug"]: row for row in _in(Paper, "slug", lookup, *only)}
        wanted_lists = [
            name
            for name in ("authors", "tasks", "methods")
            if any(getattr(p, name) for p in merged.values())
        ]
        lists = _current_lists([row["id"] for row in existing.values()], wanted_lists)
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
        if row["edited_in_admin"] and not self.core.overwrite_edits:
            self.stats.add("Paper", "left_alone")
            return None
        full = {f: row[f] for f in written} | values
        names = ", ".join(new_lists["authors"]) if "authors" in new_lists else None
        return ChangedPaper(
            id=row["id"],
            slug=paper.slug,
            rank=new_rank,
            date_uncertain=uncertain_date(
                full["published"],
                from_arxiv=bool(
                    full.get("arxiv_primary_category") or row["arxiv_primary_category"]
                ),
            ),
            author_names=row["author_names"] if names is None else names,
            values=[full[f] for f in written],
        )

    def _insert_papers(
        self, new: list[NewPaper], index: search_index.IndexBatch, *, counts: bool
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
        self, changed: list[ChangedPaper], written: list[str], index: search_index.IndexBatch
    ) -> None:
        ids = [p.id for p in changed]
        if search_index.needs_old_text() and not self.index_deferred:
            index.change(_old_text(ids))
        update_rows(
            Paper,
            ["source_rank", "date_uncertain", "author_names", "updated_at", *written],
            [
                (p.rank, p.date_uncertain, p.author_names, self.core.now, *p.values, p.id)
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
            self._adopt_arxiv_keyed(slugged)
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

    def _adopt_arxiv_keyed(self, slugged: dict[str, str]) -> None:
        """Rows keyed by an arXiv id (`arxiv-<id>`) that a paper of the batch names with
        its slug (`slugged`: arXiv id → slug) take that slug, unless a row has it."""
        provisional = {n.arxiv_slug(aid): slug for aid, slug in slugged.items()}
        rows = _in(Paper, "slug", provisional, "id", "slug")
        taken = {r["slug"] for r in _in(Paper, "slug", provisional.values(), "slug")}
        for row in rows:
            slug = provisional[row["slug"]]
            if slug not in taken:
                Paper.objects.filter(id=row["id"]).update(slug=slug, updated_at=self.core.now)
                taken.add(slug)
                if self.known_slugs is not None:
                    self.known_slugs.update([slug])

    def _replace_lists(self, changes: dict[int, dict[str, list[str]]], created: set[int]) -> None:
        """Write these papers' author/task/method lists (`created`: papers this batch
        inserted, which have no list rows to delete yet)."""
        for name, (model, target_model, fk) in LISTS.items():
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
            target_ids = self.core.upsert(
                target_model, "slug", {s: {"name": v} for s, v in names.items()}, fill_only=True
            )
            delete_where_in(model, "paper_id", [pid for pid in todo if pid not in created])
            rows = _list_rows(todo, slugs, target_ids, once=name != "authors")
            insert_rows(model, ["paper_id", "position", fk, "name"], rows)


def _list_rows(
    todo: dict[int, list[str]], slugs: dict[str, str], target_ids: dict[str, int], *, once: bool
) -> list[tuple]:
    """The list rows (paper, position, named row, name as given) of each paper's list;
    `once`: a row named twice on one paper is one link (tasks, methods)."""
    rows, seen = [], set()
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
    return rows


def _current_lists(paper_ids: list[int], names: list[str]) -> dict[str, dict[int, list[str]]]:
    """{"authors": {paper_id: [name, …]}, …}: each paper's lists in order."""
    out: dict[str, dict[int, list[str]]] = {"authors": {}, "tasks": {}, "methods": {}}
    with connection.cursor() as cursor:
        for name in names:
            model, target, fk = LISTS[name]
            link, target = model._meta.db_table, target._meta.db_table
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
        date_uncertain=uncertain_date(
            given.get("published"), from_arxiv=bool(given.get("arxiv_primary_category"))
        ),
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
