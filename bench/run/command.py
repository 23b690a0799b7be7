"""``bench run``: a request planned, its jobs run and stored, and what happened said, with the exit status.

    bench run suite=position_extrapolation variants=[rope,alibi] profile=quick seeds=[0,1,2]

Every refusal of the request comes before any data is read (bench/run/checks.py); the plan (bench/run/plan.py)
is said, then run here, in ``workers=N`` processes (bench/run/workers.py) or through an executor
(bench/run/executors.py). The run ends by naming where its records are and the ``bench report`` that rebuilds its
report, the jobs whose timings were contended (bench/run/retime.py) and, with ``report=true``, by rebuilding that
report. Exit status: bench/run/runner.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.errors import UsageError


def run(args: list[str]) -> int:
    """Plan the request, run its jobs (here, in workers or through submitit), say what happened; the exit status."""
    from bench.config import RunConfig, parse
    from bench.run.checks import check_request
    from bench.run.executors import run_plan
    from bench.run.plan import make_plan
    from harness.store import ResultsStore

    cfg: RunConfig = parse(args, RunConfig)
    asked = check_request(cfg)  # every refusal of the request as a whole, before any data is read
    suite, profile, options, device = asked.suite, asked.profile, asked.options, asked.device
    seeds, variants = asked.seeds, asked.variants
    store = ResultsStore(cfg.results_dir)
    if not cfg.dry_run:
        store.adopt_unsaved()  # records kept aside when this folder was unwritable: stored before planning
    plan = make_plan(
        suite,
        profile,
        variants,
        seeds,
        device,
        asked.dtype,
        options,
        store,
        asked=cfg.variants is not None,
    )
    from bench.run.workers import run_workers
    from harness.cores import worker_count

    if worker_count() == 1:  # the sweep's own process says the plan once, not each of its workers
        print(plan.describe(), flush=True)
    if cfg.retime:
        return _retime(plan, store, cfg)
    if cfg.dry_run:
        print("dry_run=true: nothing was run.")
        return 0
    again = _report_command(suite.name, plan.report_selection(cfg.set, typed=False), cfg)
    if cfg.workers > 1 and plan.to_run:
        status, said = run_workers(args, cfg.workers)
        print(f"{said} Records in {Path(cfg.results_dir) / suite.name}/; `{again}` rebuilds this run's report.")
        if status == 3 and cfg.allow_skips:
            status = 0
        elif status == 3:
            _say_not_runnable(plan)
        _say_contended(plan, store, args)
        _track(plan, store, cfg)
        return _report_after(plan, cfg, status)
    from bench.run.runner import exit_status

    summary = run_plan(plan, store, cfg.executor, progress=cfg.progress, options=cfg.submitit)
    summary.worker = worker_count() > 1
    print("\n".join(summary.lines()))
    if not summary.worker:
        print(f"Records in {Path(cfg.results_dir) / suite.name}/; `{again}` rebuilds this run's report.")
        _say_contended(plan, store, args)
        _track(plan, store, cfg)
    status = exit_status(plan, summary, cfg.allow_skips)
    if status == 1:
        print(
            f"bench: {len(summary.failed)} job(s) failed ({', '.join(o.label for o in summary.failed)}); "
            f"exit status 1. A rerun retries them.",
            file=sys.stderr,
        )
    elif status == 3 and not summary.worker:
        _say_not_runnable(plan)
    return status if summary.worker else _report_after(plan, cfg, status)


def _report_command(suite: str, wanted, cfg) -> str:
    """The ``bench report`` command that rebuilds the report of exactly this run's group."""
    defaults = {"results_dir": "results", "reports_dir": "reports"}
    dirs = [f"{k}={getattr(cfg, k)}" for k, default in defaults.items() if getattr(cfg, k) != default]
    return " ".join(["bench report", f"suite={suite}", *(f"{k}={v}" for k, v in wanted.items()), *dirs])


def _report_after(plan, cfg, status: int) -> int:
    """With ``report=true`` and some records of this run's group stored, rebuild that group's report (and the index)."""
    if not cfg.report:
        return status
    from bench.report.build import build_reports

    try:
        paths, lines = build_reports(
            plan.suite.name, Path(cfg.results_dir), Path(cfg.reports_dir), plan.report_selection(cfg.set)
        )
    except UsageError as exc:  # nothing of this run's group was stored (every job skipped): say so, keep the status
        print(f"bench: no report: {exc}", file=sys.stderr)
        return status
    for line in lines + [f"wrote {path}" for path in paths]:
        print(line)
    return status


def _track(plan, store, cfg) -> None:
    """With ``tracker=NAME``, log each job this run ran from its stored records (bench/run/trackers.py)."""
    if not cfg.tracker or not plan.to_run:
        return
    from bench.run.trackers import log_jobs

    hashes = {job.job_hash: job.label for job in plan.to_run}
    jobs: dict[str, list] = {label: [] for label in hashes.values()}
    for record in store.load(plan.suite.name):
        if record.get("job_hash") in hashes:
            jobs[hashes[record["job_hash"]]].append(record)
    logged = log_jobs(cfg.tracker, jobs, Path(cfg.results_dir))
    print(
        f"tracker={cfg.tracker}: logged {logged} job(s) under {cfg.results_dir}/.{cfg.tracker.replace('mlflow', 'mlruns')}/."
    )


def _say_contended(plan, store, args: list[str]) -> None:
    """Name the jobs of the plan whose timings were contended, and the command that takes them again."""
    import shlex

    from bench.run.retime import contended_jobs, summary_lines

    kept = [a for a in args if a.split("=", 1)[0] not in ("workers", "report", "progress", "executor", "dry_run")]
    for line in summary_lines(
        contended_jobs(plan, store), plan.suite, " ".join(["bench run", *map(shlex.quote, kept)])
    ):
        print(line)


def _retime(plan, store, cfg) -> int:
    """``retime=true``: take the contended timings of the plan's stored jobs again, training nothing."""
    from bench.run.retime import contended_jobs, retime

    if cfg.dry_run:
        found = contended_jobs(plan, store, unrecorded=True)
        print(
            f"dry_run=true: {len(found)} job(s) would be re-timed"
            + (": " if found else ".")
            + ", ".join(c.job.label for c in found)
        )
        return 0
    if cfg.workers > 1:
        print("retime=true times one job at a time in this process (workers would contend with each other).")
    results, lines = retime(plan, store, progress=cfg.progress)
    print("\n".join(lines))
    return 1 if any(r.problem for r in results) else 0


def _say_not_runnable(plan) -> None:
    jobs = plan.not_runnable
    print(
        f"bench: {len(jobs)} job(s) asked for cannot run here ({', '.join(j.label for j in jobs)}); their "
        f"skips are recorded with the reason; exit status 3. Give allow_skips=true to accept them.",
        file=sys.stderr,
    )
