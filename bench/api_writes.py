"""Benchmark: the write API's latency, against a naive baseline in the same run.

    python bench/api.py --writes                                   # both engines
    python bench/api_writes.py --engines sqlite --sqlite-url sqlite:////tmp/copy.sqlite3

WRITES to the databases it is given: run it on copies (`cp full.sqlite3 copy.sqlite3`,
`createdb -T cwp_full cwp_api_full`), migrated with this code. For each engine, in a
process of its own, through Django's test client with a staff token (the whole request:
middleware, authentication, validation, transaction, revision, refresh):

- evaluation_result_add to the biggest board, then its ranking refreshed (the kept
  ranking and chart of every metric): --adds requests, p50/p95 wall and CPU ms. Naive
  baseline: the row saved through the ORM, then the board ranked the obvious way
  (every row loaded as an object with its paper, `ranked_rows` per metric).
- evaluation_synchronize of a new 1,000-row board (two metrics), then the same call
  again (nothing changes). Naive baseline: the same 1,000 rows saved one by one.

Goals: a result add p95 < 300 ms; a 1,000-row synchronize < 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from measure import percentiles, run  # bench/ is the script's folder, so it is on sys.path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
DEFAULTS = {
    "sqlite": "sqlite:////work/bench-data/api-full.sqlite3",
    "postgres": "postgres://postgres@127.0.0.1:5432/cwp_api_full",
}
GOALS = {"add": 300.0, "sync": 5000.0}


def _timed(call) -> tuple[float, float]:
    """(wall ms, CPU ms of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def engine_main(adds: int, seed: int) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codewithpapers.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.db.models import Count
    from django.test import Client

    from papers.contributions.tokens import issue
    from papers.models import Dataset, Leaderboard, LeaderboardRow, ranked_rows

    rng = random.Random(seed)
    user, _ = get_user_model().objects.get_or_create(
        username="bench-writer", defaults={"is_staff": True}
    )
    _, key = issue(user, "staff", "bench")
    client = Client(SERVER_NAME="127.0.0.1", headers={"Authorization": f"Token {key}"})
    board = (
        Leaderboard.objects.annotate(n=Count("rows"))
        .select_related("task", "dataset")
        .order_by("-n")
        .first()
    )
    metrics = list(board.metrics.all())
    first = metrics[0].name
    url = f"/api/v1/evaluations/{board.task.slug}--{board.dataset.slug}/results/"

    def add() -> None:
        body = {"metrics": {first: f"{rng.uniform(0, 100):.2f}"}, "methodology": "bench"}
        response = client.post(url, json.dumps(body), content_type="application/json")
        assert response.status_code == 201, response.content

    def naive_add() -> None:
        LeaderboardRow.objects.create(
            leaderboard=board, row_key=f"naive-{rng.random()}", model_name="naive",
            metrics={first: f"{rng.uniform(0, 100):.2f}"},
        )  # fmt: skip
        rows = list(board.rows.select_related("paper"))
        for metric in metrics:
            ranked_rows([metric], rows)

    add()  # warm: the first request loads what every later one finds loaded
    ours = [_timed(add) for _ in range(adds)]
    naive_add()
    theirs = [_timed(naive_add) for _ in range(max(5, adds // 3))]
    rows = board.rows.count()

    dataset = Dataset.objects.create(slug=f"bench-sync-{seed}-{time.time_ns()}", name="sync")
    results = [
        {"metrics": {"Accuracy": f"{rng.uniform(0, 100):.2f}", "Params": rng.randint(1, 900)},
         "methodology": f"model {i}", "paper": None, "evaluated_on": "2024-01-01",
         "external_id": f"run-{i}"}
        for i in range(1000)
    ]  # fmt: skip
    sync_body = json.dumps(
        {"task": board.task.slug, "dataset": dataset.slug, "description": "bench",
         "metrics": [{"name": "Accuracy", "is_loss": False}, {"name": "Params"}],
         "results": results}
    )  # fmt: skip

    def sync() -> None:
        response = client.post(
            "/api/v1/rpc/evaluation-synchronize/", sync_body, content_type="application/json"
        )
        assert response.status_code == 200, response.content[:500]

    sync_first = _timed(sync)
    sync_again = _timed(sync)
    naive_board = Leaderboard.objects.create(
        task=board.task, dataset=Dataset.objects.create(slug=dataset.slug + "-naive", name="n")
    )

    def naive_sync() -> None:
        for i, item in enumerate(results):
            LeaderboardRow.objects.create(
                leaderboard=naive_board, row_key=f"n{i}", model_name=item["methodology"],
                metrics=item["metrics"], paper_date=item["evaluated_on"],
            )  # fmt: skip

    naive_sync_time = _timed(naive_sync)
    out = {
        "vendor": connection.vendor,
        "board_rows": rows,
        "board_metrics": len(metrics),
        "add": {"n": adds, "wall": percentiles([w for w, _ in ours]),
                "cpu": percentiles([c for _, c in ours])},
        "naive_add": {"n": len(theirs), "wall": percentiles([w for w, _ in theirs]),
                      "cpu": percentiles([c for _, c in theirs])},
        "sync": sync_first, "sync_again": sync_again, "naive_sync": naive_sync_time,
    }  # fmt: skip
    print("RESULT " + json.dumps(out), flush=True)


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="sqlite,postgres")
    parser.add_argument("--sqlite-url", default=DEFAULTS["sqlite"])
    parser.add_argument("--pg-url", default=DEFAULTS["postgres"])
    parser.add_argument("--adds", type=int, default=60, help="result adds timed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.engine_child:
        engine_main(args.adds, args.seed)
        return
    lines = []
    for engine in args.engines.split(","):
        url = args.sqlite_url if engine == "sqlite" else args.pg_url
        env = dict(
            os.environ, SECRET_KEY="bench", DEBUG="false", DATABASE_URL=url,
            CACHE_URL="dummy://", SECURE_SSL_REDIRECT="false", API_WRITES_PER_MINUTE="0",
        )  # fmt: skip
        before = load()
        print(f"{engine}: {args.adds} result adds, load {before} …", flush=True)
        output = run(
            [PYTHON, __file__, "--engine-child", engine, "--adds", str(args.adds),
             "--seed", str(args.seed)], env,
        ).output  # fmt: skip
        line = next((x for x in output.splitlines() if x.startswith("RESULT ")), None)
        if line is None:
            raise SystemExit(output[-3000:])
        r = json.loads(line.removeprefix("RESULT "))
        loads = f"{before} → {load()}"
        add, naive = r["add"], r["naive_add"]
        lines.append(
            f"| {engine} | result add + re-rank, board of {r['board_rows']:,} rows, "
            f"{r['board_metrics']} metrics | {add['n']} | {add['wall'][0]:.0f} | "
            f"{add['wall'][1]:.0f} | {add['cpu'][1]:.0f} | < {GOALS['add']:.0f} | "
            f"{naive['wall'][0]:.0f} / {naive['wall'][1]:.0f} | {loads} |"
        )
        lines.append(
            f"| {engine} | evaluation_synchronize, new 1,000-row board | 1 | "
            f"{r['sync'][0]:.0f} | — | {r['sync'][1]:.0f} | < {GOALS['sync']:.0f} | "
            f"{r['naive_sync'][0]:.0f} | {loads} |"
        )
        lines.append(
            f"| {engine} | evaluation_synchronize again, unchanged | 1 | "
            f"{r['sync_again'][0]:.0f} | — | {r['sync_again'][1]:.0f} | < {GOALS['sync']:.0f} "
            f"| — | {loads} |"
        )
        print(lines[-3], lines[-2], lines[-1], sep="\n", flush=True)
    print()
    print(
        "| engine | write | n | p50 ms | p95 ms | CPU p95 ms | goal | naive p50 / p95 ms "
        "| load before → after |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
