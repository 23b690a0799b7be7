"""Where jobs run: in this process (``local``, the default) or as cluster jobs through submitit.

``executor=submitit`` submits one job per (variant, seed) with submitit's AutoExecutor, which uses
SLURM when it is available and local subprocesses otherwise (``submitit.cluster=local``). Each job
writes its own records into the shared results folder, so the sweep resumes the same way as locally.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

from harness.errors import UsageError
from harness.plan import Plan
from harness.runner import execute, record_skips, run_job
from harness.store import ResultsStore

EXECUTORS = ("local", "submitit")


def run_plan(plan: Plan, store: ResultsStore, executor: str = "local", progress: bool = True,
             options: Dict[str, Any] | None = None) -> Dict[str, int]:
    """Run every job of the plan that is not stored yet; returns a count per status."""
    if executor == "local":
        return execute(plan, store, progress=progress)
    if executor == "submitit":
        return _run_submitit(plan, store, dict(options or {}))
    raise UsageError(f"Unknown executor '{executor}'; choose one of {', '.join(EXECUTORS)}.")


def _run_submitit(plan: Plan, store: ResultsStore, options: Dict[str, Any]) -> Dict[str, int]:
    try:
        import submitit
    except ImportError:
        raise UsageError("executor=submitit needs the submitit package; install it with `pip install submitit`.") from None
    folder = Path(options.pop("folder", store.root / ".submitit"))
    cluster = options.pop("cluster", None)
    options.setdefault("timeout_min", 60)
    ex = submitit.AutoExecutor(folder=folder, cluster=cluster)
    try:
        ex.update_parameters(name=f"bench-{plan.suite.name}", **options)
    except Exception as exc:  # submitit names the parameter it does not know
        raise UsageError(f"Bad submitit option: {exc}") from None
    record_skips(plan, store)
    jobs = [(job, ex.submit(run_job, plan, job, store, False)) for job in plan.to_run]
    print(f"Submitted {len(jobs)} jobs through submitit ({ex.cluster}); logs in {folder}/", flush=True)
    counts: Dict[str, int] = {}
    for job, handle in jobs:
        try:
            status = handle.result()
        except Exception as exc:  # the cluster job itself died: record it like any failure
            from harness.runner import job_records, outcome_record
            from harness.env import provenance

            reason = f"cluster job {handle.job_id} failed: {str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__}"
            store.write(job.suite, job.job_hash, job.label,
                        job_records(job, [outcome_record("failed", reason)], {}, provenance(job.device), 0.0))
            status = "failed"
        counts[status] = counts.get(status, 0) + 1
    return counts
