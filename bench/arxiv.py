"""Benchmark: arXiv back-fill (the metadata snapshot through import_archive) and the
harvester's own cost per record, against a naive per-record ORM path in the same run.

    python bench/arxiv.py                       # 200k snapshot records, 20k harvested
    python bench/arxiv.py --records 50000 --harvest 5000 --naive 3000

1. Generates a snapshot file in arXiv's shape (JSON Lines, the 14 keys) from the real
   lines in ../shared/realdata/arxiv: new ids, titles and authors varied, one in five
   naming a GitHub repository in its comments.
2. Back-fills it into an empty, migrated SQLite database (`import_archive`), then again
   (unchanged: every record matched).
3. The naive path on the first --naive records: per record, update_or_create the paper by
   arXiv id, get_or_create each author and repository, one row at a time.
4. Harvests --harvest new records into the back-filled database from a local OAI-PMH
   server (a second process serving arXivRaw pages of 1,000 records) with the polite
   delay at 0: the harvester's own cost is its wall time less the time it waited for
   the server, and its CPU time, per record.

Each line gives wall and CPU seconds and the load average over the step (2 cores shared
with other sessions: CPU is the steadier figure). Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from measure import run  # noqa: E402

PYTHON = sys.executable
REALDATA = ROOT.parent / "shared" / "realdata" / "arxiv"
if not REALDATA.exists():
    REALDATA = Path("/work/shared/realdata/arxiv")
SNAPSHOT = "kaggle_arxiv-metadata-oai-snapshot_lines-1-150__wanng-ide-arxivSpider_mnbvc.jsonl"
RAW = "oai_ListRecords_arXivRaw_with-resumptionToken__mikesaelim-arXivOAIHarvester.xml"
OAI_PAGE = 1000

FIRST = ["Ana", "Bo", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kai",
         "Lea", "Mo", "Nia", "Oto", "Pia", "Quin", "Rui", "Sol", "Tao"]  # fmt: skip
LAST = [f"Surname{i}" for i in range(4000)]


def new_id(i: int) -> str:
    return f"{2500 + i // 99_999 % 100:04d}.{i % 99_999 + 1:05d}"


def snapshot_line(template: dict, i: int) -> dict:
    record = dict(template)
    record["id"] = new_id(i)
    record["title"] = f"{template['title']} ({i})"
    authors = [[LAST[(i * 7 + k * 13) % len(LAST)], FIRST[(i + k) % len(FIRST)], ""]
               for k in range(1 + i % 5)]  # fmt: skip
    record["authors_parsed"] = authors
    record["authors"] = ", ".join(f"{f} {last}" for last, f, _ in authors)
    if i % 5 == 0:
        record["comments"] = (
            f"{template.get('comments') or ''} Code: https://github.com/lab{i % 3000}/repo{i}."
        )
    record["categories"] = ["cs.LG cs.AI", "cs.CV", "stat.ML cs.LG", "cs.CL"][i % 4]
    return record


def generate_snapshot(path: Path, count: int) -> None:
    templates = [json.loads(line) for line in (REALDATA / SNAPSHOT).open(encoding="utf-8")]
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            out.write(json.dumps(snapshot_line(templates[i % len(templates)], i)) + "\n")


def oai_pages(count: int, offset: int) -> dict[str, bytes]:
    """`count` arXivRaw records (ids from `offset`) in pages of OAI_PAGE, keyed by token."""
    text = (REALDATA / RAW).read_text(encoding="utf-8")
    head, rest = text.split("<ListRecords>\n", 1)
    records = re.findall(r"<record>.*?</record>\n", rest, flags=re.S)
    pages, body, number = {}, [], 0
    for i in range(count):
        aid = new_id(offset + i)
        template = records[i % len(records)]
        record = re.sub(r"<id>[^<]*</id>", f"<id>{aid}</id>", template)
        record = record.replace("</title>", f" ({offset + i})</title>", 1)
        if i % 5 == 0:
            record = record.replace("</comments>", f" https://github.com/h{i}/r{i}</comments>")
        body.append(record)
        if len(body) == OAI_PAGE or i == count - 1:
            token = f"p{number + 1}" if i < count - 1 else ""
            key = f"p{number}" if number else "first"
            pages[key] = (f"{head}<ListRecords>\n{''.join(body)}<resumptionToken "
                          f'completeListSize="{count}">{token}</resumptionToken>\n'
                          "</ListRecords>\n</OAI-PMH>\n").encode()  # fmt: skip
            body, number = [], number + 1
    return pages


def serve(count: int, offset: int, port_file: Path) -> None:
    """The local OAI-PMH server (run as its own process)."""
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from urllib.parse import parse_qs, urlsplit

    pages = oai_pages(count, offset)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            query = parse_qs(urlsplit(self.path).query)
            body = pages[query.get("resumptionToken", ["first"])[0]]
            self.send_response(200)
            self.send_header("Content-Type", "text/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = HTTPServer(("127.0.0.1", 0), Handler)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


def naive(path: Path, limit: int) -> None:
    """The naive path (run as its own process, in the benchmark's database)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import transaction

    from papers.arxiv.snapshot import parse_snapshot
    from papers.models import Author, CodeLink, Paper, PaperAuthor, Repository

    started = time.monotonic()
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number >= limit:
                break
            record = parse_snapshot(json.loads(line))
            fields = dict(record.paper.fields)
            with transaction.atomic():
                paper, _ = Paper.objects.update_or_create(
                    arxiv_id=fields.pop("arxiv_id"), defaults={"slug": record.paper.slug, **fields}
                )
                PaperAuthor.objects.filter(paper=paper).delete()
                for position, name in enumerate(record.paper.authors):
                    author, _ = Author.objects.get_or_create(
                        slug=Author.slug_for(name), defaults={"name": name}
                    )
                    PaperAuthor.objects.create(paper=paper, author=author, position=position)
                for link in record.links:
                    repo, _ = Repository.objects.get_or_create(url=link.repo.url)
                    CodeLink.objects.get_or_create(
                        paper=paper, repository=repo, defaults={"mentioned_in_paper": True}
                    )
    elapsed = time.monotonic() - started
    print(f"naive: {min(limit, number + 1)} records in {elapsed:.1f} s")


def database_env(scratch: Path) -> dict[str, str]:
    env = dict(os.environ, SECRET_KEY="bench", DEBUG="false", ARXIV_POLITE_DELAY_MS="0")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{scratch}/arxiv.sqlite3{suffix}").unlink(missing_ok=True)
    env["DATABASE_URL"] = f"sqlite:///{scratch}/arxiv.sqlite3"
    subprocess.run([PYTHON, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT,
                   env=env, check=True)  # fmt: skip
    return env


def step(label: str, records: int, command: list[str], env: dict, goal: str = "") -> object:
    load = os.getloadavg()[0]
    result = run(command, env, ok=(0, 1))
    load = (load + os.getloadavg()[0]) / 2
    rate = records / result.seconds if result.seconds else 0
    cpu_rate = records / result.cpu if result.cpu else 0
    print(f"| {label} | {records:,} | {result.seconds:.1f} | {result.cpu:.1f} | {rate:,.0f} | "
          f"{cpu_rate:,.0f} | {load:.1f} | {goal} |", flush=True)  # fmt: skip
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--harvest", type=int, default=20_000)
    parser.add_argument("--naive", type=int, default=5_000)
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--naive-run", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(int(args.serve[0]), int(args.serve[1]), Path(args.serve[2]))
    if args.naive_run:
        return naive(Path(args.naive_run[0]), int(args.naive_run[1]))

    scratch = ROOT / "bench" / "out"
    scratch.mkdir(parents=True, exist_ok=True)
    snapshot = scratch / f"arxiv-metadata-oai-snapshot-{args.records}.json"
    if not snapshot.exists():
        print(f"generating {snapshot} …", flush=True)
        generate_snapshot(snapshot, args.records)
    print(f"snapshot: {snapshot.stat().st_size / 2**20:,.0f} MB; cores: {os.cpu_count()}")
    print("| step | records | wall s | CPU s | records/s (wall) | records/s (CPU) | load | goal |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")

    env = database_env(scratch)
    manage = [PYTHON, "manage.py"]
    step("back-fill (import_archive, empty database)", args.records,
         [*manage, "import_archive", str(snapshot)], env, "≥ 3,000/s")  # fmt: skip
    step("back-fill again (unchanged)", args.records,
         [*manage, "import_archive", str(snapshot)], env)  # fmt: skip

    naive_dir = scratch / "naive"
    naive_dir.mkdir(exist_ok=True)
    naive_env = database_env(naive_dir)
    naive_run = [PYTHON, "bench/arxiv.py", "--naive-run", str(snapshot), str(args.naive)]
    step("naive: ORM per record (empty database)", args.naive, naive_run, naive_env)

    port_file = scratch / "oai.port"
    port_file.unlink(missing_ok=True)
    server = subprocess.Popen(
        [
            PYTHON,
            "bench/arxiv.py",
            "--serve",
            str(args.harvest),
            str(args.records),
            str(port_file),
        ],
        cwd=ROOT,
    )
    try:
        while not port_file.exists():
            time.sleep(0.1)
        time.sleep(0.2)
        url = f"http://127.0.0.1:{port_file.read_text()}/oai"
        result = step("harvest (OAI-PMH, into the back-filled database)", args.harvest,
                      [*manage, "harvest_arxiv", "--set", "cs", "--base-url", url,
                       "--from", "2026-01-01"], env)  # fmt: skip
    finally:
        server.terminate()
        server.wait()
    waited = float(re.search(r"([\d.]+) s waiting for arXiv", result.output).group(1))
    own = (result.seconds - waited) / args.harvest * 1000
    cpu = result.cpu / args.harvest * 1000
    print(f"\nharvester's own cost: {own:.2f} ms a record (wall less {waited:.1f} s waiting "
          f"for the server), {cpu:.2f} ms CPU a record (goal < 1 ms)")  # fmt: skip


if __name__ == "__main__":
    main()
