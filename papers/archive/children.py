"""Child processes an import forks beside its writer (the parser of
papers.archive.read.pipeline, the link counter of papers.archive.engines.postgresql.
link_counts): what each of them does first."""

from __future__ import annotations

import os
import signal


def die_with(parent: int) -> None:
    """Have the kernel kill this child when the writer dies (Linux). A child outliving a
    writer killed with SIGKILL would keep the writer's inherited database socket open,
    and with it the killed transaction and its locks, until the child ended."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere send() notices the orphaning (a parent pid that changed)
    if os.getppid() != parent:  # the writer died before prctl
        os._exit(0)
