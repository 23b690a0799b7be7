"""The cores a process may run on, and how a sweep of ``workers=N`` processes shares them (bench/run/workers.py
starts the workers; the environment and the load meter read their count here)."""

from __future__ import annotations

import os

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
