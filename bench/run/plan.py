"""From a run config to a Plan: every job to run, every job already stored, every skip with its reason.

Suite -> profile (with overrides) -> each variant expression resolved on the profile's base spec ->
``problems(spec)`` -> a Job per (variant, seed). Nothing is computed here beyond reading the data's
checksum, so every bad name or impossible setting is reported before any training starts.

A job the plan cannot run is one of two kinds (``Job.skip_kind``): ``impossible`` (no machine runs it: a
head count that does not divide, a kernel that cannot score the spec) or ``unavailable`` (it would run with
a package, device or dtype this machine lacks: flash_attn on a CPU). Whether a skip counts against the
request (bench/run/runner.py ``exit_status``) depends on who asked for the job: a variant the user named
counts; a variant of the suite's default list that is unavailable here is a note ("not available here"),
since a default list names kernels for every machine. When no job of the request can run, the plan is
refused (exit 2) before any compute, one sentence per reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from tabulate import tabulate

from bench.run.checks import DTYPES, check_profile, check_variant, reading_data
from harness.contract import Profile, Suite
from harness.env import code_version
from harness.errors import UsageError
from harness.store import ResultsStore
from variants.spec import TransformerSpec, problems, stable_hash


@dataclass
class Job:
    """One (variant, seed) of a suite, with the identity under which its records are stored."""

    suite: str
    variant: str
    spec: TransformerSpec
    profile: Profile
    seed: int
    device: str
    dtype: str
    data_checksum: str
    job_hash: str
    skip_reason: str | None = None
    stored: str | None = None  # path of stored records, when the job already ran
    #: why it cannot run: "impossible" (anywhere) or "unavailable" (here); None when it runs
    skip_kind: str | None = None
    #: the variant was named by the user (variants=[...]), not taken from the suite's default list
    asked: bool = True
    #: what the skip depended on (kernel, missing package, device, dtype), stored with a skipped record
    skip_condition: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        return f"{self.variant}-s{self.seed}"


@dataclass
class Plan:
    """The jobs of one ``bench run`` and what will happen to each."""

    suite: Suite
    profile: Profile
    options: dict[str, Any]
    jobs: list[Job] = field(default_factory=list)

    def report_selection(self, overrides: dict[str, Any] = None, typed: bool = True) -> dict[str, Any]:
        """The ``bench report`` keys of the group this plan's records belong to (profile, device, dtype, suite version,
        data, and each ``set.FIELD`` override), so a report after the run covers this run and no other. ``typed``:
        each override as the profile holds it (for matching records), else as it was written (for a command line)."""
        if not self.jobs:
            return {}
        job = self.jobs[0]
        wanted = {
            "profile": self.profile.name,
            "device": job.device.split(":", 1)[0],
            "dtype": job.dtype,
            "suite_version": str(self.suite.version),
            "data": str(job.data_checksum)[:8],
        }
        wanted.update(
            {
                f"set.{name}": getattr(self.profile, name, value) if typed else value
                for name, value in (overrides or {}).items()
            }
        )
        return wanted

    @property
    def to_run(self) -> list[Job]:
        """Jobs to train: not stored, not skipped, and not a second name of a spec listed before."""
        return [j for j in self.jobs if j.skip_reason is None and j.stored is None and self.first_of(j) is j]

    def first_of(self, job: Job) -> Job:
        """The first job of the plan with this job's hash: two names of one spec are one job, run once."""
        return next(j for j in self.jobs if j.job_hash == job.job_hash)

    @property
    def skipped(self) -> list[Job]:
        return [j for j in self.jobs if j.skip_reason is not None and j.stored is None]

    @property
    def not_runnable(self) -> list[Job]:
        """Jobs asked for that cannot run here (stored skips included): they make ``bench run`` exit 3."""
        return [j for j in self.jobs if j.skip_reason is not None and not is_note(j)]

    @property
    def notes(self) -> list[Job]:
        """Jobs of the suite's default list that need a package, device or dtype this machine lacks."""
        return [j for j in self.jobs if j.skip_reason is not None and is_note(j)]

    def describe(self) -> str:
        """A table of every job and what will happen to it."""
        rows = []
        for job in self.jobs:
            if job.stored and job.skip_reason:
                action = f"skip stored ({'not available here' if is_note(job) else 'cannot run'}): {job.skip_reason}"
            elif job.stored:
                action = "stored, not rerun"
            elif job.skip_reason and is_note(job):
                action = f"not available here: {job.skip_reason}"
            elif job.skip_reason:
                action = f"cannot run: {job.skip_reason}"
            elif self.first_of(job) is not job:
                action = f"same spec as {self.first_of(job).label}: run once, stored under both names"
            else:
                action = "run"
            rows.append([job.variant, job.seed, job.job_hash, action])
        head = (
            f"Plan: suite={self.suite.name} profile={self.profile.name} device={self.jobs[0].device if self.jobs else '?'} "
            f"- {len(self.to_run)} to run, {sum(1 for j in self.jobs if j.stored and not j.skip_reason)} stored, "
            f"{len(self.not_runnable)} cannot run" + (f", {len(self.notes)} not available here" if self.notes else "")
        )
        return head + "\n" + tabulate(rows, headers=["variant", "seed", "hash", "action"], tablefmt="simple")


def job_hash(
    suite: Suite,
    spec: TransformerSpec,
    profile: Profile,
    seed: int,
    device: str,
    dtype: str,
    checksum: str,
    libraries: dict[str, str | None] | None = None,
) -> str:
    """Content hash of everything that determines a job's results: with ``libraries`` (the versions of
    harness.env.IDENTITY_LIBRARIES) as every job is stored now; without, as jobs were stored before they counted."""
    identity = {
        "suite": suite.name,
        "suite_version": suite.version,
        "spec": spec.to_dict(),
        "profile": profile.settings(),
        "seed": seed,
        "device": device.split(":")[0],
        "dtype": dtype,
        "data": checksum,
        "code": code_version(),
    }
    if libraries is not None:
        identity["libraries"] = libraries
    return stable_hash(identity)


def find_stored(
    store: ResultsStore,
    suite: Suite,
    spec,
    profile: Profile,
    seed: int,
    device: str,
    dtype: str,
    checksum: str,
    libraries: dict[str, str | None],
) -> tuple[str, Path | None]:
    """The job's hash and its stored file (None: not stored here). A file stored before the library versions were
    part of the hash is the job's only when its records ran under these same versions; under others the job runs
    again, stored beside it under its new hash."""
    h = job_hash(suite, spec, profile, seed, device, dtype, checksum, libraries)
    stored = store.find(suite.name, h)
    if stored is not None:
        return h, stored
    legacy = job_hash(suite, spec, profile, seed, device, dtype, checksum)
    old = store.find(suite.name, legacy)
    if old is not None and stored_libraries(store, old) == libraries:
        return legacy, old
    return h, None


def stored_libraries(store: ResultsStore, path: Path) -> dict[str, str | None] | None:
    """The identity libraries a stored job ran under (records from before ``library_versions`` name torch only)."""
    from harness.env import identity_libraries

    records = store.read_file(path)
    first = records[0] if records else {}
    if isinstance(first.get("library_versions"), dict):
        return identity_libraries(first["library_versions"])
    current = identity_libraries()
    return {**current, "torch": first.get("torch_version")} if first.get("torch_version") else None


def make_plan(
    suite: Suite,
    profile: Profile,
    variants: list[str],
    seeds: list[int],
    device: str,
    dtype: str,
    options: dict[str, Any],
    store: ResultsStore,
    asked: bool = True,
) -> Plan:
    """Resolve every variant (raising on unknown or conflicting presets) and decide each job's fate.

    ``asked``: the variants were named by the user (False: the suite's default list, whose variants that are
    unavailable here are notes). A UsageError, before any compute, when no job can run here. A stored skip
    whose reason no longer holds (the package was installed since) is planned to run, and replaces it.
    """
    from harness.env import identity_libraries

    check_profile(suite, profile, options, device)
    plan = Plan(suite, profile, options)
    checksum = data_checksum(suite, profile, options)
    libraries = identity_libraries()
    torch_dtype = DTYPES[dtype]
    for variant in variants:
        spec = suite.spec_for(variant, profile, options)
        check_variant(suite, profile, variant, spec)
        reasons = problems(spec, device.split(":")[0], torch_dtype, training=suite.trains)
        measured = suite.spec_problems(spec, profile)  # what the suite's own measurement cannot do, on any machine
        kind = condition = None
        if measured:
            reasons += measured
            kind, condition = "impossible", {"device": device.split(":")[0], "reasons": list(reasons)}
        elif reasons:
            kind, condition = skip_kind(spec, device.split(":")[0], torch_dtype, suite.trains, reasons)
        for seed in seeds:
            h, stored = find_stored(store, suite, spec, profile, seed, device, dtype, checksum, libraries)
            job = Job(
                suite.name,
                variant,
                spec,
                profile,
                seed,
                device,
                dtype,
                checksum,
                h,
                skip_reason="; ".join(reasons) or None,
                skip_kind=kind,
                asked=asked,
                skip_condition=condition,
            )
            if stored is not None and not _retried(store, stored, job):
                job.stored = str(stored)
            plan.jobs.append(job)
    refuse_if_nothing_runs(plan, variants)
    return plan


def is_note(job: Job) -> bool:
    """A job of the suite's default list that is unavailable here: planned as a note, not counted as a failure."""
    return job.skip_reason is not None and not job.asked and job.skip_kind == "unavailable"


def skip_kind(spec, device: str, dtype: torch.dtype, training: bool, reasons: list[str]):
    """("unavailable", condition) when the spec would run with a package, device or dtype this machine lacks,
    else ("impossible", condition); the condition is what a later plan re-checks (``problems`` again)."""
    from variants.kernel import kernels

    name = getattr(spec, "kernel", None)
    condition: dict[str, Any] = {"device": device, "dtype": str(dtype).replace("torch.", ""), "reasons": list(reasons)}
    if not isinstance(name, str) or name not in kernels:
        return "impossible", condition
    kernel = kernels.get(name)
    missing = kernel.missing()
    condition.update({"kernel": name, "missing": missing, "kernel_devices": list(kernel.devices)})
    for other in kernel.devices:
        for other_dtype in dict.fromkeys((dtype, torch.float32, torch.bfloat16, torch.float16)):
            if other == device and other_dtype == dtype and not missing:
                continue  # this very machine and dtype: its reasons are the ones found
            left = [r for r in problems(spec, other, other_dtype, training=training) if r != missing]
            if not left:
                return "unavailable", condition
    return "impossible", condition


def refuse_if_nothing_runs(plan: Plan, variants: list[str]) -> None:
    """Exit 2 before any compute when every job of the request is impossible or unavailable here."""
    if not plan.jobs or any(j.skip_reason is None for j in plan.jobs):
        return
    by_reason: dict[str, list[str]] = {}
    for job in plan.jobs:
        names = by_reason.setdefault(job.skip_reason, [])
        if job.variant not in names:
            names.append(job.variant)
    device = plan.jobs[0].device
    here = f"here (device {device}, dtype {plan.jobs[0].dtype})"
    lines = [
        f"variants=[{','.join(names)}] cannot run {here if all(_unavailable(plan, n) for n in names) else 'with these settings'}: "
        f"{reason.rstrip('.')}."
        for reason, names in by_reason.items()
    ]
    lines[-1] += " Nothing was run; `bench list support` shows what runs where."
    raise UsageError("\nbench: ".join(lines))


def _unavailable(plan: Plan, variant: str) -> bool:
    return all(j.skip_kind == "unavailable" for j in plan.jobs if j.variant == variant)


def data_checksum(suite: Suite, profile: Profile, options: dict[str, Any]) -> str:
    """The data's checksum; a corpus that cannot be read is one sentence (``reading_data``)."""
    with reading_data(profile, options):
        return suite.data_checksum(profile, options)


def _retried(store: ResultsStore, path, job: Job) -> bool:
    """A stored job is run again when it failed (an exception, not a measured outcome), or when it was
    skipped and its reason no longer holds (the job can run now)."""
    records = store.read_file(path)
    if any(r.get("status") == "failed" for r in records):
        return True
    return job.skip_reason is None and all(r.get("status") == "skipped" for r in records)
