"""Where jobs run: in this process (``local``, the default) or as cluster jobs through submitit.

``executor=submitit`` submits one job per (variant, seed) with submitit's AutoExecutor, which uses
SLURM when it is available and local subprocesses otherwise (``submitit.cluster=local``). Each job
writes its own records into the shared results folder, so the sweep resumes the same way as locally, and
takes the job's lock first (harness/locks.py), so two sweeps on one folder never train a job twice.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Dict

from harness.errors import UsageError
from harness.outcomes import Outcome, RunSummary
from harness.plan import Plan
from harness.runner import execute, settle
from harness.store import ResultsStore

EXECUTORS = ("local", "submitit")


def run_plan(plan: Plan, store: ResultsStore, executor: str = "local", progress: bool = True,
             options: Dict[str, Any] | None = None) -> RunSummary:
    """Run every job of the plan that is not stored yet; returns each job's outcome."""
    if executor == "local":
        return execute(plan, store, progress=progress)
    if executor == "submitit":
        return _run_submitit(plan, store, dict(options or {}))
    raise UsageError(f"Unknown executor '{executor}'; choose one of {', '.join(EXECUTORS)}.")


def _run_submitit(plan: Plan, store: ResultsStore, options: Dict[str, Any]) -> RunSummary:
    try:
        import submitit
    except ImportError:
        raise UsageError("executor=submitit needs the submitit package; install it with `pip install submitit`.") from None
    store.prepare(plan.suite.name)  # an unwritable results folder is refused before anything is submitted
    folder = Path(options.pop("folder", store.root / ".submitit"))
    cluster = options.pop("cluster", None)
    options.setdefault("timeout_min", 60)
    ex = submitit.AutoExecutor(folder=folder, cluster=cluster)
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
            from harness.runner import job_records, outcome_record
            from harness.env import provenance

            reason = f"cluster job {handle.job_id} failed: {str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__}"
            store.write(job.suite, job.job_hash, job.label,
                        job_records(job, [outcome_record("failed", reason)], {}, provenance(job.device), 0.0))
            outcome = Outcome(job.label, "failed", "ran", reason)
        summary.add(outcome)
    settled = {job.job_hash: job.label for job in plan.to_run}
    for job in plan.jobs:
        if id(job) not in jobs:  # stored, skipped, or another name of a submitted job: settled here, after it
            summary.add(settle(plan, job, store, since, False, wait=True, settled=settled))
    return summary
