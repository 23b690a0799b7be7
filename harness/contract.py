"""The contract between the harness and a suite: Suite, Profile and Metric (harness/profile.py), Measurement,
JobContext, the outcomes Diverged and Unsupported, and the registry of suites.

A suite names what it compares (default variants), how much compute each comparison gets (profiles),
what it measures (metrics, each with a unit and a direction), how one job runs, and how its stored
records become a report. A suite is a package under ``suites/`` whose ``__init__`` imports its suite module,
which registers it in ``suites`` under the folder's name; on first lookup the registry imports each package
directly below ``suites`` (``suites/common`` registers nothing), so the harness never imports a suite itself.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from harness.profile import Metric, Profile
from variants import Registry

if TYPE_CHECKING:
    import pandas as pd

    from harness.findings import Claim, Finding
    from harness.report_sections import Report

__all__ = ["Diverged", "JobContext", "Measurement", "Metric", "Profile", "Suite", "TimesOnly", "Unsupported", "suites"]

suites: Registry[Suite] = Registry("suite", package="suites", list_command="bench list suites", scan="packages")


@dataclass
class Measurement:
    """One value a job measured, before the harness adds provenance to make it a record."""

    metric: str
    value: float | None
    x: float | None = None
    x_name: str | None = None
    status: str = "ok"
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class JobContext:
    """Handed to ``Suite.run_job``: where to run and a place to report job-level facts.

    ``facts`` collects values every record of the job should carry (parameter count, training
    settings actually used); the runner copies them into each record.
    """

    device: str = "cpu"
    dtype: torch.dtype = torch.float32
    progress: bool = True
    label: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    #: a folder next to the stored results where a job may keep trained weights for other jobs of the same
    #: training to reuse (suites/common/checkpoints.py); None keeps nothing
    checkpoint_dir: Path | None = None


class Unsupported(Exception):
    """A job that cannot run on this input or device; recorded with status ``unsupported``."""


class Diverged(Exception):
    """Training produced a non-finite or exploding loss; recorded with status ``diverged``."""


class Suite:
    """Base class of suites. Subclasses set the class attributes and implement run_job and report."""

    name: str = ""
    version: int = 1
    description: str = ""
    metrics: tuple[Metric, ...] = ()
    profiles: dict[str, Profile] = {}
    default_profile: str = "quick"
    default_variants: tuple[str, ...] = ()
    #: the default variants of one profile where they differ from ``default_variants`` (profile name -> variants)
    profile_variants: dict[str, tuple[str, ...]] = {}
    #: dtypes this suite can compute in (a training suite: float32 weights, lower precision through autocast;
    #: a cost suite: its tensors made in that dtype); ``dtype=auto`` picks one (bench/run/plan.py resolve_dtype)
    dtypes: tuple[str, ...] = ("float32",)
    #: whether jobs train (need a backward pass); a suite of forward passes only sets False
    trains: bool = True
    #: options a user may set on the command line (key -> allowed values; None = free text)
    options: dict[str, tuple[str, ...] | None] = {}
    #: the module that turns records into the report: write_report(suite, df, out_dir) (the verdicts come from the
    #: claim modules, harness/claims.py)
    report_module: str = ""

    def variants_for(self, profile: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        """The variants ``bench run`` runs on ``profile`` (with command-line ``options``) when none are given."""
        return tuple(self.profile_variants.get(profile, self.default_variants))

    def expand_variants(self, variants: list[str], profile: Profile) -> list[str]:
        """The variant expressions a run of ``variants`` plans, in order: each as given here; a suite whose job is one
        point of a sweep a variant stands for (the scaling suite's rungs) writes each variant as its points."""
        return list(variants)

    def metric(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)

    def base_spec(self, profile: Profile, options: dict[str, Any]):
        """The spec every variant expression is applied on top of (model size from the profile)."""
        raise NotImplementedError

    def resolved_profile(self, profile: Profile, options: dict[str, Any]) -> Profile:
        """The profile with command-line options that name one of its fields applied (protocol=...)."""
        names = {f.name for f in dataclasses.fields(profile)}
        updates = {k: v for k, v in options.items() if v is not None and k in names}
        return dataclasses.replace(profile, **updates) if updates else profile

    def spec_problems(self, spec: Any, profile: Profile) -> list[str]:
        """Why this suite's measurement cannot take ``spec`` on any machine (a model it builds but cannot measure),
        decided at planning so that such a variant exits 3 with its reason, as a kernel that cannot run it does."""
        return []

    def longest_sequence(self, profile: Profile) -> int | None:
        """The longest sequence, in positions, that a job of ``profile`` feeds a model (None: unknown); a sliding
        window longer than it is refused at planning. The default reads the length fields suites share."""
        from harness.footprint import longest_sequence

        return longest_sequence(profile)

    def check(self, profile: Profile, options: dict[str, Any]) -> None:
        """Every setting of ``profile`` within its rule and the data large enough for it, or a UsageError; no compute."""
        profile.check()
        self.check_data(profile, options)

    def check_data(self, profile: Profile, options: dict[str, Any]) -> None:
        """Raise a UsageError naming ``data`` when the corpus cannot feed this profile's training and evaluation."""

    def spec_for(self, variant: str, profile: Profile, options: dict[str, Any]):
        """The spec a variant expression stands for in this suite (default: presets on the base spec)."""
        from variants.spec import resolve

        return resolve(variant, self.base_spec(profile, options))

    def data_checksum(self, profile: Profile, options: dict[str, Any]) -> str:
        """A checksum of the data a job reads (part of its identity)."""
        return ""

    def run_job(self, spec, profile: Profile, seed: int, ctx: JobContext) -> list[Measurement]:
        """Train/measure one variant with one seed; raise Diverged/Unsupported for those outcomes."""
        raise NotImplementedError

    #: whether ``retime_job`` re-takes a job's timings without training (bench/run/retime.py)
    retimes = False

    def retime_job(self, spec, profile: Profile, seed: int, ctx: JobContext) -> list[Measurement]:
        """The job's timings taken again without training: each a Measurement as ``run_job`` records it (same metric,
        x and condition). A suite whose jobs only time (no training) re-runs its job; one that trains sets
        ``retimes`` and times the model of the same spec and seed, untrained (a timing depends on the shapes, not on
        the weights' values)."""
        raise NotImplementedError(f"suite {self.name} cannot re-time a job without running it again")

    def _reporter(self):
        """The suite's report module (``report_module``), imported on first use."""
        import importlib

        if not self.report_module:
            raise NotImplementedError(f"suite {self.name} names no report_module")
        return importlib.import_module(self.report_module)

    def report(self, records: pd.DataFrame, out_dir: Path) -> Report:
        """This suite's report of one group of stored records: its title block and typed sections (its figures
        written under ``out_dir``), which ``bench report`` lays out to lead with its answer (bench/report/layout.py):
        the suite's findings first as a Verdicts block, bookkeeping last."""
        return self._reporter().write_report(self, records, out_dir)

    @property
    def claims(self) -> tuple[Claim, ...]:
        """The published findings this suite tests, in its ``suite.yaml``'s order (each judged by its module
        ``claims/<key>.py``, harness/claims.py)."""
        from harness.claims import claims_of

        return claims_of(self)

    def vocabulary(self, record: dict[str, Any]) -> str | None:
        """The characters a job's model numbers its tokens by (the i-th as i + 1, 0 for one unseen in training), read
        from one of its records: the tokenizer ``bench export`` writes beside the model. None: the suite has none."""
        return None

    @property
    def probe_figures(self) -> dict[str, Any]:
        """The figures of probe runs this suite's claims cite, by ``<probe>.<figure>`` (its report module's
        ``PROBE_FIGURES``; harness/probes.py)."""
        from harness.claims import probe_figures

        return probe_figures(self)

    def findings(self, records: pd.DataFrame) -> list[Finding]:
        """One verdict per claim from one group of records, each from its claim module (harness/claims.py).

        A timing taken under another process's load (harness/timing.py ``contended``) judges nothing: its records
        are left out before the verdicts read the group, as every ranking leaves them out (the report still shows
        them, marked, with the command that re-takes them: ``bench run ... retime=true``); each verdict reads the
        group without them, as it reads a group missing those records."""
        if not self.claims:
            return []
        from harness.claims import judge_all
        from harness.findings import for_device
        from harness.timing import contended

        if len(records) and "extra" in records:
            records = records[[contended(e) is not True for e in records.extra]]
        device = str(records.iloc[0].get("device", "")) if len(records) else ""
        return [for_device(f, device) for f in judge_all(self, records)]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Defaults from where a suite is written: the class in ``suites/<name>/suite.py`` is named ``<name>``,
        reports through ``suites/<name>/report.py`` and is described by its own docstring, so a suite states
        these only where it departs from the layout."""
        super().__init_subclass__(**kwargs)
        package, _, module = cls.__module__.rpartition(".")
        root, _, folder = package.partition(".")
        if root != "suites" or module != "suite" or "." in folder:
            return
        own = cls.__dict__
        if "name" not in own:
            cls.name = folder
        if "report_module" not in own:
            cls.report_module = f"{package}.report"
        if "description" not in own:
            cls.description = own.get("__doc__") or ""


class TimesOnly:
    """A suite whose jobs train nothing (kv_cache, attention_cost, sequence_cost), so re-timing a job is running it
    again: every measurement is a timing or a fact beside it. Listed before ``Suite`` among the bases."""

    retimes = True

    def retime_job(self, spec, profile: Profile, seed: int, ctx: JobContext) -> list[Measurement]:
        return self.run_job(spec, profile, seed, ctx)
