"""What became of each job of a ``bench run``, the summary printed at its end, and its exit status.

A job that raised is ``failed``: the run exits 1 so that scripts and CI notice. A job that diverged, ran
out of memory, or found its variant unsupported has a measured outcome: it is a result, recorded with its
reason, and leaves the exit status 0. Skipped jobs (impossible specs) are listed with their reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

#: job statuses from worst to best: a job with several statuses among its records takes the first found
SEVERITY = ("failed", "oom", "diverged", "unsupported", "skipped", "ok")
#: statuses that are results, not failures (the words the summary says about them)
RESULTS = {
    "diverged": "a result, recorded with its reason; not a failure",
    "oom": "a result (out of memory), recorded with its reason; not a failure",
    "unsupported": "a result, recorded with its reason; not a failure",
    "skipped": "not run: the spec is impossible here",
}


def job_status(statuses: Iterable[str]) -> str:
    """One status for a job from its records' statuses: ok when some value was measured and nothing failed."""
    found = set(statuses)
    if "ok" in found and found <= {"ok", "unsupported", "skipped"}:
        return "ok"  # cases the job itself skipped or found unsupported are recorded outcomes
    return next((s for s in SEVERITY if s in found), sorted(found)[0] if found else "failed")


@dataclass
class Outcome:
    """One job's fate: its label, the status of its stored records, how it was settled, and why."""

    label: str
    status: str
    #: ran (trained here), skipped (its skip recorded here), stored (by an earlier run), shared (stored by
    #: this run under another name of the same spec), elsewhere (stored by another process meanwhile)
    how: str
    reason: str | None = None
    #: the job of the same spec this one shares its record with, or the process that ran it
    other: str | None = None


@dataclass
class RunSummary:
    """Every job's outcome, in plan order."""

    outcomes: list[Outcome] = field(default_factory=list)
    #: this process is one of the workers of a sweep (bench/run/workers.py)
    worker: bool = False

    def add(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def exit_status(self) -> int:
        """1 when any job of the run ends failed, else 0."""
        return 1 if self.failed else 0

    def counts(self) -> dict[str, int]:
        """Jobs trained here per status, then the others per way they were settled."""
        counts: dict[str, int] = {}
        for o in self.outcomes:
            key = o.status if o.how == "ran" else o.how
            counts[key] = counts.get(key, 0) + 1
        return counts

    def lines(self) -> list[str]:
        """The summary: a count line, then each job that did not simply succeed, and what its outcome means."""
        counts = self.counts()
        order = ("ok", "failed", "oom", "diverged", "unsupported", "skipped", "stored", "shared", "elsewhere")
        head = ", ".join(f"{counts[k]} {COUNT_WORDS.get(k, k)}" for k in order if k in counts)
        lines = [f"{'Worker done' if self.worker else 'Done'}: {head or 'nothing to run'}."]
        for status in SEVERITY[:-1]:
            jobs = [o for o in self.outcomes if o.status == status]
            if jobs:
                lines.append(f"{status} ({RESULTS.get(status, FAILED_WORDS)}):")
                lines += [f"  {o.label}: {o.reason or '-'}" + (f" ({_how(o)})" if _how(o) else "") for o in jobs]
        others = [o for o in self.outcomes if o.status == "ok" and o.how in ("shared", "elsewhere")]
        if self.worker:  # the jobs of the other workers are theirs to report
            others = [o for o in others if o.how != "elsewhere"]
        if others:
            lines.append("not trained here:")
            lines += [f"  {o.label}: {_how(o)}" for o in others]
        return lines


COUNT_WORDS = {
    "stored": "stored before (not rerun)",
    "shared": "same spec as another name (one record, both names)",
    "elsewhere": "run by another process",
}
FAILED_WORDS = "an error; the run exits with status 1 and a rerun retries it"


def _how(o: Outcome) -> str:
    """How a job not trained by this run got its record."""
    if o.how == "shared":
        return f"same spec as {o.other}, one record under both names"
    if o.how == "elsewhere":
        return "stored by another process during this run"
    if o.how == "stored":
        return "stored before"
    return ""
