"""From a run config to a Plan: every job to run, every job already stored, every skip with its reason.

Suite -> profile (with overrides) -> each variant expression resolved on the profile's base spec ->
``problems(spec)`` -> a Job per (variant, seed). Nothing is computed here beyond reading the data's
checksum, so every bad name or impossible setting is reported before any training starts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import torch
from tabulate import tabulate

from harness.contract import Profile, Suite
from harness.env import code_version
from harness.errors import UsageError
from harness.store import ResultsStore
from variants.spec import TransformerSpec, problems, stable_hash

DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16, "float16": torch.float16}


def resolve_dtype(requested: str, suite: Suite, device: str) -> str:
    """``dtype=auto``: bfloat16 (autocast) for a suite that trains and computes in it on CUDA, else float32.

    On CPU auto is always float32, so CPU jobs keep their identity and numbers; an explicit dtype is kept.
    """
    if requested != "auto":
        return requested
    on_cuda = device.split(":")[0] == "cuda"
    return "bfloat16" if on_cuda and suite.trains and "bfloat16" in suite.dtypes else "float32"


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
    skip_reason: Optional[str] = None
    stored: Optional[str] = None  # path of stored records, when the job already ran

    @property
    def label(self) -> str:
        return f"{self.variant}-s{self.seed}"


@dataclass
class Plan:
    """The jobs of one ``bench run`` and what will happen to each."""

    suite: Suite
    profile: Profile
    options: Dict[str, Any]
    jobs: List[Job] = field(default_factory=list)

    @property
    def to_run(self) -> List[Job]:
        """Jobs to train: not stored, not skipped, and not a second name of a spec listed before."""
        return [j for j in self.jobs if j.skip_reason is None and j.stored is None and self.first_of(j) is j]

    def first_of(self, job: Job) -> Job:
        """The first job of the plan with this job's hash: two names of one spec are one job, run once."""
        return next(j for j in self.jobs if j.job_hash == job.job_hash)

    @property
    def skipped(self) -> List[Job]:
        return [j for j in self.jobs if j.skip_reason is not None and j.stored is None]

    def describe(self) -> str:
        """A table of every job and what will happen to it."""
        rows = []
        for job in self.jobs:
            if job.stored:
                action = "stored, not rerun"
            elif job.skip_reason:
                action = f"skip: {job.skip_reason}"
            elif self.first_of(job) is not job:
                action = f"same spec as {self.first_of(job).label}: run once, stored under both names"
            else:
                action = "run"
            rows.append([job.variant, job.seed, job.job_hash, action])
        head = (f"Plan: suite={self.suite.name} profile={self.profile.name} device={self.jobs[0].device if self.jobs else '?'} "
                f"- {len(self.to_run)} to run, {sum(1 for j in self.jobs if j.stored)} stored, {len(self.skipped)} skipped")
        return head + "\n" + tabulate(rows, headers=["variant", "seed", "hash", "action"], tablefmt="simple")


def apply_overrides(profile: Profile, overrides: Dict[str, Any]) -> Profile:
    """The profile with ``set.<field>=value`` overrides applied, each converted to its field's type.

    Text values (from the command line) are converted by the field's type (harness/config.py); a value of
    the wrong type is a UsageError naming ``set.FIELD``, the value and what the field takes. Ranges are
    checked with the whole profile (``Profile.check``) when the plan is made.
    """
    from harness.config import convert
    from harness.rules import rule_for, shapes, show
    from variants import close_matches

    names = [f.name for f in dataclasses.fields(profile) if f.name not in ("name", "description")]
    for key in overrides:
        if key not in names:
            matches = close_matches(key, names)
            hint = f" Did you mean 'set.{matches[0]}'?" if matches else ""
            raise UsageError(f"Unknown profile setting 'set.{key}'.{hint} Settings of this suite: {', '.join(names)}.")
    if not overrides:
        return profile
    kinds = shapes(type(profile))
    values = {}
    for key, value in overrides.items():
        shape, rule = kinds[key], rule_for(type(profile), key)
        text = value if isinstance(value, str) else show(value)  # a caller in code may pass typed values
        value = convert(f"set.{key}", text, shape, rule, "Bad profile override")
        if shape.kind is float:
            value = [float(v) for v in value] if shape.is_list else float(value)
        values[key] = tuple(value) if shape.is_list else value
    return dataclasses.replace(profile, **values)


def job_hash(suite: Suite, spec: TransformerSpec, profile: Profile, seed: int, device: str, dtype: str, checksum: str) -> str:
    """Content hash of everything that determines a job's results."""
    return stable_hash({
        "suite": suite.name, "suite_version": suite.version, "spec": spec.to_dict(), "profile": profile.settings(),
        "seed": seed, "device": device.split(":")[0], "dtype": dtype, "data": checksum, "code": code_version(),
    })


def make_plan(suite: Suite, profile: Profile, variants: List[str], seeds: List[int], device: str, dtype: str,
              options: Dict[str, Any], store: ResultsStore) -> Plan:
    """Resolve every variant (raising on unknown or conflicting presets) and decide each job's fate."""
    suite.check(profile, options)  # every setting in range and the data large enough, before anything is built
    if getattr(profile, "cuda_graphs", False) and not device.startswith("cuda"):
        raise UsageError(f"set.cuda_graphs=true captures CUDA graphs, which need a CUDA device, and this run's device "
                         f"is {device}; give device=cuda, or leave set.cuda_graphs=false.")
    plan = Plan(suite, profile, options)
    checksum = suite.data_checksum(profile, options)
    torch_dtype = DTYPES[dtype]
    for variant in variants:
        spec = suite.spec_for(variant, profile, options)
        reasons = problems(spec, device.split(":")[0], torch_dtype, training=suite.trains)
        for seed in seeds:
            h = job_hash(suite, spec, profile, seed, device, dtype, checksum)
            job = Job(suite.name, variant, spec, profile, seed, device, dtype, checksum, h,
                      skip_reason="; ".join(reasons) or None)
            stored = store.find(suite.name, h)
            if stored is not None and not _failed(store, stored):
                job.stored = str(stored)
            plan.jobs.append(job)
    return plan


def _failed(store: ResultsStore, path) -> bool:
    """A stored job that failed (an exception, not a measured outcome) is retried."""
    return any(r.get("status") == "failed" for r in store.read_file(path))
