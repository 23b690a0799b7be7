"""Run one sweep in several local processes (``workers=N``), each taking the next job no other one holds.

Small models use two cores better as two one-thread trainings than as one two-thread training: a
parallel region of a small matmul waits on its slowest thread. Each worker is ``bench run`` again on the
same arguments, so the plan, the checks and the store are the ones of a single run; the job locks
(harness/locks.py) hand every job to exactly one worker, and a worker that meets a job another one holds
leaves it for the end of its sweep. Every worker gets ``cores // N`` intra-op threads (at least 1), and its
records carry ``workers`` so a report can say how the run was spread. A worker dies with the sweep's process
(Linux: PR_SET_PDEATHSIG), and a worker killed by a signal fails the sweep (``sweep_status``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from harness.cores import WORKERS_ENV, available_cores, threads_per_worker


def worker_args(args: list[str]) -> list[str]:
    """A worker's ``bench run`` arguments: the sweep's, with ``workers=1`` and progress bars off."""
    kept = [a for a in args if not a.startswith(("workers=", "progress="))]
    return kept + ["workers=1", "progress=false"]


def entry_point(argv0: str) -> list[str]:
    """How to start this program again: the same script (``bench``, or one that registers a plugin suite), or
    the CLI module when it was started with ``python -m bench`` or ``python -m bench.cli``."""
    module = (os.path.join("bench", "cli.py"), os.path.join("bench", "__main__.py"))
    if not argv0 or argv0.endswith(module) or argv0 == "-c":
        return ["-m", "bench.cli"]
    return [argv0]


def sweep_status(codes: list[int]) -> tuple[int, str]:
    """(the sweep's exit status, a sentence) from its workers' exit codes.

    A worker killed by a signal (a negative code from ``Popen.wait``) or exiting with any status but 0 or 3
    fails the sweep (status 1, or the worker's own positive status); 3 (some jobs cannot run here) comes next.
    """
    killed = [(i, -c) for i, c in enumerate(codes, 1) if c < 0]
    failed = [(i, c) for i, c in enumerate(codes, 1) if c > 0 and c != 3]
    if killed:
        names = ", ".join(f"worker {i} by {_signal_name(sig)}" for i, sig in killed)
        return 1, (
            f"A worker was killed ({names}): its job in flight was not stored, and a rerun trains it again; "
            f"exit status 1."
        )
    if failed:
        status = failed[0][1]
        return status, (
            f"{len(codes)} workers finished; worker {failed[0][0]} exited with status {status}, so "
            f"the sweep exits {status}."
        )
    status = 3 if 3 in codes else 0
    return status, f"All {len(codes)} workers finished (exit status {status})."


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def _death_signal():
    """A function that, run in a worker before it starts (``preexec_fn``), asks Linux to send it SIGTERM when
    the sweep's process dies (``kill -9`` included), so no worker trains on alone; None off Linux. libc is
    looked up here, in the parent: the forked child only makes the one call."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    PR_SET_PDEATHSIG = 1
    return lambda: prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))


def run_workers(args: list[str], workers: int) -> tuple[int, str]:
    """Start ``workers`` processes on the sweep ``args`` and wait for all; (the sweep's status, a sentence),
    as ``sweep_status`` ranks them."""
    threads = threads_per_worker(workers, available_cores())
    env = {**os.environ, WORKERS_ENV: str(workers), "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    command = [sys.executable, *entry_point(sys.argv[0]), "run", *worker_args(args)]
    print(f"Running the sweep in {workers} worker processes of {threads} thread(s) each.", flush=True)
    on_start = _death_signal()
    procs = [subprocess.Popen(command, env=env, preexec_fn=on_start) for _ in range(workers)]
    try:
        codes = [p.wait() for p in procs]
    except KeyboardInterrupt:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
        raise
    return sweep_status(codes)
