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

    .venv/bin/python bench/load.py --faults-only          # phases 4 and 5 alone

4. forged credentials (--faults, or --faults-only): the mix, cache warm, for
   --forged-duration seconds as is, then as long again with half the clients sending
   made-up credentials on every request (a new random session cookie, or an
   `Authorization` header): they must not turn the page cache off (goal: the rate
   within 10% of the clean one). Any database.
5. faults (--faults, or --faults-only; PostgreSQL only): the mix, cache warm, plus
   searches never asked before (so some requests always need the database), while
   first the database and then Redis stop answering for --freeze seconds each. The
   database is reached through a TCP proxy this script runs, which stops passing bytes
   both ways (the sockets stay open, as with SIGSTOP on the server or a network
   partition: no other session's database is touched); Redis is a private
   redis-server on its own port, stopped with SIGSTOP. Prints a table per window
   (before, frozen, after the thaw) with errors, p99 and the longest wait, the time
   each took to recover, and whether anything was lost (requests with no answer, rows
   changed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
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


def _words(pool: dict[str, list[str]]) -> list[str]:
    """The words the pool's searches were drawn from."""
    from urllib.parse import parse_qs, urlsplit

    found = {w for url in pool["search"] for w in parse_qs(urlsplit(url).query)["q"][0].split()}
    return sorted(found)


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


async def _get(reader, writer, path: str, headers: dict[str, str] | None = None) -> int:
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n{extra}\r\n".encode()
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


async def _client(
    port: int, draw, stop: float, results: Results | None, seed: int, credentials=None
) -> None:
    rng = random.Random(seed)
    reader = writer = None
    while time.monotonic() < stop:
        kind, path = draw(rng)
        headers = credentials(rng) if credentials else None
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            started = time.perf_counter()
            status = await _get(reader, writer, path, headers)
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


def run_phase(
    port: int, draw, clients: int, seconds: float, record: bool, credentials=None
) -> Results:
    """`clients` keep-alive clients drawing from `draw` for `seconds`; with
    `credentials`, every other client sends the headers it makes on each request."""
    results = Results() if record else None

    async def main():
        stop = time.monotonic() + seconds
        await asyncio.gather(
            *(
                _client(port, draw, stop, results, n, credentials if n % 2 else None)
                for n in range(clients)
            )
        )

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


# --- phase 4: forged credentials -------------------------------------------------------

FORGED_GOAL = 0.9  # the mix with forged credentials keeps this share of the clean rate
_KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"


def forged_credentials(rng: random.Random) -> dict[str, str]:
    """Made-up credentials, new on every request: a session cookie of a real key's
    shape, one among other cookies, or an Authorization header."""
    key = "".join(rng.choices(_KEY_CHARS, k=40))
    return rng.choice(
        [
            {"Cookie": f"sessionid={key}"},
            {"Cookie": f"csrftoken={key[:32]}; sessionid={key[:32]}"},
            {"Authorization": f"Token {key}"},
            {"Authorization": f"Basic {key}"},
        ]
    )


def run_forged(args, env: dict[str, str], pool, out: Path) -> list[tuple]:
    """Phase 4: the warm mix as is, then with half the clients sending made-up
    credentials; the table rows of both."""
    port = free_port()
    with Server(env, port, out / "gunicorn-forged.log"):
        seconds = warm(port, pool, 16)
        print(f"forged-credentials phase: cache warmed in {seconds:.0f} s", flush=True)
        run_phase(port, mix_drawer(pool), args.clients, args.warmup, False)
        draw = mix_drawer(pool)
        clean = run_phase(port, draw, args.clients, args.forged_duration, True)
        forged = run_phase(
            port, draw, args.clients, args.forged_duration, True, forged_credentials
        )
    clean_rate = sum(map(len, clean.latencies.values())) / clean.elapsed
    forged_rate = sum(map(len, forged.latencies.values())) / forged.elapsed
    share = forged_rate / clean_rate
    verdict = "met" if share >= FORGED_GOAL else "NOT met"
    print(
        f"forged credentials: {share:.0%} of the clean rate (goal ≥ {FORGED_GOAL:.0%}: {verdict})",
        flush=True,
    )
    return rows_for("mix, cache warm (clean)", clean) + rows_for(
        "mix, half forged credentials", forged
    )


def print_table(table: list[tuple]) -> None:
    print(
        f"\n{'phase':<32}{'kind':<9}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}"
        f"{'errors':>8}"
    )
    for phase, kind, rate, p50, p95, p99, errors in table:
        print(f"{phase:<32}{kind:<9}{rate:>9.0f}{p50:>9.1f}{p95:>9.1f}{p99:>9.1f}{errors:>8}")


# --- phase 5: faults ---------------------------------------------------------------------

FRESH_SHARE = 10  # weight of never-asked searches in the fault phase's mix (others: MIX)
REQUEST_TIMEOUT_S = 60.0  # a client gives up on a request after this long (counted lost)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _proxy_main(port: int, target: tuple[str, int], frozen, ready) -> None:
    """A TCP proxy that passes nothing, either way, while `frozen` is set: to the site,
    a database that stopped answering (its connections stay open)."""

    async def hold() -> None:
        while frozen.is_set():
            await asyncio.sleep(0.02)

    async def pump(reader, writer) -> None:
        try:
            while data := await reader.read(65536):
                await hold()
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    async def handle(client_reader, client_writer) -> None:
        await hold()  # a new connection is accepted, then hears nothing
        try:
            server_reader, server_writer = await asyncio.open_connection(*target)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            pump(client_reader, server_writer), pump(server_reader, client_writer)
        )

    async def serve() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", port)
        ready.set()
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


class FreezableProxy:
    def __init__(self, host: str, port: int):
        context = multiprocessing.get_context("spawn")
        self.port = free_port()
        self.frozen, ready = context.Event(), context.Event()
        self.process = context.Process(
            target=_proxy_main, args=(self.port, (host, port), self.frozen, ready), daemon=True
        )
        self.process.start()
        if not ready.wait(30):
            raise SystemExit("the database proxy did not start")

    def close(self) -> None:
        self.process.terminate()
        self.process.join()


class PrivateRedis:
    """A redis-server of this run's own, on a free port: stopping it disturbs no one."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.directory = tempfile.mkdtemp(prefix="cwp-bench-redis-")
        self.process = subprocess.Popen(
            [
                *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no", "--dir", self.directory),
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("redis-server did not start")

    def close(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


@dataclass
class Sample:
    started: float  # seconds since the phase began
    seconds: float
    status: int | None  # None: no answer (connection error or REQUEST_TIMEOUT_S)
    kind: str


async def _timed_client(port, draw, stop, t0, samples: list[Sample], seed: int) -> None:
    rng = random.Random(seed)
    reader = writer = None
    while time.monotonic() < stop:
        kind, path = draw(rng)
        started = time.monotonic()
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            status = await asyncio.wait_for(_get(reader, writer, path), REQUEST_TIMEOUT_S)
        except (OSError, asyncio.IncompleteReadError, ValueError, TimeoutError):
            status = None
            if writer is not None:
                writer.close()
            writer = None
        samples.append(Sample(started - t0, time.monotonic() - started, status, kind))
        if status is None:
            await asyncio.sleep(0.05)
    if writer is not None:
        writer.close()


def fault_drawer(pool: dict[str, list[str]], words: list[str]):
    """The mix, plus searches never asked before (FRESH_SHARE): cache misses that need
    the database whatever the cache holds."""
    regular = mix_drawer(pool)

    def draw(rng: random.Random) -> tuple[str, str]:
        if rng.randrange(100 + FRESH_SHARE) < FRESH_SHARE:
            query = " ".join(rng.sample(words, 2)) + f" {rng.randrange(10**9)}"
            return "fresh", "/search?" + urlencode({"q": query})
        return regular(rng)

    return draw


def _tree_cpu(root: int) -> float:
    """User + system CPU seconds of `root` and its descendants so far (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents, cpu = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                fields = stat.rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry)] = int(fields[1])
            cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / ticks
    total = 0.0
    for pid, seconds in cpu.items():
        walk = pid
        while walk and walk != root:
            walk = parents.get(walk, 0)
        if walk == root:
            total += seconds
    return total


def run_faults(args, env: dict[str, str], pool, words: list[str], out: Path) -> None:
    """Phase 5: the database, then Redis, stop answering under the load mix."""
    from urllib.parse import urlsplit

    database = urlsplit(args.database_url)
    if database.scheme not in {"postgres", "postgresql"}:
        print("fault phase skipped: it needs PostgreSQL (its proxy stands in for the server)")
        return
    proxy = FreezableProxy(database.hostname or "127.0.0.1", database.port or 5432)
    redis_server = PrivateRedis()
    netloc = database.netloc.rsplit("@", 1)
    auth = netloc[0] + "@" if len(netloc) == 2 else ""
    proxied = database._replace(netloc=f"{auth}127.0.0.1:{proxy.port}").geturl()
    fault_env = env | {"DATABASE_URL": proxied, "CACHE_URL": redis_server.url}
    count = _paper_count(env)
    port = free_port()
    calm, frozen, after = args.calm, args.freeze, args.after
    db_at = calm
    redis_at = db_at + frozen + after
    total = redis_at + frozen + after
    samples: list[Sample] = []
    try:
        with Server(fault_env, port, out / "gunicorn-faults.log") as server:
            seconds = warm(port, pool, 16)
            print(f"fault phase: cache warmed in {seconds:.0f} s", flush=True)
            run_phase(port, mix_drawer(pool), args.clients, args.warmup, False)
            cpu_before = _tree_cpu(server.process.pid)
            usage_before = resource.getrusage(resource.RUSAGE_SELF)
            draw = fault_drawer(pool, words)

            async def main():
                t0 = time.monotonic()
                stop = t0 + total

                async def faults():
                    await asyncio.sleep(db_at)
                    proxy.frozen.set()
                    await asyncio.sleep(frozen)
                    proxy.frozen.clear()
                    await asyncio.sleep(redis_at - db_at - frozen)
                    os.kill(redis_server.process.pid, signal.SIGSTOP)
                    await asyncio.sleep(frozen)
                    os.kill(redis_server.process.pid, signal.SIGCONT)

                clients = (
                    _timed_client(port, draw, stop, t0, samples, n) for n in range(args.clients)
                )
                await asyncio.gather(faults(), *clients)

            started = time.monotonic()
            asyncio.run(main())
            wall = time.monotonic() - started
            server_cpu = _tree_cpu(server.process.pid) - cpu_before
            usage = resource.getrusage(resource.RUSAGE_SELF)
            client_cpu = (usage.ru_utime - usage_before.ru_utime) + (
                usage.ru_stime - usage_before.ru_stime
            )
    finally:
        proxy.close()
        redis_server.close()
    _fault_report(samples, db_at, redis_at, frozen, after, args)
    print(
        f"\nfault phase: {wall:.0f} s wall; CPU: gunicorn {server_cpu:.0f} s, "
        f"clients {client_cpu:.0f} s; load average {os.getloadavg()[0]:.1f} at the end"
    )
    after_count = _paper_count(env)
    same = "the same" if after_count == count else "DIFFERENT"
    print(f"papers before and after: {count:,} and {after_count:,} ({same})")


def _paper_count(env: dict[str, str]) -> int:
    from django.db import connections

    connections.close_all()
    from papers.models import Paper

    return Paper.objects.count()


def _failed(sample: Sample) -> bool:
    return sample.status is None or sample.status >= 500


def _window_row(name: str, chosen: list[Sample], seconds: float) -> tuple:
    waits = [s.seconds for s in chosen]
    errors = sum(1 for s in chosen if _failed(s))
    lost = sum(1 for s in chosen if s.status is None)
    return (
        name,
        len(chosen) / seconds if seconds else 0,
        errors,
        lost,
        percentile(waits, 0.5),
        percentile(waits, 0.99),
        max(waits, default=0) * 1000,
    )


def _recovery(samples: list[Sample], thaw: float, until: float) -> float:
    """Seconds from the thaw to the answer of the last request started after it that
    failed (0: none did)."""
    late = [
        s.started + s.seconds - thaw for s in samples if thaw <= s.started < until and _failed(s)
    ]
    return max(late, default=0.0)


def _fault_report(samples, db_at, redis_at, frozen, after, args) -> None:
    windows = [
        ("before", 0, db_at),
        ("database frozen", db_at, db_at + frozen),
        ("after the database thaws", db_at + frozen, redis_at),
        ("Redis frozen", redis_at, redis_at + frozen),
        ("after Redis thaws", redis_at + frozen, redis_at + frozen + after),
    ]
    print(
        f"\n{'window':<28}{'req/s':>8}{'errors':>8}{'lost':>6}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'max ms':>9}"
    )
    for name, start, end in windows:
        chosen = [s for s in samples if start <= s.started < end]
        row = _window_row(name, chosen, end - start)
        print(
            f"{row[0]:<28}{row[1]:>8.0f}{row[2]:>8}{row[3]:>6}{row[4]:>9.1f}{row[5]:>9.1f}{row[6]:>9.1f}"
        )
        fresh = [s for s in chosen if s.kind == "fresh"]
        if fresh:
            row = _window_row("  never-asked searches", fresh, end - start)
            print(
                f"{row[0]:<28}{row[1]:>8.0f}{row[2]:>8}{row[3]:>6}{row[4]:>9.1f}{row[5]:>9.1f}{row[6]:>9.1f}"
            )
    limit = args.statement_timeout + 1
    for name, at in (("database", db_at), ("Redis", redis_at)):
        # Every request in flight while it was frozen: those already waiting when it
        # froze, and those that came during.
        during = [s for s in samples if s.started < at + frozen and s.started + s.seconds > at]
        longest = max((s.seconds for s in during), default=0)
        recovered = _recovery(samples, at + frozen, at + frozen + after)
        print(
            f"{name} frozen {frozen:.0f} s: longest wait {longest:.1f} s (goal ≤ {limit:.0f} s); "
            f"recovered {recovered:.1f} s after the thaw (goal ≤ 5 s)"
        )
    lost = sum(1 for s in samples if s.status is None)
    print(f"requests without an answer: {lost} of {len(samples):,}")


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
    parser.add_argument("--faults", action="store_true", help="add phases 4 and 5")
    parser.add_argument("--faults-only", action="store_true", help="run phases 4 and 5 alone")
    parser.add_argument(
        "--forged-duration", type=float, default=30, help="seconds of each half of phase 4"
    )
    parser.add_argument("--freeze", type=float, default=10, help="seconds each fault lasts")
    parser.add_argument("--calm", type=float, default=10, help="seconds before the first")
    parser.add_argument("--after", type=float, default=15, help="seconds after each thaw")
    parser.add_argument(
        "--statement-timeout", type=float, default=5, help="the site's, in seconds"
    )
    args = parser.parse_args()

    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    env = base_env(args.database_url, args.cache_url, out / "static", args)
    env["DATABASE_STATEMENT_TIMEOUT_MS"] = str(int(args.statement_timeout * 1000))
    static_path = collect_static(env)
    pool = url_pool(env, args.pool, args.seed)
    print(
        f"URL pool: {', '.join(f'{k} {len(v)}' for k, v in pool.items())}; "
        f"{args.clients} clients; gunicorn {args.workers} workers x {args.threads} threads",
        flush=True,
    )
    try:
        if args.faults_only:
            print_table(run_forged(args, env, pool, out))
            run_faults(args, env, pool, _words(pool), out)
        else:
            run_phases(args, env, pool, static_path, out)
    finally:
        if env["CACHE_URL"].startswith("redis://"):
            import redis

            client = redis.Redis.from_url(env["CACHE_URL"])
            keys = list(client.scan_iter(f"{env['CACHE_KEY_PREFIX']}:*"))
            if keys:
                client.delete(*keys)


def run_phases(args, env: dict[str, str], pool, static_path: str, out: Path) -> None:
    """Phases 1-3, then with --faults 4 and 5."""
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
    if args.faults:
        table += run_forged(args, env, pool, out)
    print_table(table)
    static_rate = table[0][2]
    warm_rate = next(r[2] for r in table if r[0] == "mix, cache warm")
    cold_rate = next(r[2] for r in table if r[0].startswith("mix, no page cache"))
    print(
        f"\ncache warm: {warm_rate / static_rate:.0%} of the static-file rate; "
        f"{warm_rate / cold_rate:.1f}x the uncached rate"
    )
    if args.faults:
        run_faults(args, env, pool, _words(pool), out)


if __name__ == "__main__":
    main()
