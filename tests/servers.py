"""Real processes for the production tests: gunicorn as `make serve` runs it, a private
PostgreSQL cluster that a test may stop and start, and management commands.

Each runs with the production settings (DEBUG=false, not under pytest), so what these
tests see is what an operator's server does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Variables of the developer's shell that would change what a test server does.
KNOBS = {
    "DATABASE_URL",
    "DATABASE_REPLICA_URLS",
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "CACHE_URL",
    "SITE_URL",
    "DJANGO_SETTINGS_MODULE",
    # Set by pytest-playwright for the browser tests; check --deploy rejects it.
    "DJANGO_ALLOW_ASYNC_UNSAFE",
}
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "production-test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "SECURE_SSL_REDIRECT": "false",
    "LOG_LEVEL": "WARNING",
    # A process that a test gives no database of its own must not make db.sqlite3 in
    # the checkout (the developer's database).
    "DATABASE_URL": "sqlite:///:memory:",
    # Nor the checkout's .env, a developer's (make run writes it).
    "DOTENV": "",
}
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def require(condition: bool, reason: str) -> None:
    """Skip with a reason on a developer's machine, fail in CI (CI=true)."""
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


def production_env(**overrides: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in KNOBS}
    return base | PRODUCTION | {"PYTHONPATH": str(ROOT)} | overrides


def manage(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: str
    seconds: float


def fetch(url: str, *, headers: dict[str, str] | None = None, timeout: float = 10) -> Response:
    request = urllib.request.Request(url, headers=headers or {})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status, head, body = answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        status, head, body = error.code, dict(error.headers), error.read()
    return Response(status, head, body.decode("utf-8", "replace"), time.perf_counter() - started)


@contextlib.contextmanager
def gunicorn(env: dict[str, str], log: Path) -> Iterator[str]:
    """gunicorn -c gunicorn.conf.py on a free port; yields its base URL."""
    port = free_port()
    env = {"WEB_CONCURRENCY": "1", "GUNICORN_THREADS": "4"} | env | {"BIND": f"127.0.0.1:{port}"}
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "codewithpapers.wsgi"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                with (
                    contextlib.suppress(OSError),
                    socket.create_connection(("127.0.0.1", port), timeout=1),
                ):
                    break
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"gunicorn did not start:\n{log.read_text()}")
                time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class PrivateCluster:
    """A throw-away PostgreSQL cluster under a temporary directory, on its own port, owned
    by this test: stopping it disturbs nobody else's database."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.data = directory / "data"
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        command = [str(a) for a in args]
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        self._run(PG_BIN / "initdb", "-D", self.data, "-A", "trust", "-U", "postgres")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            PG_BIN / "pg_ctl",
            "-D",
            self.data,
            "-o",
            options,
            "-l",
            self.directory / "log",
            "-w",
            "start",
        )

    def replicate(self, primary: PrivateCluster) -> None:
        """Make this cluster a streaming replica of `primary` (pg_basebackup -R): started,
        it follows the primary's WAL and answers reads."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        self._run(
            PG_BIN / "pg_basebackup",
            *("-h", "127.0.0.1", "-p", primary.port, "-U", "postgres"),
            *("-D", self.data, "-R", "-X", "stream"),
        )

    def stop(self) -> None:
        self._run(PG_BIN / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


def _pg_server_installed() -> None:
    require((PG_BIN / "initdb").exists(), "PostgreSQL's server binaries are not installed")


@pytest.fixture
def private_cluster():
    """A running throw-away PostgreSQL cluster."""
    _pg_server_installed()
    cluster = PrivateCluster(Path(f"/tmp/cwp-test-pg-{uuid.uuid4().hex[:8]}"))
    cluster.init()
    cluster.start()
    yield cluster
    cluster.destroy()


@pytest.fixture
def private_replica(private_cluster):
    """A streaming replica of private_cluster, running on its own port."""
    replica = PrivateCluster(Path(f"/tmp/cwp-test-pg-{uuid.uuid4().hex[:8]}"))
    replica.replicate(private_cluster)
    replica.start()
    yield replica
    replica.destroy()


class PrivateRedis:
    """A throw-away redis-server on its own port, owned by the test: freezing it (SIGSTOP)
    disturbs nobody else's cache."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.directory)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock,
            ):
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def freeze(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None:
            self.thaw()
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def private_redis(tmp_path):
    require(shutil.which("redis-server") is not None, "redis-server is not installed")
    server = PrivateRedis(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def collected_static(tmp_path_factory) -> Path:
    """collectstatic once (hashed, compressed) for every production server of the run."""
    root = tmp_path_factory.mktemp("static")
    result = manage(
        "collectstatic",
        "--no-input",
        "-v",
        "0",
        env=production_env(STATIC_ROOT=str(root), DATABASE_URL="sqlite:///:memory:"),
    )
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """An empty, migrated SQLite database file; tests copy it before writing."""
    path = tmp_path_factory.mktemp("sqlite") / "empty.sqlite3"
    result = manage(
        "migrate", "--no-input", "-v", "0", env=production_env(DATABASE_URL=f"sqlite:///{path}")
    )
    assert result.returncode == 0, result.stderr
    return path


@pytest.fixture(scope="session")
def small_archive(tmp_path_factory) -> list[Path]:
    """A synthetic archive of 1,500 papers, every kind of file, seed-shaped records
    first (so later files update papers that earlier ones created)."""
    out = tmp_path_factory.mktemp("archive")
    subprocess.run(
        [
            sys.executable,
            "bench/make_archive.py",
            "--papers",
            "1500",
            "--seed",
            "7",
            "--out",
            str(out),
            "--format",
            "json.gz",
            "--jobs",
            "1",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    order = [
        "records",
        "papers-with-abstracts",
        "links-between-papers-and-code",
        "evaluation-tables",
        "methods",
        "datasets",
    ]
    return [out / f"{name}.json.gz" for name in order]


def in_thread(function, *args):
    """function(*args) in a thread of its own: the browser tests' sync API leaves an event
    loop running in the main thread, and the SDK's client (asyncio.run) and the /mcp view
    (async_to_sync) each need a thread without one, as every WSGI worker thread is."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function, *args).result()
