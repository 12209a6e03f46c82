"""Load benchmark: gunicorn (gunicorn.conf.py, production settings) on 127.0.0.1 against
the full synthetic archive, driven by 64 concurrent keep-alive clients.

    .venv/bin/python bench/load.py                        # PostgreSQL cwp_full, Redis cache
    .venv/bin/python bench/load.py --database-url sqlite:////work/bench-data/full.sqlite3

Phases, in one run (the numbers are comparable because the machine is the same):
1. static: every client fetches one whitenoise-served static file (hashed, gzip): the
   upper bound of what this server does per second;
2. the mix, cache warm: a bounded set of URLs (home, search with real words drawn from
   titles, paper pages, sample filters, the API when the site has one), each fetched
   once to fill the cache, then --warmup seconds of the mix unrecorded, then --duration
   seconds recorded;
3. the same mix with the page cache off (CACHE_URL=dummy://): the naive baseline.

Prints one table (requests/s, p50/p95/p99 in ms, errors) with a row per phase and per
kind of page. The database is only read (nothing an anonymous GET does writes to it).
Rate limits are off for the run: every client shares 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent

SECRET = "load-benchmark-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz"
MIX = {"home": 10, "search": 30, "paper": 40, "samples": 15, "api": 5}


@dataclass
class Results:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    elapsed: float = 0.0


def base_env(database_url: str, cache_url: str, static_root: Path, args) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE", "CACHE"))}
    return keep | {
        "DJANGO_SETTINGS_MODULE": "codewithpapers.settings",
        "PYTHONPATH": str(ROOT),
        "DEBUG": "false",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": database_url,
        "CACHE_URL": cache_url,
        "CACHE_KEY_PREFIX": f"cwp-bench-{uuid.uuid4().hex[:8]}",
        "CACHE_TTL": "3600",
        "STATIC_ROOT": str(static_root),
        "RATELIMIT_ENABLE": "false",
        "WEB_CONCURRENCY": str(args.workers),
        "GUNICORN_THREADS": str(args.threads),
        "GUNICORN_MAX_REQUESTS": "0",
        "LOG_LEVEL": "WARNING",
    }


def url_pool(env: dict[str, str], size: int, seed: int) -> dict[str, list[str]]:
    """The bounded set of URLs the clients draw from, read from the database."""
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.urls import get_resolver

    from papers.models import Paper, Sample

    rng = random.Random(seed)
    top = Paper.objects.visible().order_by("-id").values_list("id", flat=True).first() or 0
    ids = rng.sample(range(1, top + 1), min(top, size * 4))
    rows = list(Paper.objects.visible().filter(id__in=ids).values_list("slug", "title")[:size])
    words = sorted({w.lower() for _, title in rows for w in re.findall(r"[A-Za-z]{4,}", title)})
    statuses = list(Sample.objects.values_list("status", flat=True).distinct()[:20])
    languages = list(Sample.objects.values_list("language", flat=True).distinct()[:10])
    searches = []
    for _ in range(size // 4):
        query = " ".join(rng.sample(words, rng.choice([1, 1, 2, 3])))
        params = {"q": query}
        if rng.random() < 0.2:
            params["has_code"] = "1"
        searches.append("/search?" + urlencode(params))
    samples = ["/samples"]
    for status in statuses:
        samples.append("/samples?" + urlencode({"status": status}))
        for language in languages[:3]:
            samples.append("/samples?" + urlencode({"status": status, "language": language}))
    pool = {
        "home": ["/"],
        "search": searches,
        "paper": [f"/paper/{slug}" for slug, _ in rows],
        "samples": samples,
    }
    routes = {str(p.pattern) for p in get_resolver().url_patterns}
    if any(route.startswith("api/") for route in routes):
        pool["api"] = [f"/api/v1/papers/{slug}/" for slug, _ in rows[: size // 4]] + [
            "/api/v1/papers/?" + urlencode({"q": w}) for w in words[: size // 8]
        ]
    return pool


def collect_static(env: dict[str, str]) -> str:
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    manifest = json.loads((Path(env["STATIC_ROOT"]) / "staticfiles.json").read_text())
    return "/static/" + manifest["paths"]["js/htmx-2.0.11.min.js"]


class Server:
    def __init__(self, env: dict[str, str], port: int, log: Path):
        self.env = env | {"BIND": f"127.0.0.1:{port}"}
        self.port = port
        self.log = log

    def __enter__(self) -> Server:
        self.out = self.log.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "codewithpapers.wsgi"],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.out,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.3)
        raise SystemExit(f"gunicorn did not start; see {self.log}")

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.out.close()


async def _get(reader, writer, path: str) -> int:
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n".encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:] if h)}
    if "content-length" in headers:
        await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    if headers.get("connection", "").lower() == "close":
        raise ConnectionResetError("server closed the connection")
    return status


async def _client(port: int, draw, stop: float, results: Results | None, seed: int) -> None:
    rng = random.Random(seed)
    reader = writer = None
    while time.monotonic() < stop:
        kind, path = draw(rng)
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            started = time.perf_counter()
            status = await _get(reader, writer, path)
            took = time.perf_counter() - started
        except (OSError, asyncio.IncompleteReadError, ValueError):
            if results is not None:
                results.errors[kind] += 1
            if writer is not None:
                writer.close()
            writer = None
            continue
        if results is not None:
            results.latencies[kind].append(took)
            if status >= 400:
                results.errors[kind] += 1
    if writer is not None:
        writer.close()


def run_phase(port: int, draw, clients: int, seconds: float, record: bool) -> Results:
    results = Results() if record else None

    async def main():
        stop = time.monotonic() + seconds
        await asyncio.gather(*(_client(port, draw, stop, results, n) for n in range(clients)))

    started = time.monotonic()
    asyncio.run(main())
    if results is not None:
        results.elapsed = time.monotonic() - started
    return results


def warm(port: int, pool: dict[str, list[str]], clients: int) -> float:
    """Fetch every URL of the pool once, `clients` at a time; the seconds it took."""
    queue = [path for paths in pool.values() for path in paths]

    async def worker():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while queue:
            path = queue.pop()
            try:
                await _get(reader, writer, path)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.close()

    async def main():
        await asyncio.gather(*(worker() for _ in range(clients)))

    started = time.monotonic()
    asyncio.run(main())
    return time.monotonic() - started


def mix_drawer(pool: dict[str, list[str]]):
    kinds = [k for k in MIX if pool.get(k)]
    weights = [MIX[k] for k in kinds]

    def draw(rng: random.Random) -> tuple[str, str]:
        kind = rng.choices(kinds, weights)[0]
        return kind, rng.choice(pool[kind])

    return draw


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def rows_for(name: str, results: Results) -> list[tuple]:
    rows = []
    everything = [v for vs in results.latencies.values() for v in vs]
    total_errors = sum(results.errors.values())
    rows.append((name, "all", len(everything) / results.elapsed, everything, total_errors))
    if len(results.latencies) > 1:
        for kind, values in sorted(results.latencies.items()):
            rows.append(("", kind, len(values) / results.elapsed, values, results.errors[kind]))
    return [
        (phase, kind, rate, percentile(v, 0.5), percentile(v, 0.95), percentile(v, 0.99), errors)
        for phase, kind, rate, v, errors in rows
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/cwp_full")
    parser.add_argument("--cache-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=10, help="unrecorded seconds of mix")
    parser.add_argument("--static-duration", type=float, default=20)
    parser.add_argument("--baseline-duration", type=float, default=30)
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--pool", type=int, default=2000, help="paper pages in the URL pool")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    env = base_env(args.database_url, args.cache_url, out / "static", args)
    static_path = collect_static(env)
    pool = url_pool(env, args.pool, args.seed)
    print(
        f"URL pool: {', '.join(f'{k} {len(v)}' for k, v in pool.items())}; "
        f"{args.clients} clients; gunicorn {args.workers} workers x {args.threads} threads",
        flush=True,
    )
    table = []
    port = 18000 + os.getpid() % 1000
    with Server(env, port, out / "gunicorn-cached.log"):
        static = run_phase(
            port, lambda rng: ("static", static_path), args.clients, args.static_duration, True
        )
        table += rows_for("static file (whitenoise)", static)
        seconds = warm(port, pool, 16)
        print(f"cache warmed: every URL of the pool fetched once in {seconds:.0f} s", flush=True)
        run_phase(port, mix_drawer(pool), args.clients, args.warmup, False)
        warm_results = run_phase(port, mix_drawer(pool), args.clients, args.duration, True)
        table += rows_for("mix, cache warm", warm_results)
    with Server(env | {"CACHE_URL": "dummy://"}, port + 1, out / "gunicorn-uncached.log"):
        cold = run_phase(port + 1, mix_drawer(pool), args.clients, args.baseline_duration, True)
        table += rows_for("mix, no page cache (baseline)", cold)

    print(
        f"\n{'phase':<32}{'kind':<9}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"
        f"{'errors':>8}"
    )
    for phase, kind, rate, p50, p95, p99, errors in table:
        print(f"{phase:<32}{kind:<9}{rate:>9.0f}{p50:>9.1f}{p95:>9.1f}{p99:>9.1f}{errors:>8}")
    static_rate = table[0][2]
    warm_rate = next(r[2] for r in table if r[0] == "mix, cache warm")
    cold_rate = next(r[2] for r in table if r[0].startswith("mix, no page cache"))
    print(
        f"\ncache warm: {warm_rate / static_rate:.0%} of the static-file rate; "
        f"{warm_rate / cold_rate:.1f}x the uncached rate"
    )
    if env["CACHE_URL"].startswith("redis://"):
        import redis

        client = redis.Redis.from_url(env["CACHE_URL"])
        keys = list(client.scan_iter(f"{env['CACHE_KEY_PREFIX']}:*"))
        if keys:
            client.delete(*keys)


if __name__ == "__main__":
    main()
