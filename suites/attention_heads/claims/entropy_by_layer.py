"""The broadest (highest-entropy) heads are in the lower layers (Clark et al. 2019, section 3.3): per position
encoding, the lower half's mean head entropy against the upper half's, paired over seeds."""

from __future__ import annotations

import math

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import Difference, Verdict, combine_verdicts, directional, paired
from harness.report_kit import in_order
from suites.attention_heads.claims._shared import Evidence
from suites.attention_heads.tables import ORDER

CLAIM = declared(__file__)
#: what each family's direction says in a sentence
DIRECTION = {"agrees": "broadest below", "disagrees": "broadest above", "inconclusive": "no direction"}


def rule(diffs: list[Difference]) -> Verdict:
    """Every family's lower half broader than its upper half: each family's paired difference directional (+1),
    combined as replicates (``combine_verdicts``: agrees when all agree; disagrees when none agrees and a reversal
    survives the families held at 2.5% together, Holm)."""
    return combine_verdicts([directional(d, +1) for d in diffs])


def judge(ev: Evidence) -> Finding:
    """Clark et al.'s direction, per model family: the lower half of the layers has the broader heads (higher mean
    entropy) than the upper half, paired over seeds (directional: counts when the paired interval excludes 0).
    Agrees when every family shows it; disagrees when none does and some shows the opposite; inconclusive otherwise
    (the cause names the families that differ)."""
    if ev.why_not:
        return not_run(CLAIM, ev.why_not)
    trends = ev.trends
    variants = in_order(trends.variant.unique(), ORDER)
    labels, estimates, described, diffs = {}, [], [], []
    for v in variants:
        part = trends[trends.variant == v].set_index("seed")
        diff = paired(f"{v} lower - upper half entropy", part.lower_half.to_dict(), part.upper_half.to_dict(), "nats")
        diffs.append(diff)
        labels[v] = directional(diff, +1)
        estimates.append(diff.estimate)
        described.append(
            f"`{v}` {part.lowest.mean():.2f} -> {part.highest.mean():.2f} nats from the lowest to the highest "
            f"layer, lower half minus upper half {diff.mean:+.2f} nats ({diff.why()}: {DIRECTION[labels[v]]})"
        )
    # the family least in Clark et al.'s direction (the lowest lower - upper difference) decides the verdict
    least = min(
        range(len(estimates)),
        key=lambda i: math.inf if math.isnan(estimates[i].value) else estimates[i].value,
        default=0,
    )
    verdict = rule(diffs)
    below, above, flat = ([v for v in variants if labels[v] == k] for k in DIRECTION)
    clark = (
        f" Clark et al. found the broadest heads in the lower layers: here in {_named(below)}; in the upper layers in "
        f"{_named(above)}; no direction in {_named(flat)}."
    )
    word = {
        "agrees": "**agrees**",
        "disagrees": "**disagrees**",
        "inconclusive": "is **inconclusive**",
        "not run": "has no verdict",
    }[verdict]
    told = "Mean head entropy by model family: " + "; ".join(described) + "."
    return finding(
        CLAIM,
        verdict,
        f"{told}{clark} This run {word}." + ev.note,
        estimates,
        cause=_cause(verdict, below, above, flat),
        headline=least,
    )


def _cause(verdict: str, below: list[str], above: list[str], flat: list[str]) -> str:
    """Which families differ from Clark et al.'s direction ('' when every family shows it)."""
    if verdict == "agrees":
        return ""
    cause = (
        f"the direction depends on the position encoding: broadest heads below in {_named(below)}, above in "
        f"{_named(above)}, no direction in {_named(flat)}."
        if below
        else f"no family has its broadest heads in the lower layers (above in {_named(above)}, no direction in "
        f"{_named(flat)})."
    )
    if above and verdict == "inconclusive":
        # a family whose interval already shows the reverse direction: more seeds cannot make every family agree
        cause = (
            cause.rstrip(".") + f"; the reversal in {_named(above)} excludes 0, so more seeds cannot make the "
            "claim hold in every family."
        )
    return cause


def _named(variants: list[str]) -> str:
    return ", ".join(f"`{v}`" for v in variants) or "none"
