"""Benchmark: import_archive at full archive scale, against the naive path, per engine.

    python bench/import.py                          # 576k papers, both engines
    python bench/import.py --papers 50000 --engines sqlite
    python bench/import.py --files all --steps import   # all six files: memory and time

Generates the synthetic archive with bench/make_archive.py if it is not there,
then for each engine, on an empty database: the full import of papers + links
(search index included), a re-import of the same unchanged files, and the naive
per-object ORM path (bench/naive_import.py) on a subset, extrapolated to the full
size. Prints one table: seconds, records/s and peak RSS of each. Talks only to the
local PostgreSQL (PG_URL, default postgres://postgres@127.0.0.1:5432/postgres).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import astuple
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from measure import run  # bench/ is the script's folder, so it is on sys.path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def database_env(engine: str, scratch: Path, pg_url: str) -> dict[str, str]:
    env = dict(os.environ, SECRET_KEY="bench", DEBUG="false")
    if engine == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{scratch}/bench.sqlite3{suffix}").unlink(missing_ok=True)
        env["DATABASE_URL"] = f"sqlite:///{scratch}/bench.sqlite3"
    else:
        import psycopg

        admin = psycopg.connect(pg_url, autocommit=True)
        admin.execute("DROP DATABASE IF EXISTS cwp_bench WITH (FORCE)")
        admin.execute("CREATE DATABASE cwp_bench")
        admin.close()
        parts = urlsplit(pg_url)
        env["DATABASE_URL"] = urlunsplit(parts._replace(path="/cwp_bench"))
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=576_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--archive", type=Path, help="default: bench/data/<papers>")
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--naive", type=int, default=20_000, help="papers in the naive run")
    parser.add_argument(
        "--files",
        default="papers,links",
        help="papers,links (the default) or all: every file the archive holds",
    )
    parser.add_argument("--steps", default="import,again,naive", help="any of import,again,naive")
    parser.add_argument(
        "--pg-url", default=os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    )
    args = parser.parse_args()

    archive = args.archive or ROOT / "bench" / "data" / str(args.papers)
    papers = archive / "papers-with-abstracts.json.gz"
    links = archive / "links-between-papers-and-code.json.gz"
    every = args.files == "all"
    if not (papers.exists() and links.exists()) or (every and len(_files(archive)) < 6):
        print(f"generating the synthetic archive in {archive} …", flush=True)
        only = [] if every else ["--only", "papers,links"]
        subprocess.run(
            [PYTHON, "bench/make_archive.py", "--papers", str(args.papers), "--seed",
             str(args.seed), "--out", str(archive), *only],
            cwd=ROOT, check=True,
        )  # fmt: skip
    files = _files(archive) if every else [papers, links]
    steps = set(args.steps.split(","))
    scratch = ROOT / "bench" / "out"
    scratch.mkdir(parents=True, exist_ok=True)

    rows = []

    def report(row, measured=None):  # print each result as it lands: a long run keeps them
        rows.append(row)
        engine, path, records, seconds, rss = row
        extra = ""
        if measured is not None:
            extra = (
                f" (largest process; all processes together {measured.tree_rss_mb:,} MB PSS), "
                f"CPU {measured.cpu:.1f} s, load {os.getloadavg()[0]:.1f}"
            )
        print(
            f"{engine}: {path}: {records:,} records, {seconds:.1f} s, "
            f"{records / seconds:,.0f} records/s, peak RSS {rss:,} MB{extra}",
            flush=True,
        )

    for engine in args.engines.split(","):
        env = database_env(engine, scratch, args.pg_url)
        command = [PYTHON, "manage.py", "import_archive", *map(str, files), "-v", "1"]
        print(f"{engine}: load average before: {os.getloadavg()}", flush=True)
        what = "all six files" if every else "import_archive"
        measured = run(command, env, ok=(0, 1))
        records = _records(measured.output)
        row = (engine, f"{what}, empty database", records, measured.seconds)
        report((*row, measured.rss_mb), measured)
        if "again" in steps:
            measured = run(command, env, ok=(0, 1))
            row = (engine, f"{what} again, unchanged", _records(measured.output))
            report((*row, measured.seconds, measured.rss_mb), measured)
        if "naive" not in steps:
            continue

        env = database_env(engine, scratch, args.pg_url)
        naive = [
            PYTHON,
            "bench/naive_import.py",
            str(papers),
            str(links),
            "--limit",
            str(args.naive),
        ]
        seconds, _, rss, output, _ = astuple(run(naive, env, ok=(0, 1)))
        subset = args.naive + int(output.split(" papers ")[1].split(" links")[0])
        full = seconds * records / subset
        report((engine, f"naive save() on {subset:,}, extrapolated", records, full, rss))
        first, naive_full = rows[-3][3], rows[-1][3]
        print(
            f"{engine}: import_archive is {naive_full / first:.1f}x faster than the naive path",
            flush=True,
        )

    print()
    header = ("engine", "path", "records", "seconds", "records/s", "peak RSS MB")
    print("{:<9} {:<44} {:>10} {:>9} {:>10} {:>12}".format(*header))
    for engine, path, records, seconds, rss in rows:
        rate = records / seconds
        print(f"{engine:<9} {path:<44} {records:>10,} {seconds:>9.1f} {rate:>10,.0f} {rss:>12,}")


def _files(archive: Path) -> list[Path]:
    """The archive's files, one per kind (a file split in parts is named by its first)."""
    return sorted(p for p in archive.iterdir() if p.name.endswith((".json.gz", ".json")))


def _records(output: str) -> int:
    for line in output.splitlines():
        if " records from " in line:
            return int(line.split(" records")[0].replace(",", "").split()[-1])
    raise SystemExit(f"no summary in the import's output:\n{output[-2000:]}")


if __name__ == "__main__":
    main()
