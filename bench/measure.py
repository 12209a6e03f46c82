"""What the benchmarks share: running a command and reading what it cost."""

from __future__ import annotations

import os
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    seconds: float  # wall time
    cpu: float  # user + system seconds: on a shared machine it moves far less than wall time
    rss_mb: int  # peak resident set of the largest process of the command's tree
    output: str
    # Peak of the tree's summed proportional set sizes (PSS), sampled every 0.2 s: a
    # forked child shares its parent's pages, which RSS would count in both.
    tree_rss_mb: int = 0


def _tree_rss_kb(root: int) -> int:
    """Summed PSS of `root` and its descendants (Linux /proc)."""
    parents, rss = {}, {}  # rss: the pids seen
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        parents[int(entry)] = int(fields.get("PPid", "0"))
        rss[int(entry)] = 0
    total = 0
    for pid in rss:
        walk = pid
        while walk and walk != root:
            walk = parents.get(walk, 0)
        if walk == root:
            total += _pss_kb(pid)
    return total


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(command: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> Run:
    """Run a command from the project root; stop the benchmark if it exits outside `ok`."""
    started = time.monotonic()
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], _tree_rss_kb(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    if os.path.isdir("/proc"):
        sampler.start()
    output = process.stdout.read()
    done.set()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise SystemExit(f"{' '.join(command)} failed ({code}):\n{output[-3000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(elapsed, cpu, usage.ru_maxrss // 1024, output, peak[0] // 1024)


def timed(call, arguments: list) -> list[float]:
    """Milliseconds of call(argument) for each argument, in order."""
    times = []
    for argument in arguments:
        started = time.perf_counter()
        call(argument)
        times.append((time.perf_counter() - started) * 1000)
    return times


def process_cpu_ms(pid: int) -> float | None:
    """CPU time (user + system) another process has used, in ms, from Linux /proc:
    schedstat's nanoseconds where the kernel keeps them, else stat's clock ticks
    (10 ms steps). None where neither can be read."""
    try:
        with open(f"/proc/{pid}/schedstat") as fh:
            return int(fh.read().split()[0]) / 1e6
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class Timings:
    wall: list[float]  # ms per call
    cpu: list[float]  # this process's CPU ms per call, plus the other process's if given
    other_cpu: list[float]  # the other process's share (e.g. a database backend), ms


def timed_cpu(call, arguments: list, other_pid=None) -> Timings:
    """Like timed(), with each call's CPU time: this process's (time.process_time, so
    SQLite's work in it counts) and, given `other_pid` (a function returning a process
    id, or None), that process's too: the PostgreSQL backend serving this process's
    connection. On a shared machine wall time moves with the load; CPU time much less."""
    out = Timings([], [], [])
    for argument in arguments:
        pid = other_pid() if other_pid else None
        other = process_cpu_ms(pid) if pid else None
        cpu = time.process_time()
        started = time.perf_counter()
        call(argument)
        out.wall.append((time.perf_counter() - started) * 1000)
        own = (time.process_time() - cpu) * 1000
        spent = 0.0
        if other is not None and (after := process_cpu_ms(pid)) is not None:
            spent = after - other
        out.other_cpu.append(spent)
        out.cpu.append(own + spent)
    return out


def percentiles(times: list[float]) -> tuple[float, float]:
    """p50 and p95."""
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    return cuts[49], cuts[94]
