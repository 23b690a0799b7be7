"""Clipping the gradient norm keeps SGD stable at large learning rates (Pascanu, Mikolov & Bengio 2013): the runs
diverged per seed, clipped against unclipped over every variant and learning rate, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import directional, paired
from suites.gradient_flow.claims._shared import Evidence, says

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """Clipping the gradient norm leaves fewer large-learning-rate SGD runs diverged, paired over seeds."""
    counts, learned_below = ev.diverged, ev.learned_below
    if not counts.get("clipped") or not counts.get("unclipped"):
        return not_run(CLAIM)
    runs = max(
        list(counts.get("clipped runs", {}).values()) + list(counts.get("unclipped runs", {}).values()), default=0
    )
    diff = paired(
        "runs diverged per seed, clipped - unclipped",
        counts["clipped"],
        counts["unclipped"],
        "runs",
        bounds=(0, runs) if runs > 0 else None,
    )
    verdict = directional(diff, -1)
    total = {k: int(sum(v.values())) for k, v in counts.items()}
    text = (
        f"Clipping (SGD): {total['clipped']} of {total['clipped runs']} clipped runs diverged and "
        f"{total['clipped learned']} learned the task (final loss below {learned_below:.2f} nats, half the chance "
        f"loss), against {total['unclipped']} diverged and {total['unclipped learned']} learned of "
        f"{total['unclipped runs']} unclipped; paired over {diff.seeds} seed(s), clipping changes the divergences by "
        f"{diff.mean:+.1f} per seed ({diff.why()}): this run {says(verdict)} clipping keeping large-learning-rate "
        "training stable."
    )
    cause = (
        ""
        if verdict == "agrees"
        else (
            f"Clipped and unclipped runs diverge alike at these learning rates ({diff.why()})."
            if verdict == "inconclusive"
            else "More clipped runs than unclipped ones diverged at these learning rates."
        )
    )
    return finding(
        CLAIM,
        verdict,
        text,
        [
            diff.estimate,
            Estimate.of("clipped runs diverged per seed", list(counts["clipped"].values()), "runs", "count"),
            Estimate.of("unclipped", list(counts["unclipped"].values()), "runs", "count"),
        ],
        cause=cause,
        headline=0,
        boundary=0.0,
    )
