"""Benchmark: related papers, for quality on real labelled papers and for time at scale.

    python bench/related.py quality                 # ~5 min: both real files, every variant
    python bench/related.py scale --copy /work/bench-data/full.sqlite3
    python bench/related.py scale --import bench/data/50000/papers-with-abstracts.json.gz \\
        --engine postgres

quality: the 5,250 real papers of ../shared/realdata/1pha__BayesianActiveLearning
(title, abstract, and an area and task label each). For each file (test_dataset.jsonl,
the goal's; valid_dataset.jsonl, held out), precision@10 of "shares the area" and
"shares the task" among each paper's 10 nearest, for chance, the plain TF-IDF cosine
baseline, and the variants measured on the way to the shipped method; then the shipped
path end to end: the papers imported by import_archive as a papers-with-abstracts file
(text only, the labels kept here), `manage.py compute_related`, and the RelatedPaper rows
it wrote read back.

scale: `compute_related` on a database (a copy of a SQLite file, or a fresh database on
either engine that an archive file is imported into): the full run, a second run over
the same papers (writes nothing), then 5,000 new papers imported and `--only-new`.
Wall time, CPU time and peak RSS of each; the scratch database is deleted at the end.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import numpy as np
from measure import run  # bench/ is the script's folder, so it is on sys.path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable
REAL = ROOT.parent / "shared" / "realdata" / "1pha__BayesianActiveLearning" / "converted"
K = 10  # precision@10


# --- quality ------------------------------------------------------------------------


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (REAL / name).read_text().splitlines() if line]


def precision(top: np.ndarray, records: list[dict]) -> tuple[float, float]:
    area = np.array([r["area"] for r in records])
    task = np.array([r["task_id"] for r in records])
    return float((area[top] == area[:, None]).mean()), float((task[top] == task[:, None]).mean())


def chance(records: list[dict]) -> tuple[float, float]:
    n = len(records)
    out = []
    for key in ("area", "task_id"):
        sizes = Counter(r[key] for r in records)
        out.append(sum(c * (c - 1) for c in sizes.values()) / (n * (n - 1)))
    return out[0], out[1]


def top_of(similarity: np.ndarray, k: int = K) -> np.ndarray:
    from papers.related.neighbours import top_k_rows

    s = similarity.astype(np.float32, copy=True)
    np.fill_diagonal(s, -np.inf)
    return top_k_rows(s, k)[0]


def variants(records: list[dict]):
    """(name, top-10 indices) of each method measured, the shipped one among them."""
    import scipy.sparse as sp
    from sklearn.cluster import KMeans
    from sklearn.feature_extraction.text import TfidfVectorizer

    from papers.related.model import DEFAULT, fit, paper_text

    def texts(title_weight):
        return [paper_text(r["title"], r["abstract"], title_weight=title_weight) for r in records]

    base = TfidfVectorizer(
        sublinear_tf=True, ngram_range=(1, 2), stop_words="english", dtype=np.float32
    ).fit_transform(texts(1))
    cosine = (base @ base.T).toarray()
    yield (
        "TF-IDF cosine (sublinear tf, 1-2-grams, English stop words): the baseline",
        top_of(cosine),
    )

    def model(**changes):
        params = dataclasses.replace(DEFAULT, **changes)
        t = texts(params.title_weight)
        return fit(t, params).transform(t)

    yield "TF-IDF, title twice, min_df 2, max_df 0.5", top_of(_tfidf_cos(texts(2)))
    for dims in (75, 200, 400):
        z = model(rounds=0, dims=dims)
        yield f"LSA {dims} dims (no sharpening)", top_of(z @ z.T)
    z = model(rounds=0)
    lsa = z @ z.T
    yield "LSA 75 + TF-IDF cosine, averaged", top_of((lsa + cosine) / 2)
    first = top_of(lsa, 20)
    prf = z + z[first].mean(axis=1)
    prf /= np.linalg.norm(prf, axis=1, keepdims=True)
    yield "LSA 75, query expansion (mean of the 20 nearest, searched again)", top_of(prf @ prf.T)
    n = len(records)
    near = sp.csr_matrix(
        (np.ones(n * 40), top_of(lsa, 40).ravel(), np.arange(0, n * 40 + 1, 40)), shape=(n, n)
    )
    shared = (near @ near.T).toarray() / 40
    yield "LSA 75 + shared nearest neighbours (k=40, weight 1)", top_of(lsa + shared)
    together = np.zeros((n, n), np.float32)
    for clusters in (10, 20, 40, 80, 160):
        for seed in range(2):
            labels = KMeans(clusters, n_init=1, random_state=seed).fit_predict(z)
            together += labels[:, None] == labels[None, :]
    yield (
        "LSA 75 + k-means co-membership (5 sizes x 2 seeds, weight .25)",
        top_of(lsa + 0.25 * together / 10),
    )
    for rounds in (1, 2):
        z = model(rounds=rounds)
        yield f"sharpened LSA, {rounds} round{'s' * (rounds > 1)}", top_of(z @ z.T)
    for clusters in (10, 30):
        z = model(clusters=clusters)
        yield f"sharpened LSA, 3 rounds, {clusters} clusters", top_of(z @ z.T)
    for dims in (50, 100, 150):
        z = model(dims=dims)
        yield f"sharpened LSA, 3 rounds, {dims} dims", top_of(z @ z.T)
    z = model(title_weight=1)
    yield "sharpened LSA, title once", top_of(z @ z.T)
    z = model()
    yield (
        "shipped: sharpened LSA (75 dims, 20 clusters x 3 seeds, 3 rounds, title twice)",
        (top_of(z @ z.T)),
    )


def _tfidf_cos(texts):
    from sklearn.feature_extraction.text import TfidfVectorizer

    x = TfidfVectorizer(
        sublinear_tf=True,
        ngram_range=(1, 2),
        stop_words="english",
        min_df=2,
        max_df=0.5,
        dtype=np.float32,
    ).fit_transform(texts)
    return (x @ x.T).toarray()


def end_to_end(records: list[dict], scratch: Path) -> tuple[list[list[int]], float]:
    """import_archive + compute_related on a fresh SQLite database: each paper's 10 first
    related papers (indices into records) as the command stored them, and its seconds."""
    db = scratch / "quality.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    env = dict(
        os.environ,
        SECRET_KEY="bench",
        DEBUG="false",
        DATABASE_URL=f"sqlite:///{db}",
        RELATED_STATE_DIR=str(scratch / "state"),
    )
    dump = scratch / "real-papers.json"
    dump.write_text(
        json.dumps(
            [
                {
                    "paper_url": f"https://paperswithcode.com/paper/real-{i}",
                    "title": r["title"],
                    "abstract": r["abstract"],
                    "arxiv_id": r.get("arxiv_id"),
                }
                for i, r in enumerate(records)
            ]
        )
    )
    subprocess.run([PYTHON, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    command = [PYTHON, "manage.py", "import_archive", str(dump), "--kind", "papers", "-v", "0"]
    subprocess.run(command, cwd=ROOT, env=env, check=True)
    took = run([PYTHON, "manage.py", "compute_related", "-v", "1"], env)
    with sqlite3.connect(db) as con:
        slug = dict(con.execute("SELECT id, slug FROM papers_paper"))
        lists: dict[int, list[int]] = {}
        for paper, related in con.execute(
            "SELECT paper_id, related_id FROM papers_relatedpaper WHERE NOT hidden "
            "ORDER BY paper_id, rank"
        ):
            lists.setdefault(int(slug[paper][5:]), []).append(int(slug[related][5:]))
    return [lists.get(i, [])[:K] for i in range(len(records))], took.seconds


def quality(args) -> None:
    if not REAL.exists():
        raise SystemExit(f"{REAL} is not there: the real papers are needed")
    scratch = Path(tempfile.mkdtemp(prefix="related-quality-", dir=ROOT / "bench"))
    try:
        for name in args.files.split(","):
            records = load(name)
            print(f"\n{name}: {len(records):,} papers", flush=True)
            print(f"| method | area p@{K} | task p@{K} |\n|---|---:|---:|")
            area, task = chance(records)
            print(f"| chance (a random other paper) | {area:.3f} | {task:.3f} |", flush=True)
            if args.variants:
                for label, top in variants(records):
                    area, task = precision(top, records)
                    print(f"| {label} | {area:.3f} | {task:.3f} |", flush=True)
            found, seconds = end_to_end(records, scratch)
            short = sum(len(f) < K for f in found)
            padded = np.array([(f + [i] * K)[:K] for i, f in enumerate(found)])  # self: a miss
            area, task = precision(padded, records)
            print(
                f"| **compute_related end to end** (import_archive, the command, its rows; "
                f"{seconds:.0f} s, {short} lists under {K}) | **{area:.3f}** | **{task:.3f}** |",
                flush=True,
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# --- scale --------------------------------------------------------------------------


def new_papers(path: Path, count: int) -> Path:
    """`count` synthetic papers no database holds yet (their slugs end in -new)."""
    import synthetic

    if path.exists():
        return path
    with gzip.open(path, "wt") as f:
        f.write("[\n")
        for i, row in enumerate(synthetic.paper_rows(7, count)):
            row = dict(row, paper_url=row["paper_url"].rstrip("/") + "-new", arxiv_id=None)
            f.write(("," if i else "") + json.dumps(row) + "\n")
        f.write("]\n")
    return path


def recall(state_dir: Path, queries: int = 1000) -> None:
    """How many of the stored 20 nearest an exact search finds too, on random papers
    (the inverted file's recall; 1.0 where the search was exact)."""
    import pickle

    from papers.related.lists import LIST_SIZE
    from papers.related.neighbours import exact_top_k

    (path,) = state_dir.glob("related-*.pickle")
    with path.open("rb") as f:
        saved = pickle.load(f)
    rng = np.random.default_rng(0)
    rows = np.sort(rng.choice(len(saved.ids), min(queries, len(saved.ids)), replace=False))
    found, _ = exact_top_k(saved.vectors[rows], saved.vectors, LIST_SIZE, self_index=rows)
    exact = saved.ids[found]
    stored = saved.neighbour_ids[rows, :LIST_SIZE]
    hits = [len(set(a) & set(b)) / LIST_SIZE for a, b in zip(exact, stored, strict=True)]
    print(f"  recall@{LIST_SIZE} against exact search, {len(rows):,} papers: {np.mean(hits):.4f}")


def scale(args) -> None:
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, SECRET_KEY="bench", DEBUG="false")
    env["RELATED_STATE_DIR"] = str(scratch / "state")
    shutil.rmtree(scratch / "state", ignore_errors=True)
    cleanup = []
    if args.copy:
        db = scratch / "related-scale.sqlite3"
        print(f"copying {args.copy} to {db} …", flush=True)
        shutil.copyfile(args.copy, db)
        cleanup.append(db)
        env["DATABASE_URL"] = f"sqlite:///{db}"
    elif args.engine == "sqlite":
        db = scratch / "related-scale.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        cleanup.append(db)
        env["DATABASE_URL"] = f"sqlite:///{db}"
    else:
        import psycopg

        with psycopg.connect(args.pg_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {args.pg_name} WITH (FORCE)")
            admin.execute(f"CREATE DATABASE {args.pg_name}")
        env["DATABASE_URL"] = urlunsplit(urlsplit(args.pg_url)._replace(path=f"/{args.pg_name}"))
    engine = "postgres" if env["DATABASE_URL"].startswith("postgres") else "sqlite"
    subprocess.run([PYTHON, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    if args.import_:
        print(f"importing {args.import_} …", flush=True)
        t = time.monotonic()
        subprocess.run(
            [PYTHON, "manage.py", "import_archive", args.import_, "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        print(f"  imported in {time.monotonic() - t:.0f} s", flush=True)
    rows = []

    def step(label: str, command: list[str]) -> None:
        load = os.getloadavg()[0]
        took = run(command, env)
        summary = [  # the command's summary and, with -v 2, its seconds per stage
            line
            for line in took.output.splitlines()
            if line.startswith("Related") or re.match(r"\s+[\d.]+ s  ", line)
        ]
        rows.append((label, took.seconds, took.cpu, took.rss_mb, load, os.getloadavg()[0]))
        print(
            f"{engine}: {label}: {took.seconds:.1f} s wall, {took.cpu:.1f} s CPU, "
            f"peak RSS {took.rss_mb:,} MB, load {load:.1f} -> {os.getloadavg()[0]:.1f}\n  "
            + "\n  ".join(summary),
            flush=True,
        )
        if args.verbose:
            print(took.output, flush=True)

    compute = [PYTHON, "manage.py", "compute_related", "-v", "2"]
    step("compute_related, every paper", compute)
    recall(Path(env["RELATED_STATE_DIR"]))
    step("compute_related again, nothing changed", compute)
    fresh = new_papers(scratch / f"new-{args.new}.json.gz", args.new)
    subprocess.run(
        [PYTHON, "manage.py", "import_archive", str(fresh), "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    step(f"compute_related --only-new, {args.new:,} new papers", [*compute, "--only-new"])
    print("\n| engine | run | wall s | CPU s | peak RSS MB | load before -> after |")
    print("|---|---|---:|---:|---:|---|")
    for label, seconds, cpu, rss, before, after in rows:
        print(
            f"| {engine} | {label} | {seconds:.1f} | {cpu:.1f} | {rss:,} "
            f"| {before:.1f} -> {after:.1f} |"
        )
    if not args.keep:
        if engine == "postgres":
            import psycopg

            with psycopg.connect(args.pg_url, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {args.pg_name} WITH (FORCE)")
        for db in cleanup:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
        shutil.rmtree(scratch / "state", ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality", help="precision@10 on the real labelled papers")
    q.add_argument("--files", default="test_dataset.jsonl,valid_dataset.jsonl")
    q.add_argument("--no-variants", dest="variants", action="store_false")
    s = sub.add_parser("scale", help="compute_related's time and memory on a big database")
    source = s.add_mutually_exclusive_group(required=True)
    source.add_argument("--copy", help="a SQLite database file to run on a copy of")
    source.add_argument("--import", dest="import_", help="an archive file to import first")
    s.add_argument("--engine", choices=("sqlite", "postgres"), default="sqlite")
    s.add_argument(
        "--pg-url", default=os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    )
    s.add_argument("--pg-name", default="h_related_bench")
    s.add_argument("--new", type=int, default=5000, help="new papers for --only-new")
    s.add_argument("--scratch", default=str(ROOT / "bench" / "out" / "related"))
    s.add_argument("--keep", action="store_true", help="keep the scratch database")
    s.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")
    os.environ.setdefault("SECRET_KEY", "bench")
    import django

    django.setup()
    quality(args) if args.what == "quality" else scale(args)


if __name__ == "__main__":
    main()
