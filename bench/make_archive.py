"""Write a synthetic Papers with Code archive (synthetic/) to files.

    .venv/bin/python bench/make_archive.py --papers 576000 --seed 1 --out bench/data/full \\
        --format json.gz

writes papers-with-abstracts, links-between-papers-and-code, evaluation-tables, methods,
datasets and records, each as <name>.<format>, and prints a table of file, records,
bytes and seconds. Several formats may be given (--format json.gz --format parquet, or
--format json.gz,parquet).

Streaming throughout: JSON arrays are written one record at a time and Parquet in record
batches, so memory stays bounded whatever --papers is. With --jobs N (default: the CPU
count, at most 4) the files are written by N worker processes: the archive index (one
title per paper, see synthetic/) is drawn once in N parallel parts and handed to
every worker, and the JSON forms of the per-paper files are written in parts
concatenated at the end (a .json.gz is then a multi-member gzip stream, which gzip, zcat
and Python's gzip read as one). Output is byte-identical from run to run (gzip mtime 0).

Formats: .json and .json.gz are JSON arrays with one record per line and non-ASCII
escaped (as the real dumps are); .jsonl and .jsonl.gz are JSON Lines in UTF-8; .parquet
uses native list/struct columns where the shape is fixed, and JSON text for the deeply
nested or variable ones (evaluation-tables' datasets/subtasks, records' syntology and
results), which the importer decodes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import contextlib
import ctypes
import gzip
import json
import multiprocessing
import os
import shutil
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import synthetic

FORMATS = ("json.gz", "json", "jsonl", "jsonl.gz", "parquet")
KINDS = tuple(synthetic.FILE_NAMES)
PER_PAPER = ("papers", "links", "records")  # kinds generated per paper index, splittable
BATCH = 10_000
# Kinds with big rows write smaller batches (a top-level task holds whole leaderboards).
BATCH_SIZES = {"papers": 2_500, "records": 1_000, "evaluation-tables": 250}


@dataclass(frozen=True, slots=True)
class Settings:
    seed: int
    papers: int
    methods: int
    datasets: int
    rows: int
    record_share: float
    gzip_level: int


@dataclass(frozen=True, slots=True)
class Unit:
    """One piece of work: rows start..stop of one kind, written to one file."""

    kind: str
    fmt: str
    path: str
    start: int = 0
    stop: int | None = None
    part: int | None = None  # set when the file is written in parts


def rows_for(kind: str, s: Settings, start: int = 0, stop: int | None = None) -> Iterator[dict]:
    if kind == "papers":
        return synthetic.paper_rows(s.seed, s.papers, start=start, stop=stop)
    if kind == "links":
        return synthetic.link_rows(s.seed, s.papers, start=start, stop=stop)
    if kind == "records":
        return synthetic.record_rows(s.seed, s.papers, s.record_share, start=start, stop=stop)
    if kind == "methods":
        return synthetic.method_rows(s.seed, s.methods, papers=s.papers)
    if kind == "datasets":
        return synthetic.dataset_rows(s.seed, s.datasets, papers=s.papers)
    if kind == "evaluation-tables":
        return synthetic.evaluation_rows(s.seed, s.papers, s.rows)
    raise ValueError(kind)


# --- JSON writers ---------------------------------------------------------------------------


def _open(path: str, gz: bool, level: int):
    raw = open(path, "wb")  # noqa: SIM115 - closed by the caller
    if gz:
        # mtime=0 and no file name: the same archive gives the same bytes every run.
        return gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, compresslevel=level, mtime=0
        ), raw
    return raw, None


def write_json(rows: Iterable[dict], path: str, fmt: str, level: int, framed: bool) -> int:
    """Write rows; ``framed`` adds the array's brackets (a whole file, not a part)."""
    gz = fmt.endswith(".gz")
    lines = fmt.startswith("jsonl")
    out, raw = _open(path, gz, level)
    count = 0
    buffer: list[str] = []
    buffered = 0
    sep = "\n" if lines else ",\n"
    try:
        if framed and not lines:
            out.write(b"[\n")
        for row in rows:
            if lines:
                text = json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"
            else:
                text = (sep if count else "") + json.dumps(row, separators=(",", ":"))
            buffer.append(text)
            buffered += len(text)
            count += 1
            if buffered >= 1 << 20:  # write about 1 MB at a time
                out.write("".join(buffer).encode())
                buffer.clear()
                buffered = 0
        out.write("".join(buffer).encode())
        if framed and not lines:
            out.write(b"\n]\n")
    finally:
        out.close()
        if raw is not None:
            raw.close()
    return count


def join_parts(path: str, fmt: str, parts: list[tuple[str, int]], level: int) -> None:
    """Concatenate JSON parts into one file (gzip members concatenate into one stream)."""
    lines = fmt.startswith("jsonl")
    gz = fmt.endswith(".gz")

    def piece(text: str) -> bytes:
        data = text.encode()
        return gzip.compress(data, compresslevel=level, mtime=0) if gz else data

    with open(path, "wb") as out:
        if not lines:
            out.write(piece("[\n"))
        first = True
        for part, count in parts:
            if count:
                if not first and not lines:
                    out.write(piece(",\n"))
                with open(part, "rb") as fh:
                    shutil.copyfileobj(fh, out, 1 << 20)
                first = False
            os.unlink(part)
        if not lines:
            out.write(piece("\n]\n"))


# --- Parquet ----------------------------------------------------------------------------------

# Columns stored as JSON text: their shape varies from row to row.
JSON_COLUMNS = {
    "evaluation-tables": ("datasets", "subtasks"),
    "records": ("results", "syntology", "arxiv_metadata", "syntology_extracted_results"),
}


def arrow_schema(kind: str):
    import pyarrow as pa

    s, i64, b = pa.string(), pa.int64(), pa.bool_()
    strings = pa.list_(s)
    title_url = pa.struct([("title", s), ("url", s)])
    if kind == "papers":
        collection = pa.struct([("name", s), ("description", s), ("parent", s), ("area", s)])
        method = pa.struct(
            [("name", s), ("full_name", s), ("description", s), ("introduced_year", i64),
             ("source_url", s), ("source_title", s), ("code_snippet_url", s),
             ("main_collection", collection)]
        )  # fmt: skip
        fields = [
            ("paper_url", s), ("arxiv_id", s), ("nips_id", s), ("openreview_id", s),
            ("title", s), ("abstract", s), ("short_abstract", s), ("url_abs", s),
            ("url_pdf", s), ("proceeding", s), ("conference", s), ("authors", strings),
            ("tasks", strings), ("date", s), ("methods", pa.list_(method)),
        ]  # fmt: skip
    elif kind == "links":
        fields = [
            ("paper_url", s), ("paper_title", s), ("paper_arxiv_id", s), ("paper_url_abs", s),
            ("paper_url_pdf", s), ("repo_url", s), ("is_official", b),
            ("mentioned_in_paper", b), ("mentioned_in_github", b), ("framework", s),
        ]  # fmt: skip
    elif kind == "methods":
        collection = pa.struct([("collection", s), ("area_id", s), ("area", s)])
        fields = [
            ("url", s), ("name", s), ("full_name", s), ("description", s),
            ("paper", title_url), ("introduced_year", i64), ("source_url", s),
            ("source_title", s), ("code_snippet_url", s), ("num_papers", i64),
            ("collections", pa.list_(collection)),
        ]  # fmt: skip
    elif kind == "datasets":
        loader = pa.struct([("url", s), ("repo", s), ("frameworks", strings)])
        fields = [
            ("url", s), ("name", s), ("full_name", s), ("homepage", s), ("description", s),
            ("paper", title_url), ("introduced_date", s), ("warning", s),
            ("modalities", strings), ("tasks", pa.list_(pa.struct([("task", s), ("url", s)]))),
            ("languages", strings), ("variants", strings), ("num_papers", i64),
            ("data_loaders", pa.list_(loader)),
        ]  # fmt: skip
    elif kind == "evaluation-tables":
        fields = [
            ("task", s), ("categories", strings), ("description", s),
            ("source_link", title_url), ("datasets", s), ("subtasks", s), ("synonyms", strings),
        ]  # fmt: skip
    elif kind == "records":
        about = pa.struct([(k, s) for k in synthetic.RECORD_ABOUT])
        source = pa.struct([(k, s) for k in synthetic.RECORD_SOURCE])
        link = pa.struct(
            [("paper_slug", s), ("repo_url", s), ("is_official", i64),
             ("mentioned_in_paper", i64), ("mentioned_in_github", i64), ("framework", s),
             ("reach", pa.struct([("status", s), ("spdx", s)]))]
        )  # fmt: skip
        fields = [
            ("about", about), ("url", s), ("title", s), ("arxiv_id", s), ("date", s),
            ("proceeding", s), ("authors", strings), ("abstract", s), ("url_abs", s),
            ("url_pdf", s), ("source", source), ("code_links", pa.list_(link)),
            ("tasks", strings), ("methods", strings), ("datasets_introduced", strings),
            ("methods_introduced", strings), ("results", s), ("syntology", s),
            ("arxiv_metadata", s), ("syntology_extracted_results", s),
        ]  # fmt: skip
    else:
        raise ValueError(kind)
    return pa.schema(fields)


def _trim() -> None:
    """Give freed heap back to the OS (glibc keeps it in the arenas of Arrow's threads)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def write_parquet(rows: Iterable[dict], path: str, kind: str) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # The system allocator hands memory back after each batch; mimalloc's pool keeps it.
    pa.set_memory_pool(pa.system_memory_pool())
    schema = arrow_schema(kind)
    as_json = JSON_COLUMNS.get(kind, ())
    batch_size = BATCH_SIZES.get(kind, BATCH)
    count = 0
    batch: list[dict] = []
    # No dictionary encoding: its per-column builders cost ~30 MB and zstd gets the repeats.
    with pq.ParquetWriter(path, schema, compression="zstd", use_dictionary=False) as writer:

        def flush() -> None:
            writer.write_batch(pa.RecordBatch.from_pylist(batch, schema=schema))
            batch.clear()
            _trim()

        for row in rows:
            for key in as_json:
                if row[key] is not None:
                    row[key] = json.dumps(row[key], ensure_ascii=False)
            batch.append(row)
            count += 1
            if len(batch) >= batch_size:
                flush()
        if batch:
            flush()
    return count


# --- running ----------------------------------------------------------------------------------


_INSTALLED = False


def index_part(settings: Settings, start: int, stop: int):
    return synthetic.index_draws(settings.seed, settings.papers, start, stop)


def run_unit(unit: Unit, settings: Settings, index=None) -> tuple[Unit, int, float]:
    global _INSTALLED
    began = time.perf_counter()
    if index is not None and not _INSTALLED:
        synthetic.install_index(settings.seed, settings.papers, index)
        _INSTALLED = True
    rows = rows_for(unit.kind, settings, unit.start, unit.stop)
    if unit.fmt == "parquet":
        count = write_parquet(rows, unit.path, unit.kind)
    else:
        count = write_json(rows, unit.path, unit.fmt, settings.gzip_level, unit.part is None)
    return unit, count, time.perf_counter() - began


def plan(settings: Settings, formats: list[str], kinds: list[str], out: Path, jobs: int):
    units: list[Unit] = []
    for fmt in formats:
        for kind in kinds:
            path = out / f"{synthetic.FILE_NAMES[kind]}.{fmt}"
            parts = jobs if kind in PER_PAPER and fmt != "parquet" and jobs > 1 else 1
            if kind != "papers" and parts > 1:
                parts = 2  # the smaller per-paper files gain little from more parts
            if parts == 1:
                units.append(Unit(kind, fmt, str(path)))
                continue
            step = -(-settings.papers // parts)
            for k in range(parts):
                units.append(Unit(kind, fmt, f"{path}.part{k}", k * step, (k + 1) * step, part=k))
    # Biggest first keeps the workers evenly busy.
    weight = {"papers": 10, "links": 3, "records": 3, "evaluation-tables": 2}
    return sorted(units, key=lambda u: -weight.get(u.kind, 1) / (1 if u.part is None else 2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=synthetic.DEFAULT_PAPERS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("bench/data/full"))
    parser.add_argument(
        "--format",
        action="append",
        help=f"one of {', '.join(FORMATS)}; repeat or comma-separate (default json.gz)",
    )
    parser.add_argument("--only", help="comma-separated kinds: " + ", ".join(KINDS))
    parser.add_argument("--methods", type=int, help="default: 8700 scaled to --papers, >= 50")
    parser.add_argument("--datasets", type=int, help="default: 15000 scaled, >= 50")
    parser.add_argument("--rows", type=int, help="leaderboard rows; default 60000 scaled")
    parser.add_argument("--record-share", type=float, default=0.05)
    parser.add_argument("--gzip-level", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    args = parser.parse_args(argv)

    formats = [f for spec in (args.format or ["json.gz"]) for f in spec.split(",") if f]
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        parser.error(f"unknown format {bad[0]!r}; choose from {', '.join(FORMATS)}")
    kinds = [k for k in (args.only.split(",") if args.only else KINDS) if k]
    if unknown := [k for k in kinds if k not in KINDS]:
        parser.error(f"unknown kind {unknown[0]!r}; choose from {', '.join(KINDS)}")
    if args.papers < 1:
        parser.error("--papers must be at least 1")
    sizes = synthetic.archive_sizes(args.papers)
    settings = Settings(
        seed=args.seed,
        papers=args.papers,
        methods=args.methods or sizes.methods,
        datasets=args.datasets or sizes.datasets,
        rows=args.rows or sizes.rows,
        record_share=args.record_share,
        gzip_level=args.gzip_level,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    jobs = max(1, args.jobs)
    units = plan(settings, formats, kinds, args.out, jobs)
    began = time.perf_counter()
    results: list[tuple[Unit, int, float]] = []
    if jobs == 1:
        results = [run_unit(u, settings) for u in units]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            # The archive index (a title per paper) is drawn once, in parallel parts,
            # rather than once in every worker.
            step = -(-settings.papers // jobs)
            parts = [
                pool.submit(index_part, settings, k * step, (k + 1) * step) for k in range(jobs)
            ]
            index = [f.result() for f in parts]
            futures = [pool.submit(run_unit, u, settings, index) for u in units]
            results = [f.result() for f in futures]

    # Join the parts of split files; tally records and seconds per final file.
    table: dict[str, list] = {}
    for unit, count, seconds in results:
        final = unit.path if unit.part is None else unit.path.rsplit(".part", 1)[0]
        entry = table.setdefault(final, [unit, [], 0, 0.0])
        entry[1].append((unit.part or 0, unit.path, count))
        entry[2] += count
        entry[3] += seconds
    for final, (unit, parts, _, _) in table.items():
        if unit.part is not None:
            began_join = time.perf_counter()
            ordered = [(path, count) for _, path, count in sorted(parts)]
            join_parts(final, unit.fmt, ordered, settings.gzip_level)
            table[final][3] += time.perf_counter() - began_join
    wall = time.perf_counter() - began

    order = {f"{synthetic.FILE_NAMES[k]}.{fmt}": (i, j) for i, fmt in enumerate(formats)
             for j, k in enumerate(KINDS)}  # fmt: skip
    print(f"{'file':<44} {'records':>10} {'bytes':>15} {'seconds':>8}")
    total_bytes = 0
    for final in sorted(table, key=lambda p: order.get(Path(p).name, (0, 0))):
        size = Path(final).stat().st_size
        total_bytes += size
        _, _, count, seconds = table[final]
        print(f"{Path(final).name:<44} {count:>10,} {size:>15,} {seconds:>8.1f}")
    label = f"total (wall clock, {jobs} jobs)"
    print(f"{label:<44} {'':>10} {total_bytes:>15,} {wall:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
