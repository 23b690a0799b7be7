"""Runs a Plan: each job seeded, measured, and stored atomically with its provenance.

A job that diverges, runs out of memory, is unsupported or raises is recorded with that status and
its reason, and the sweep goes on. Jobs already stored are not rerun, so an interrupted sweep resumes.
Before each job the run takes the job's lock and looks in the store again, so a job stored meanwhile
(by another name of the same spec, or by another process on the same results folder) is not trained
twice; a job locked by another process is left for the end of the sweep and waited for then.

Exit status of ``bench run`` (``exit_status``):

- 0: every job asked for ran (or was stored before) and none failed;
- 1: a job failed (an exception; a rerun retries it), a worker process died, or the results folder stopped
  being writable mid-run (the finished job's records are kept in a fallback folder the message names, and a
  rerun stores them without training again);
- 2: bad input, or no job of the request can run here: refused before any compute, one sentence per reason;
- 3: the sweep ran, but some jobs asked for cannot run here (an impossible shape, or a package, device or dtype
  this machine lacks); each is recorded as skipped with its reason. ``allow_skips=true`` makes this 0.

Who asked decides whether a skip counts: a variant named in ``variants=[...]`` counts; a variant of the
suite's default list (no ``variants=``) that needs a package, device or dtype this machine lacks
(attention_cost's flash_attn, xformers and sdpa_cudnn on a CPU) is planned as "not available here", a note
that leaves the exit status 0, because a default list names kernels for every machine. A default variant
that is impossible everywhere (a head count the settings do not divide) still counts.

A skipped record keeps the condition it depended on (``skip_condition``: kernel, missing package, device and
its capability, dtype, library versions); every plan checks the job again, and a job whose reason no longer
holds (the package was installed since) runs and replaces its skipped record.
"""

from __future__ import annotations

import datetime as dt
import random
import time
import traceback
from typing import Any

import torch
from tqdm.auto import tqdm

from bench.run.checks import DTYPES
from bench.run.outcomes import Outcome, RunSummary, job_status
from bench.run.plan import Job, Plan
from harness.contract import Diverged, JobContext, Measurement, Unsupported
from harness.cores import worker_count
from harness.env import device_capability, library_versions, prepare_device, provenance
from harness.locks import JobLock, owner_text
from harness.records import SCHEMA_VERSION
from harness.store import ResultsStore, StoreUnwritable
from harness.train import compiling


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def job_records(
    job: Job, measurements: list[Measurement], facts: dict[str, Any], env: dict[str, Any], wall_time_s: float
) -> list[dict[str, Any]]:
    """Measurements of one job turned into self-describing records."""
    stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    records = []
    for m in measurements:
        records.append(
            {
                "schema_version": SCHEMA_VERSION,
                "suite": job.suite,
                "suite_version": _suite_version(job),
                "task": job.suite,
                "variant": job.variant,
                "names": [job.variant],
                "spec": job.spec.to_dict(),
                "spec_hash": job.spec.content_hash(),
                "job_hash": job.job_hash,
                "profile": job.profile.name,
                "profile_settings": job.profile.settings(),
                "seed": job.seed,
                "metric": m.metric,
                "value": _number(m.value),
                "unit": _unit(job, m.metric),
                "higher_is_better": _higher(job, m.metric),
                "x": m.x,
                "x_name": m.x_name,
                "status": m.status,
                "reason": m.reason,
                "dtype": job.dtype,
                "data_checksum": job.data_checksum,
                "wall_time_s": wall_time_s,
                "timestamp": stamp,
                **facts,
                **env,
                "extra": m.extra,
            }
        )
    return records


def _number(value: Any) -> Any:
    """A measured value as the store's schema takes it: a Python number or None (a NumPy or 0-d tensor value
    becomes a float; anything else is kept, and a read reports the record as malformed)."""
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def _suite_obj(job: Job):
    from harness.contract import suites

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


def prepare_job(plan: Plan, job: Job, store: ResultsStore, progress: bool = True) -> tuple[JobContext, dict[str, Any]]:
    """Seed a job, pin its device's numeric settings and build the context its suite runs it in.

    Returns the context and the settings pinned (harness/env.py ``prepare_device``), which its records carry.
    Both a run (``run_job``) and a re-timing (bench/run/retime.py) start a job here.
    """
    seed_everything(job.seed)
    settings = prepare_device(job.device)
    ctx = JobContext(
        device=job.device,
        dtype=DTYPES[job.dtype],
        progress=progress,
        label=job.label,
        options=plan.options,
        seed=job.seed,
        checkpoint_dir=store.root / job.suite / ".checkpoints",
    )
    return ctx, settings


def lock_job(store: ResultsStore, job: Job, wait: bool = False) -> JobLock | None:
    """The job's lock, taken: None when another process holds it and not ``wait``.

    A results folder that refuses the lock file raises StoreUnwritable, whose one sentence names the folder and
    the job; nothing of that job was computed yet, so nothing is kept aside.
    """
    try:
        lock = store.lock(job.suite, job.job_hash)
        if not lock.acquire(wait=wait):
            return None
    except OSError as exc:
        raise StoreUnwritable(
            f"results_dir={store.root} stopped being writable ({exc.strerror or exc}) before "
            f"{job.label} started; the jobs before it are stored, and a rerun on a writable "
            f"folder resumes from there."
        ) from None
    return lock


def run_job(plan: Plan, job: Job, store: ResultsStore, progress: bool = True) -> list[dict[str, Any]]:
    """Run one job and store its records, which it returns (it takes no lock: ``settle`` does)."""
    ctx, settings = prepare_job(plan, job, store, progress)
    env = {**provenance(job.device), **settings}
    start = time.perf_counter()
    try:
        # set.compile=true (and set.cuda_graphs=true) reach every training of the job
        with compiling(getattr(job.profile, "compile", False), getattr(job.profile, "cuda_graphs", False)):
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
    records = job_records(job, measurements, ctx.facts, env, wall)
    save(store, job, records)
    return records


def save(store: ResultsStore, job: Job, records: list[dict[str, Any]]) -> None:
    """Store a job's records; when the results folder cannot be written, keep them in the fallback folder and
    raise StoreUnwritable, whose one sentence names it (a rerun stores them without training again)."""
    try:
        store.write(job.suite, job.job_hash, job.label, records)
    except StoreUnwritable:
        raise
    except OSError as exc:
        raise store.save_fallback(job.suite, job.job_hash, job.label, records, exc) from None


def skip_records(job: Job) -> list[dict[str, Any]]:
    """The one 'skipped' record, with its reason and the condition it depended on, of a job the plan cannot run."""
    records = job_records(job, [outcome_record("skipped", job.skip_reason or "")], {}, provenance(job.device), 0.0)
    condition = {
        **(job.skip_condition or {}),
        "kind": job.skip_kind,
        "asked": job.asked,
        "device_capability": device_capability(job.device),
        "library_versions": library_versions(),
    }
    return [{**r, "skip_condition": condition} for r in records]


def exit_status(plan: Plan, summary: RunSummary, allow_skips: bool = False) -> int:
    """1 when a job failed; 3 when a job asked for cannot run here (unless ``allow_skips``); else 0 (module docstring)."""
    if summary.exit_status:
        return summary.exit_status
    return 3 if plan.not_runnable and not allow_skips else 0


def _reason(records: list[dict[str, Any]]) -> str | None:
    return next((r.get("reason") for r in records if r.get("status") != "ok" and r.get("reason")), None)


def settle(
    plan: Plan,
    job: Job,
    store: ResultsStore,
    since: float,
    progress: bool = True,
    wait: bool = False,
    settled: dict[str, str] | None = None,
) -> Outcome | None:
    """Take the job's lock, look in the store again, then train the job, record its skip, or name it.

    ``since`` is when this run started: a failed record older than that is retried (the plan's choice), a
    newer one is this sweep's attempt and stands. ``settled`` maps the job hashes stored by this process
    to their labels. Returns None, without waiting, when another process holds the lock and not ``wait``.
    """
    settled = {} if settled is None else settled
    lock = lock_job(store, job, wait)
    if lock is None:
        return None
    with lock:
        path = store.find(job.suite, job.job_hash)
        if path is not None:
            records = store.read_file(path)
            status = job_status(r.get("status", "failed") for r in records)
            stale_skip = status == "skipped" and job.skip_reason is None and job.job_hash not in settled
            if not stale_skip and (status != "failed" or job.job_hash in settled or path.stat().st_mtime >= since):
                try:
                    store.add_names(job.suite, job.job_hash, [job.variant])
                except OSError as exc:
                    store.say(f"warning: could not add the name {job.variant} to {path.name} ({exc.strerror or exc}).")
                how = "shared" if job.job_hash in settled else "stored" if job.stored else "elsewhere"
                other = settled.get(job.job_hash) if how == "shared" else None
                return Outcome(job.label, status, how, _reason(records), other)
        if job.skip_reason:
            records, how = skip_records(job), "skipped"
            save(store, job, records)
        else:
            records, how = run_job(plan, job, store, progress), "ran"
        settled[job.job_hash] = job.label
        return Outcome(job.label, job_status(r["status"] for r in records), how, _reason(records))


def execute(plan: Plan, store: ResultsStore, progress: bool = True) -> RunSummary:
    """Settle every job of the plan in order (see ``settle``); jobs locked by another process at the end."""
    store.prepare(plan.suite.name)
    since, settled, summary, later = time.time(), {}, RunSummary(), []
    to_run = {id(job) for job in plan.to_run}
    bar = tqdm(
        total=len(to_run), desc=f"{plan.suite.name}", unit="job", disable=not progress or not to_run, dynamic_ncols=True
    )
    for job in plan.jobs:
        bar.set_postfix_str(job.label)
        outcome = settle(plan, job, store, since, progress, wait=False, settled=settled)
        if outcome is None:
            lock = store.lock(job.suite, job.job_hash).path
            if worker_count() == 1:  # among workers=N, the others holding jobs is the plan, not news
                tqdm.write(f"  {job.label}: being run by {owner_text(lock)}; waiting for it at the end")
            later.append(job)
            continue
        _record(summary, outcome, bar, id(job) in to_run)
    for job in later:
        _record(summary, settle(plan, job, store, since, progress, wait=True, settled=settled), bar, id(job) in to_run)
    bar.close()
    return summary


def _record(summary: RunSummary, outcome: Outcome, bar, counted: bool) -> None:
    summary.add(outcome)
    if counted:
        bar.update(1)
    if outcome.how == "ran" and outcome.status != "ok":
        tqdm.write(f"  {outcome.label}: {outcome.status} (recorded with its reason)")
