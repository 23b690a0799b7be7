"""Timings taken under load: which jobs of a run hold them, and re-timing them alone without retraining.

A timing is contended when another process took CPU it needed (harness/timing.py ``is_contended``); its record
says so (``extra.contaminated``), every view marks it "(contended)" and none ranks it. ``bench run`` ends by naming
the jobs of its plan whose timings were contended, with the command that takes them again; that command,
``bench run ... retime=true``, trains nothing: for each such job the suite's ``retime_job`` measures the job's
timings again on the model of the same spec and seed, untrained (a timing depends on the shapes, not on the
weights' values), and each contended record whose new timing is clean takes the new value, the old one kept
in its ``extra`` (``contended_before``). A training's own wall time cannot be taken again without training
again: it keeps its mark. A new timing that is contended too replaces nothing (run it on a quiet machine).
A training throughput stored before trainings recorded their load (its load unknown) is taken again too.

A timing is taken again under the conditions of the first: with the record's intra-op thread count (a worker of
``workers=2`` had one thread), and only on the processor that took it; a job timed on another processor is
named and left alone, since one group would then hold timings of two machines.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.compare.table import CONDITION_KEYS
from harness.contract import Measurement
from harness.timing import contended

#: timings recorded before a training's load was: taken again by ``retime=true`` too, as their load is unknown
UNRECORDED = ("train_throughput",)


@dataclass
class Contended:
    """One stored job with contended timings: its plan job, its record file, its records and the metrics contended."""

    job: Any
    path: Path
    records: list[dict[str, Any]]
    metrics: list[str]


@dataclass
class Retimed:
    """What re-timing one job did: records replaced, records whose new timing was contended too, records left."""

    label: str
    replaced: list[str] = field(default_factory=list)
    still: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    #: an error while timing (the records stay as they were)
    problem: str | None = None
    #: why the job was not re-timed here (another processor took its timings)
    refused: str | None = None


def _retimable(record: dict[str, Any], unrecorded: bool) -> bool:
    """A measured timing taken under load (or, with ``unrecorded``, one stored before its load was recorded)."""
    if record.get("status") != "ok":
        return False
    busy = contended(record.get("extra"))
    return bool(busy) or (unrecorded and busy is None and record.get("metric") in UNRECORDED)


def contended_metrics(records: list[dict[str, Any]], unrecorded: bool = False) -> list[str]:
    """The metrics (with their x) of a job's measured records that were timed under load, in record order (with
    ``unrecorded``, also the timings stored before their load was recorded)."""
    out: list[str] = []
    for r in records:
        if _retimable(r, unrecorded) and _label(r) not in out:
            out.append(_label(r))
    return out


def _nan(x: float) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _label(record: dict[str, Any]) -> str:
    """'decode_latency@512': a record's metric and its x."""
    x = record.get("x")
    return record["metric"] + (f"@{x:g}" if isinstance(x, (int, float)) and not _nan(x) else "")


def contended_jobs(plan, store, unrecorded: bool = False) -> list[Contended]:
    """The jobs of ``plan`` stored under ``store`` whose records hold a contended timing (``unrecorded``: or a
    timing stored before its load was recorded)."""
    out = []
    for job in plan.jobs:
        if job.skip_reason:
            continue
        path = store.find(job.suite, job.job_hash)
        if path is None:
            continue
        records = store.read_file(path)
        metrics = contended_metrics(records, unrecorded)
        if metrics:
            out.append(Contended(job, path, records, metrics))
    return out


def summary_lines(found: list[Contended], suite, command: str) -> list[str]:
    """The end of ``bench run``: each job whose timings were contended, and how to take them again."""
    if not found:
        return []
    lines = [
        f'Timings taken while another process held a CPU (marked "(contended)" in reports, the index and '
        f"bench compare, never ranked) in {len(found)} job(s):"
    ]
    lines += [f"  {c.job.label}: {', '.join(c.metrics)}" for c in found]
    if suite.retimes:
        lines.append(
            f"Re-time them alone, without retraining, on a quiet machine: `{command} retime=true`"
            + (" (a training's wall time keeps its mark)." if any("train_time" in c.metrics for c in found) else ".")
        )
    else:
        lines.append(
            f"Suite {suite.name} times its trainings themselves, so taking them again means training again: "
            f"rerun into a fresh results_dir on a quiet machine."
        )
    return lines


def _key(record_or_measurement: Any) -> tuple:
    """(metric, x, condition) of a stored record (dict) or a new Measurement."""
    if isinstance(record_or_measurement, Measurement):
        metric, x, extra = record_or_measurement.metric, record_or_measurement.x, record_or_measurement.extra
    else:
        metric, x, extra = (
            record_or_measurement["metric"],
            record_or_measurement.get("x"),
            record_or_measurement.get("extra"),
        )
    extra = extra if isinstance(extra, dict) else {}
    x = None if x is None or _nan(x) else float(x)
    return metric, x, tuple((k, str(extra[k])) for k in CONDITION_KEYS if k in extra)


def merge(records: list[dict[str, Any]], fresh: list[Measurement], label: str) -> tuple[list[dict[str, Any]], Retimed]:
    """The job's records with each contended timing replaced by its clean new one (old value kept in ``extra``)."""
    stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    by_key = {_key(m): m for m in fresh if m.status == "ok" and contended(m.extra) is not None}
    done = Retimed(label)
    out = []
    for r in records:
        if not _retimable(r, unrecorded=True):
            out.append(r)
            continue
        name = _label(r)
        new = by_key.get(_key(r))
        if new is None:
            done.kept.append(name)
            out.append(r)
        elif contended(new.extra):
            done.still.append(name)
            out.append(r)
        else:
            r = {**r, "extra": r.get("extra") if isinstance(r.get("extra"), dict) else {}}
            before = {
                k: r["extra"].get(k)
                for k in ("other_cpu_mean", "stall_mean", "other_cpu_median", "stall_median")
                if r["extra"].get(k) is not None
            }
            out.append(
                {
                    **r,
                    "value": float(new.value),
                    "extra": {
                        **{k: v for k, v in r["extra"].items() if k in _CONDITION_AND_FACTS},
                        **new.extra,
                        "retimed_at": stamp,
                        # contaminated None: taken before its load was recorded
                        "contended_before": {
                            "value": r.get("value"),
                            "timestamp": r.get("timestamp"),
                            "contaminated": r["extra"].get("contaminated"),
                            **before,
                        },
                    },
                }
            )
            done.replaced.append(name)
    return out, done


#: ``extra`` keys of a stored timing that are no part of the timing itself and stay when it is re-taken: its condition
#: (bench/compare/table.py CONDITION_KEYS) and the facts of where it was measured
_CONDITION_AND_FACTS = CONDITION_KEYS + ("multiplier", "batch", "cached", "task", "lr", "train_max", "parameters")


def retime(plan, store, progress: bool = True) -> tuple[list[Retimed], list[str]]:
    """Re-take the contended timings of ``plan``'s stored jobs (module docstring); (what each job got, lines to print)."""
    from bench.run.runner import lock_job, prepare_job
    from harness.env import device_name
    from harness.measure import threads

    found = contended_jobs(plan, store, unrecorded=True)
    if not found:
        return [], [
            "No stored job of this plan holds a contended timing (or one whose load was not recorded): "
            "nothing to re-time."
        ]
    if not plan.suite.retimes:
        return [], [
            f"Suite {plan.suite.name} cannot re-time without training again (its timings are its trainings'); "
            f"rerun into a fresh results_dir on a quiet machine."
        ]
    results, lines = [], [f"Re-timing {len(found)} job(s) alone, without training:"]
    here = device_name(plan.jobs[0].device) if plan.jobs else ""
    for c in found:
        job = c.job
        first = c.records[0]
        if first.get("device_name") and first["device_name"] != here:
            done = Retimed(job.label, refused=f"timed on {first['device_name']}, not on this {here}")
            results.append(done)
            lines.append(
                f"  {job.label}: not re-timed: it was {done.refused}; one group would hold two machines' "
                f"timings, so re-time it there."
            )
            continue
        ctx, _ = prepare_job(plan, job, store, progress)
        try:
            with threads(int(first.get("num_threads") or 0)):  # 0: this process's count
                fresh = plan.suite.retime_job(job.spec, job.profile, job.seed, ctx)
        except Exception as exc:  # the stored records stay as they were
            done = Retimed(job.label, problem=f"{type(exc).__name__}: {exc}")
            results.append(done)
            lines.append(f"  {job.label}: not re-timed ({done.problem}); its records are unchanged.")
            continue
        with lock_job(store, job, wait=True):
            records = store.read_file(c.path)
            merged, done = merge(records, fresh, job.label)
            if done.replaced:
                store.write(job.suite, job.job_hash, job.label, merged)
        results.append(done)
        parts = [f"re-timed {', '.join(done.replaced)}" if done.replaced else "nothing replaced"]
        if done.still:
            parts.append(f"contended again: {', '.join(done.still)} (kept; rerun on a quiet machine)")
        if done.kept:
            parts.append(f"kept marked: {', '.join(done.kept)} (taken by the training itself)")
        lines.append(f"  {job.label}: " + "; ".join(parts) + ".")
    return results, lines


def report_line(frame, suite) -> str | None:
    """The sentence a report puts on its first screen when its group holds contended timings, else None."""
    if "extra" not in frame or not len(frame):
        return None
    ok = frame[frame.status == "ok"]
    busy = ok[[bool(contended(e)) for e in ok.extra]]
    if not len(busy):
        return None
    jobs = busy.job_hash.nunique() if "job_hash" in busy else len(busy)
    metrics = ", ".join(dict.fromkeys(busy.metric))
    profile = f" profile={busy.profile.iloc[0]}" if "profile" in busy else ""
    again = (
        f"`bench run suite={suite.name}{profile} retime=true` (with the run's variants and results_dir) takes "
        f"them again alone, training nothing"
        if suite.retimes
        else "taking them again means training again (rerun on a quiet machine)"
    )
    return (
        f"**Timings under load:** {len(busy)} timing record(s) of {jobs} job(s) ({metrics}) were taken while "
        f'another process held a CPU; they are marked "(contended)" where shown and never ranked; {again}.'
    )
