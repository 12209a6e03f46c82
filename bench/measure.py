"""What the benchmarks share: running a command and reading what it cost."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    seconds: float  # wall time
    cpu: float  # user + system seconds: on a shared machine it moves far less than wall time
    rss_mb: int  # peak resident set of the command (and of its children)
    output: str


def run(command: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> Run:
    """Run a command from the project root; stop the benchmark if it exits outside `ok`."""
    started = time.monotonic()
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise SystemExit(f"{' '.join(command)} failed ({code}):\n{output[-3000:]}")
    return Run(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, output)
