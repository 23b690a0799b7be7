"""Runs a Plan: each job seeded, measured, and stored atomically with its provenance.

A job that diverges, runs out of memory, is unsupported or raises is recorded with that status and
its reason, and the sweep goes on. Jobs already stored are not rerun, so an interrupted sweep resumes.
"""

from __future__ import annotations

import datetime as dt
import random
import time
import traceback
from typing import Any, Dict, List

import torch
from tqdm.auto import tqdm

from harness.context import JobContext
from harness.env import prepare_device, provenance
from harness.plan import DTYPES, Job, Plan
from harness.store import ResultsStore
from suites._suite import Diverged, Measurement, Unsupported


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def job_records(job: Job, measurements: List[Measurement], facts: Dict[str, Any], env: Dict[str, Any],
                wall_time_s: float) -> List[Dict[str, Any]]:
    """Measurements of one job turned into self-describing records."""
    stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    records = []
    for m in measurements:
        records.append({
            "suite": job.suite, "suite_version": _suite_version(job), "task": job.suite,
            "variant": job.variant, "spec": job.spec.to_dict(), "spec_hash": job.spec.content_hash(),
            "job_hash": job.job_hash, "profile": job.profile.name, "profile_settings": job.profile.settings(),
            "seed": job.seed, "metric": m.metric, "value": m.value, "unit": _unit(job, m.metric),
            "higher_is_better": _higher(job, m.metric), "x": m.x, "x_name": m.x_name,
            "status": m.status, "reason": m.reason, "dtype": job.dtype, "data_checksum": job.data_checksum,
            "wall_time_s": wall_time_s, "timestamp": stamp, **facts, **env, "extra": m.extra,
        })
    return records


def _suite_obj(job: Job):
    from suites._suite import suites

    return suites.get(job.suite)


def _suite_version(job: Job) -> int:
    return _suite_obj(job).version


def _unit(job: Job, metric: str):
    found = [m for m in _suite_obj(job).metrics if m.name == metric]
    return found[0].unit if found else None


def _higher(job: Job, metric: str):
    found = [m for m in _suite_obj(job).metrics if m.name == metric]
    return found[0].higher_is_better if found else None


def outcome_record(status: str, reason: str) -> Measurement:
    """The single record of a job that produced no measurement."""
    return Measurement("job", None, status=status, reason=reason)


def run_job(plan: Plan, job: Job, store: ResultsStore, progress: bool = True) -> str:
    """Run one job and store its records; returns its status."""
    seed_everything(job.seed)
    settings = prepare_device(job.device)
    env = {**provenance(job.device), **settings}
    ctx = JobContext(device=job.device, dtype=DTYPES[job.dtype], progress=progress, label=job.label,
                     options=plan.options, seed=job.seed)
    start = time.perf_counter()
    try:
        measurements = plan.suite.run_job(job.spec, job.profile, job.seed, ctx)
    except Diverged as exc:
        measurements = [outcome_record("diverged", str(exc))]
    except Unsupported as exc:
        measurements = [outcome_record("unsupported", str(exc))]
    except (torch.OutOfMemoryError, MemoryError) as exc:
        measurements = [outcome_record("oom", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")]
    except Exception as exc:  # any other failure is recorded and the sweep goes on
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        reason = f"{type(exc).__name__}: {exc} (at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})"
        measurements = [outcome_record("failed", reason)]
    wall = time.perf_counter() - start
    store.write(job.suite, job.job_hash, job.label, job_records(job, measurements, ctx.facts, env, wall))
    statuses = {m.status for m in measurements}
    # cases a job itself skipped or found unsupported are recorded outcomes, not a failed job
    return "ok" if statuses <= {"ok", "unsupported", "skipped"} and "ok" in statuses else sorted(statuses - {"ok"})[0]


def record_skips(plan: Plan, store: ResultsStore) -> None:
    """Store a 'skipped' record, with its reason, for every job the plan cannot run."""
    for job in plan.skipped:
        env = provenance(job.device)
        store.write(job.suite, job.job_hash, job.label,
                    job_records(job, [outcome_record("skipped", job.skip_reason or "")], {}, env, 0.0))


def execute(plan: Plan, store: ResultsStore, progress: bool = True) -> Dict[str, int]:
    """Run every job of the plan that is not stored yet; returns a count per status."""
    record_skips(plan, store)
    counts: Dict[str, int] = {}
    jobs = plan.to_run
    bar = tqdm(jobs, desc=f"{plan.suite.name}", unit="job", disable=not progress or not jobs, dynamic_ncols=True)
    for job in bar:
        bar.set_postfix_str(job.label)
        status = run_job(plan, job, store, progress)
        counts[status] = counts.get(status, 0) + 1
        if status != "ok":
            tqdm.write(f"  {job.label}: {status} (recorded with its reason)")
    return counts
