"""Where jobs run: in this process (``local``, the default) or as cluster jobs through submitit.

``executor=submitit`` submits one job per (variant, seed) with submitit's AutoExecutor, which uses
SLURM when it is available and local subprocesses otherwise (``submitit.cluster=local``). Each job
writes its own records into the shared results folder, so the sweep resumes the same way as locally, and
takes the job's lock first (harness/locks.py), so two sweeps on one folder never train a job twice.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

from bench.run.outcomes import Outcome, RunSummary
from bench.run.plan import Plan
from bench.run.runner import execute, settle
from harness.errors import UsageError
from harness.store import ResultsStore

EXECUTORS = ("local", "submitit")


def run_plan(
    plan: Plan,
    store: ResultsStore,
    executor: str = "local",
    progress: bool = True,
    options: dict[str, Any] | None = None,
) -> RunSummary:
    """Run every job of the plan that is not stored yet; returns each job's outcome."""
    if executor == "local":
        return execute(plan, store, progress=progress)
    if executor == "submitit":
        return _run_submitit(plan, store, dict(options or {}))
    raise UsageError(f"Unknown executor '{executor}'; choose one of {', '.join(EXECUTORS)}.")


def submitit_folder(options: dict[str, Any], results_dir: Path) -> Path:
    """Where submitit keeps its pickles and logs: ``submitit.folder``, else ``<results_dir>/.submitit``."""
    return Path(str(options["folder"])).expanduser() if "folder" in options else Path(results_dir) / ".submitit"


def check_submitit(options: dict[str, Any], results_dir: Path) -> None:
    """Before any compute: the submitit package, its cluster and its folder, each one sentence when unusable.

    The folder holds the pickled jobs a cluster node unpickles and runs, so it is created private to the user
    (mode 0700), and one that others can write into is refused: whoever could replace a pickle there would run
    code as the user.
    """
    from bench.config import writable_folder

    try:
        import submitit  # noqa: F401
        from submitit.core.plugins import get_executors
    except ImportError:
        raise UsageError(
            "executor=submitit needs the submitit package; install it with `pip install submitit`."
        ) from None
    cluster = options.get("cluster")
    known = sorted(get_executors())
    if cluster is not None and str(cluster) not in known:
        raise UsageError(
            f"Unknown submitit.cluster={cluster}; choose one of {', '.join(known)} (or leave it out: "
            f"slurm where it is available, else local)."
        )
    folder = submitit_folder(options, results_dir)
    problem = writable_folder("submitit.folder", str(folder))
    if problem:
        raise UsageError(problem)
    if folder.exists():
        info = folder.stat()
        if info.st_uid != os.getuid():
            raise UsageError(
                f"submitit.folder={folder} belongs to another user (uid {info.st_uid}), and it holds the "
                f"pickled jobs that run as you; give a folder of your own."
            )
        if info.st_mode & 0o022:
            raise UsageError(
                f"submitit.folder={folder} can be written by other users (mode {oct(info.st_mode & 0o777)}), "
                f"and it holds the pickled jobs that run as you; make it private (chmod 700 {folder}) or "
                f"give another submitit.folder."
            )


def _run_submitit(plan: Plan, store: ResultsStore, options: dict[str, Any]) -> RunSummary:
    try:
        import submitit
    except ImportError:
        raise UsageError(
            "executor=submitit needs the submitit package; install it with `pip install submitit`."
        ) from None
    check_submitit(options, store.root)
    store.prepare(plan.suite.name)  # an unwritable results folder is refused before anything is submitted
    folder = submitit_folder(options, store.root)
    options.pop("folder", None)
    cluster = options.pop("cluster", None)
    options.setdefault("timeout_min", 60)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(folder, stat.S_IRWXU)  # private even where the umask would leave it group-writable
    except OSError as exc:
        raise UsageError(
            f"submitit.folder={folder} cannot be created ({exc.strerror or exc}); give a folder you can write."
        ) from None
    try:
        ex = submitit.AutoExecutor(folder=folder, cluster=cluster)
    except (ValueError, OSError) as exc:
        raise UsageError(
            f"submitit could not start an executor ({exc}); check submitit.cluster and submitit.folder."
        ) from None
    try:
        ex.update_parameters(name=f"bench-{plan.suite.name}", **options)
    except Exception as exc:  # submitit names the parameter it does not know
        raise UsageError(f"Bad submitit option: {exc}") from None
    since = time.time()
    jobs = {id(job): (job, ex.submit(settle, plan, job, store, since, False, True)) for job in plan.to_run}
    print(f"Submitted {len(jobs)} jobs through submitit ({ex.cluster}); logs in {folder}/", flush=True)
    summary = RunSummary()
    for job, handle in jobs.values():
        try:
            outcome = handle.result()
        except Exception as exc:  # the cluster job itself died: record it like any failure
            from bench.run.runner import job_records, outcome_record, save
            from harness.env import provenance

            reason = f"cluster job {handle.job_id} failed: {str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__}"
            save(store, job, job_records(job, [outcome_record("failed", reason)], {}, provenance(job.device), 0.0))
            outcome = Outcome(job.label, "failed", "ran", reason)
        summary.add(outcome)
    settled = {job.job_hash: job.label for job in plan.to_run}
    for job in plan.jobs:
        if id(job) not in jobs:  # stored, skipped, or another name of a submitted job: settled here, after it
            summary.add(settle(plan, job, store, since, False, wait=True, settled=settled))
    return summary
