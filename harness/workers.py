"""Run one sweep in several local processes (``workers=N``), each taking the next job no other one holds.

Small models use two cores better as two one-thread trainings than as one two-thread training: a
parallel region of a small matmul waits on its slowest thread. Each worker is ``bench run`` again on the
same arguments, so the plan, the checks and the store are the ones of a single run; the job locks
(harness/locks.py) hand every job to exactly one worker, and a worker that meets a job another one holds
leaves it for the end of its sweep. Every worker gets ``cores // N`` intra-op threads (at least 1), and its
records carry ``workers`` so a report can say how the run was spread.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import List

#: set in a worker's environment: the number of workers of its sweep
WORKERS_ENV = "BENCH_WORKERS"


def available_cores() -> int:
    """CPU cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def threads_per_worker(workers: int, cores: int) -> int:
    """Intra-op threads each of ``workers`` processes gets on ``cores`` cores: an equal share, at least 1."""
    return max(1, cores // workers)


def worker_count() -> int:
    """How many workers the sweep of this process has (1 outside ``workers=N``)."""
    try:
        return max(1, int(os.environ.get(WORKERS_ENV, "1")))
    except ValueError:
        return 1


def worker_args(args: List[str]) -> List[str]:
    """A worker's ``bench run`` arguments: the sweep's, with ``workers=1`` and progress bars off."""
    kept = [a for a in args if not a.startswith(("workers=", "progress="))]
    return kept + ["workers=1", "progress=false"]


def entry_point(argv0: str) -> List[str]:
    """How to start this program again: the same script (``bench``, or one that registers a plugin suite), or
    the CLI module when it was started with ``python -m harness.cli``."""
    if not argv0 or argv0.endswith(os.path.join("harness", "cli.py")) or argv0 == "-c":
        return ["-m", "harness.cli"]
    return [argv0]


def run_workers(args: List[str], workers: int) -> int:
    """Start ``workers`` processes on the sweep ``args`` and wait for all; the worst exit status wins."""
    threads = threads_per_worker(workers, available_cores())
    env = {**os.environ, WORKERS_ENV: str(workers), "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    command = [sys.executable, *entry_point(sys.argv[0]), "run", *worker_args(args)]
    print(f"Running the sweep in {workers} worker processes of {threads} thread(s) each.", flush=True)
    procs = [subprocess.Popen(command, env=env) for _ in range(workers)]
    try:
        codes = [p.wait() for p in procs]
    except KeyboardInterrupt:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
        raise
    return max(codes)
