"""Benchmark: API and JSON export latency, and export_archive, at full archive scale.

    python bench/api.py                                  # both engines, the shared databases
    python bench/api.py --engines sqlite --requests 100
    python bench/api.py --no-export                      # latencies only
    python bench/api.py --writes [options of bench/api_writes.py]   # the write API

For each engine, in one process per engine (read-only: nothing is written to the
databases): p50/p95 wall time and CPU time (this process's, plus the PostgreSQL backend's)
through Django's test client (the whole request: middleware, view, JSON) of
- API lists: /api/v1/papers/?q=learning, /api/v1/papers/, /api/v1/papers/<id>/repositories/,
  /api/v1/repositories/, /api/v1/authors/, /api/v1/tasks/, /api/v1/evaluations/,
  /api/v1/evaluations/<id>/results/;
- details: /api/v1/papers/<id>/ and /paper/<slug>.json;
- MCP tool calls: a JSON-RPC tools/call POSTed to /mcp for each of the six tools, as an
  agent's streamable HTTP client sends it (the SDK's transport included);
each on --requests different papers or boards (lists without an id repeat), against a
naive baseline in the same run that answers the same question the obvious way, called
directly: an icontains search, objects serialised one by one with their related rows
fetched per object, a board ranked in Python with each row's paper fetched per row. Both
are run once untimed first, so both are timed on warm pages. Then `export_archive --kind
papers` of every paper (.jsonl and .json.gz), as a subprocess: wall time, CPU time and
peak RSS.

Goals: p95 < 50 ms for API lists, < 30 ms for details, < 100 ms for MCP tool calls; the
export of all papers under 2 minutes with RSS under 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

from measure import (
    percentiles,
    run,
    timed,
    timed_cpu,
)  # bench/ is the script's folder, so it is on sys.path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
DEFAULTS = {
    "sqlite": "sqlite:////work/bench-data/full.sqlite3",
    "postgres": "postgres://postgres@127.0.0.1:5432/cwp_full",
}
GOALS = {"list": 50.0, "detail": 30.0, "tool": 100.0}


# --- inside one engine's process ------------------------------------------------------------


def _naive_paper(paper) -> dict:
    """A paper serialised on its own: its authors fetched for it, one author at a time."""
    return {
        "id": paper.slug,
        "arxiv_id": paper.arxiv_id,
        "nips_id": paper.nips_id or None,
        "url_abs": paper.url_abs,
        "url_pdf": paper.url_pdf,
        "title": paper.title,
        "abstract": paper.abstract,
        "authors": [a.author.name for a in paper.authorships.order_by("position")],
        "published": paper.published.isoformat() if paper.published else None,
        "conference": paper.conference or None,
        "proceeding": paper.proceeding or None,
    }


def naive_search(q: str) -> bytes:
    from django.db.models import Q

    from papers.models import Paper

    matches = Paper.objects.filter(hidden=False).filter(
        Q(title__icontains=q) | Q(abstract__icontains=q)
    )
    count = matches.count()
    rows = [_naive_paper(p) for p in matches.order_by("-published", "-id")[:50]]
    return json.dumps({"count": count, "results": rows}).encode()


def naive_detail(slug: str) -> bytes:
    from papers.models import Paper

    return json.dumps(_naive_paper(Paper.objects.get(slug=slug))).encode()


def naive_repositories(slug: str) -> bytes:
    from papers.models import CodeLink, Paper

    paper = Paper.objects.get(slug=slug)
    rows = []
    for link in paper.code_links.all():
        repository = link.repository
        first = CodeLink.objects.filter(repository=repository).exclude(framework="").first()
        rows.append(
            {
                "url": repository.url,
                "owner": repository.owner,
                "name": repository.name,
                "framework": first.framework if first else "",
                "is_official": link.is_official,
            }
        )
    return json.dumps({"count": len(rows), "results": rows}).encode()


def naive_record(slug: str) -> bytes:
    """The record exporter without its prefetching: every relation read per object."""
    from papers.archive.export.records import export_record
    from papers.models import Paper

    return json.dumps(export_record(Paper.objects.get(slug=slug))).encode()


def naive_board(board) -> list[dict]:
    """A leaderboard ranked the obvious way: every row, its paper fetched per row."""
    metrics = list(board.metrics.order_by("position"))
    rows = list(board.rows.all())
    first = metrics[0].name if metrics else None
    lower = metrics[0].is_lower_better if metrics else False

    def key(row):
        value = row.metric_values.get(first) if first else None
        return (value is None, (value if lower else -value) if value is not None else 0)

    return [
        {
            "id": row.row_key,
            "metrics": row.metrics,
            "paper": row.paper.slug if row.paper_id else None,
            "rank": rank,
        }
        for rank, row in enumerate(sorted(rows, key=key), 1)
    ]


def naive_leaderboard(board_id: int) -> bytes:
    from papers.models import Leaderboard

    return json.dumps(naive_board(Leaderboard.objects.get(pk=board_id))[:20]).encode()


def naive_sota(task_id: int) -> bytes:
    from papers.models import Leaderboard

    best = [
        (naive_board(board) or [None])[0] for board in Leaderboard.objects.filter(task_id=task_id)
    ]
    return json.dumps(best).encode()


def naive_tasks(_) -> bytes:
    """Tasks by name, each counting its leaderboards with a query of its own."""
    from papers.models import Task

    rows = [
        {"id": t.slug, "name": t.name, "leaderboards": t.leaderboards.count()}
        for t in Task.objects.filter(hidden=False).order_by("name")[:50]
    ]
    return json.dumps(rows).encode()


def naive_samples(slug: str) -> bytes:
    from papers.archive.export.records import export_sample
    from papers.models import Paper

    paper = Paper.objects.get(slug=slug)
    rows = [export_sample(s) for s in paper.samples.all()[:20]]
    statuses: dict[str, int] = {}
    for sample in paper.samples.all():
        statuses[sample.status] = statuses.get(sample.status, 0) + 1
    return json.dumps({"summary": statuses, "samples": rows}).encode()


def engine_main(requests: int, seed: int) -> None:
    """Runs in a child process with DATABASE_URL set; prints one JSON line of results."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")
    sys.path.insert(0, str(ROOT))
    django.setup()
    from codewithpapers.startup import load_site

    load_site()  # as a gunicorn worker starts (codewithpapers/wsgi.py)
    from django.db import connection
    from django.test import Client

    from papers.models import CodeLink, Leaderboard, Paper, Sample

    rng = random.Random(seed)
    top = Paper.objects.order_by("-id").values_list("id", flat=True).first()
    ids = rng.sample(range(1, top + 1), min(top, requests * 3))
    slugs = list(
        Paper.objects.filter(id__in=ids, hidden=False).values_list("slug", flat=True)[:requests]
    )
    link_ids = rng.sample(range(1, CodeLink.objects.order_by("-id").first().id + 1), requests * 3)
    with_code = list(
        CodeLink.objects.filter(id__in=link_ids, paper__hidden=False).values_list(
            "paper__slug", flat=True
        )[:requests]
    )
    board_ids = list(Leaderboard.objects.values_list("id", flat=True))
    boards = list(
        Leaderboard.objects.filter(id__in=rng.sample(board_ids, min(len(board_ids), requests)))
        .select_related("task", "dataset")
        .order_by("id")
    )
    sample_top = Sample.objects.order_by("-id").values_list("id", flat=True).first() or 0
    reported = list(
        Sample.objects.filter(
            id__in=rng.sample(range(1, sample_top + 1), min(sample_top, requests * 3))
        )
        .values_list("paper__slug", flat=True)
        .distinct()[:requests]
    )
    client = Client(SERVER_NAME="127.0.0.1")

    def backend() -> int | None:
        """The PostgreSQL backend serving this process's connection (its CPU is the
        request's too); None on SQLite, whose work is this process's own."""
        if connection.vendor != "postgresql":
            return None
        connection.ensure_connection()
        return connection.connection.info.backend_pid

    def get(url: str) -> bytes:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return response.content

    def tool(name: str, arguments: dict) -> bytes:
        """One tools/call to /mcp, as an agent's streamable HTTP client posts it."""
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        response = client.post(
            "/mcp",
            json.dumps(body),
            content_type="application/json",
            headers={
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18",
            },
        )
        assert response.status_code == 200, (name, response.status_code, response.content)
        answer = json.loads(response.content)
        assert "result" in answer and not answer["result"].get("isError"), (name, answer)
        return response.content

    def board_args(board) -> dict:
        return {"task": board.task.slug, "dataset": board.dataset.slug}

    same = [None] * requests
    cases = [
        # (kind, name, ours, naive or None, arguments)
        (
            "list",
            "/api/v1/papers/?q=learning",
            lambda _: get("/api/v1/papers/?q=learning"),
            lambda _: naive_search("learning"),
            same,
        ),
        ("list", "/api/v1/papers/", lambda _: get("/api/v1/papers/"), None, same),
        (
            "list",
            "/api/v1/papers/<id>/repositories/",
            lambda s: get(f"/api/v1/papers/{s}/repositories/"),
            naive_repositories,
            with_code,
        ),
        ("list", "/api/v1/repositories/", lambda _: get("/api/v1/repositories/"), None, same),
        ("list", "/api/v1/authors/", lambda _: get("/api/v1/authors/"), None, same),
        ("list", "/api/v1/tasks/", lambda _: get("/api/v1/tasks/"), naive_tasks, same),
        ("list", "/api/v1/evaluations/", lambda _: get("/api/v1/evaluations/"), None, same),
        (
            "list",
            "/api/v1/evaluations/<id>/results/",
            lambda b: get(f"/api/v1/evaluations/{b.task.slug}--{b.dataset.slug}/results/"),
            lambda b: naive_leaderboard(b.id),
            boards,
        ),
        (
            "detail",
            "/api/v1/papers/<id>/",
            lambda s: get(f"/api/v1/papers/{s}/"),
            naive_detail,
            slugs,
        ),
        ("detail", "/paper/<slug>.json", lambda s: get(f"/paper/{s}.json"), naive_record, slugs),
        (
            "tool",
            "search_papers q=learning",
            lambda _: tool("search_papers", {"q": "learning"}),
            lambda _: naive_search("learning"),
            same,
        ),
        (
            "tool",
            "get_paper",
            lambda s: tool("get_paper", {"paper_id": s}),
            naive_record,
            slugs,
        ),
        (
            "tool",
            "get_leaderboard",
            lambda b: tool("get_leaderboard", board_args(b)),
            lambda b: naive_leaderboard(b.id),
            boards,
        ),
        (
            "tool",
            "find_sota",
            lambda b: tool("find_sota", {"task": b.task.slug}),
            lambda b: naive_sota(b.task_id),
            boards,
        ),
        ("tool", "list_tasks", lambda _: tool("list_tasks", {}), naive_tasks, same),
        (
            "tool",
            "get_execution_report",
            lambda s: tool("get_execution_report", {"paper_id": s}),
            naive_samples,
            reported,
        ),
    ]
    results = []
    for kind, name, fast, naive, arguments in cases:
        # The naive search scans every abstract: a tenth of the requests is enough to time it.
        naive_requests = (
            arguments[: max(20, len(arguments) // 10)] if "learning" in name else arguments
        )
        # Both read the same rows: an untimed pass of each first, so neither is timed on
        # cold pages that the other then finds warm. (A repeated request's first run warms it.)
        per_object = arguments[0] is not None
        timed(fast, arguments if per_object else arguments[:1])
        if naive:
            timed(naive, naive_requests if per_object else naive_requests[:1])
        ours = timed_cpu(fast, arguments, backend)
        row = {
            "kind": kind,
            "name": name,
            "n": len(arguments),
            "p50": percentiles(ours.wall)[0],
            "p95": percentiles(ours.wall)[1],
            "cpu_p50": percentiles(ours.cpu)[0],
            "cpu_p95": percentiles(ours.cpu)[1],
            "naive_n": 0,
        }
        if naive:
            theirs = timed_cpu(naive, naive_requests, backend)
            row.update(
                naive_n=len(naive_requests),
                naive_p50=percentiles(theirs.wall)[0],
                naive_p95=percentiles(theirs.wall)[1],
            )
        results.append(row)
    print("RESULT " + json.dumps({"vendor": connection.vendor, "cases": results}), flush=True)


# --- the driver ---------------------------------------------------------------------------------


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    if "--writes" in sys.argv:  # the write API: bench/api_writes.py (it writes: use copies)
        import api_writes

        api_writes.main([a for a in sys.argv[1:] if a != "--writes"])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--sqlite-url", default=DEFAULTS["sqlite"])
    parser.add_argument("--pg-url", default=DEFAULTS["postgres"])
    parser.add_argument("--requests", type=int, default=200, help="requests per endpoint")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-export", action="store_true")
    parser.add_argument(
        "--export-to", type=Path, default=ROOT / "bench" / "data", help="a scratch folder"
    )
    parser.add_argument("--engine-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.engine_child:
        engine_main(args.requests, args.seed)
        return

    rows, exports = [], []
    for engine in args.engines.split(","):
        url = args.sqlite_url if engine == "sqlite" else args.pg_url
        env = dict(
            os.environ,
            SECRET_KEY="bench",
            DEBUG="false",
            DATABASE_URL=url,
            # The views themselves are measured: no page cache, no HTTPS redirect (the
            # test client speaks plain HTTP), no rate limit (every request is one client).
            CACHE_URL="dummy://",
            SECURE_SSL_REDIRECT="false",
            RATELIMIT_ENABLE="false",
        )
        print(f"{engine}: {args.requests} requests per endpoint, load {load()} …", flush=True)
        output = run(
            [PYTHON, __file__, "--engine-child", engine, "--requests", str(args.requests)], env
        ).output
        print(f"{engine}: done, load {load()}", flush=True)
        line = next(x for x in output.splitlines() if x.startswith("RESULT "))
        for case in json.loads(line.removeprefix("RESULT "))["cases"]:
            rows.append((engine, case))
            print(_row(engine, case), flush=True)
        if not args.no_export:
            args.export_to.mkdir(parents=True, exist_ok=True)
            for name in ("papers.jsonl", "papers.json.gz"):
                out = args.export_to / f"export-{engine}-{name}"
                before = load()
                export = run(
                    [PYTHON, "manage.py", "export_archive", "--kind", "papers", "-o", str(out)],
                    env,
                )
                seconds, cpu, rss = export.seconds, export.cpu, export.rss_mb
                size = out.stat().st_size
                out.unlink()
                exports.append((engine, name, seconds, cpu, rss, size, f"{before} → {load()}"))
                print(f"{engine}: export {name}: {seconds:.1f} s, {cpu:.1f} s CPU, {rss} MB")

    print()
    print(
        "| engine | request | n | p50 ms | p95 ms | CPU p50 / p95 ms | goal p95 "
        "| naive n | naive p50 | naive p95 |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for engine, case in rows:
        print(_row(engine, case))
    if exports:
        print()
        print(
            "| engine | export_archive --kind papers -o | wall s | CPU s | peak RSS MB | bytes "
            "| load before → after |"
        )
        print("|---|---|---:|---:|---:|---:|---|")
        for engine, name, seconds, cpu, rss, size, loads in exports:
            print(
                f"| {engine} | {name} | {seconds:.1f} | {cpu:.1f} | {rss} | {size:,} | {loads} |"
            )


def _row(engine: str, case: dict) -> str:
    goal = GOALS[case["kind"]]
    naive = (
        f"{case['naive_n']} | {case['naive_p50']:.1f} | {case['naive_p95']:.1f}"
        if case["naive_n"]
        else "— | — | —"
    )
    return (
        f"| {engine} | `{case['name']}` | {case['n']} | {case['p50']:.1f} | {case['p95']:.1f} "
        f"| {case['cpu_p50']:.1f} / {case['cpu_p95']:.1f} | < {goal:.0f} | {naive} |"
    )


if __name__ == "__main__":
    main()
