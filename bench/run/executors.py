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
from typing import Any

from bench.run.checks import EXECUTORS, check_submitit, submitit_folder
from bench.run.outcomes import Outcome, RunSummary
from bench.run.plan import Plan
from bench.run.runner import execute, settle
from harness.errors import UsageError
from harness.store import ResultsStore


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
