"""The attention_heads verdicts: Clark et al. 2019's offset heads, delimiter heads and entropy across layers.

The kinds of estimate (harness/intervals.py): heads of a kind per model are counts, shown with their range over
seeds; a head's largest share of attention lies in [0, 1]; the lower-minus-upper-half entropy is a difference ("t").
"""

from __future__ import annotations

import math

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run
from harness.paired import combine_verdicts, directional, paired
from harness.report_kit import fmt_mean_ci, in_order
from harness.suite_file import SuiteFile
from suites.attention_heads.tables import (
    MIN_OFFSET,
    ORDER,
    SPECIALIST,
    _job_value,
    entropy_trends,
    heads_frame,
    specialists,
)
from suites.common.learning import learning_checks, usable

#: the published findings this suite tests, in the order its report states them (suite.yaml)
OFFSET_HEADS, DELIMITER_HEADS, ENTROPY_BY_LAYER = CLAIMS = SuiteFile.of(__file__).claims(
    "offset_heads", "delimiter_heads", "entropy_by_layer"
)


def findings(df: pd.DataFrame) -> list[Finding]:
    """This suite's verdicts on Clark et al.'s findings, from the variants that learned and did not memorise."""
    checks = learning_checks(df, "loss")
    kept, left_out = usable(checks)
    heads = heads_frame(df)
    heads = heads[heads.variant.isin(kept)]
    if not len(heads):
        why = "No model that learned has per-head records" + (f" ({left_out})" if left_out else "") + "."
        return [not_run(c, why) for c in CLAIMS]
    note = f" {left_out}" if left_out else ""
    table = specialists(heads, _job_value(df, "delimiter_base"))
    out = [
        _specialist_finding(OFFSET_HEADS, table, "offset", "max_offset_share", "fixed-offset", note),
        _specialist_finding(DELIMITER_HEADS, table, "delimiter", "max_delimiter_share", "delimiter", note),
    ]
    out.append(_trend_finding(entropy_trends(heads), note))
    return out


def _specialist_finding(claim: Claim, table: pd.DataFrame, column: str, largest: str, kind: str, note: str) -> Finding:
    """An existential claim ("some heads ..."), stated per model family (position encoding): a family has such heads
    when every seed's model has at least one, lacks them when no seed's has, is inconclusive in between. The claim
    agrees when some family has them (the sentence names which), disagrees when every family lacks them."""
    variants = in_order(table.variant.unique(), ORDER)
    per_family = {v: _family_verdict(table[table.variant == v][column]) for v in variants}
    estimates = [Estimate.of(f"{v} {kind} heads", table[table.variant == v][column], kind="count") for v in variants]
    counts = ", ".join(
        f"`{v}` {_seeds_with(table[table.variant == v][column])} "
        f"({fmt_mean_ci(table[table.variant == v][column], 1, 'count')} heads, largest share "
        f"{fmt_mean_ci(table[table.variant == v][largest], 2, 'bounded', (0, 1))})"
        for v in variants
    )
    told = (
        f"{kind.capitalize()} heads per model family (seeds with one; heads per model; largest {kind} share): {counts}."
    )
    if column == "offset":
        found = sorted({d for ds in table.offsets for d in ds})
        told += (
            f" A head counts when at least {SPECIALIST:.0%} of its attention goes to one offset d >= {MIN_OFFSET} "
            f"(d = 1: the previous token; the query itself, d = 0, does not count; a causal model has no next token)"
            + (f"; those found are at d = {', '.join(str(d) for d in found)}." if found else ".")
            + (
                f" Heads on the query itself, not counted: {int(table.self_heads.sum())} over all seeds."
                if "self_heads" in table and table.self_heads.sum()
                else ""
            )
        )
    # the family with the most such heads is the evidence for "some heads" (the headline of the verdict)
    most = max(
        range(len(estimates)),
        key=lambda i: -math.inf if math.isnan(estimates[i].value) else estimates[i].value,
        default=0,
    )
    have = [v for v in variants if per_family[v] == "agrees"]
    lack = [v for v in variants if per_family[v] == "disagrees"]
    named = lambda vs: ", ".join(f"`{v}`" for v in vs)  # noqa: E731
    if have:
        return finding(
            claim,
            "agrees",
            f"{told} Every seed's model of {named(have)} has one: this run **agrees** with "
            f"Clark et al. that some heads specialise in {kind.replace('-', ' ')}s"
            + (f" (in these families; {named(lack)} have none)." if lack else ".")
            + note,
            estimates,
            headline=most,
        )
    if len(lack) == len(variants):
        return finding(
            claim,
            "disagrees",
            f"{told} No family's model has one: this run **disagrees** with Clark et al." + note,
            estimates,
            cause=f"no model of any position encoding has a {kind} head.",
            headline=most,
        )
    some = [v for v in variants if per_family[v] == "inconclusive"]
    return finding(
        claim,
        "inconclusive",
        f"{told} No family has one in every seed ({named(some)} in some): **inconclusive**." + note,
        estimates,
        cause=f"{kind} heads appear in some seeds only ({named(some)}), in no family in every seed.",
        headline=most,
    )


def _family_verdict(counts: pd.Series) -> str:
    """Per seed the number of such heads: all seeds have one -> agrees, none -> disagrees, else inconclusive."""
    if len(counts) and (counts > 0).all():
        return "agrees"
    return "disagrees" if not (counts > 0).any() else "inconclusive"


def _seeds_with(counts: pd.Series) -> str:
    return f"{int((counts > 0).sum())} of {len(counts)}"


def _trend_finding(trends: pd.DataFrame, note: str) -> Finding:
    """Clark et al.'s direction, per model family: the lower half of the layers has the broader heads (higher mean
    entropy) than the upper half, paired over seeds (directional: counts when the paired interval excludes 0). Agrees when every family shows it; disagrees when none does and some shows the
    opposite; inconclusive otherwise (the cause names the families that differ)."""
    variants = in_order(trends.variant.unique(), ORDER)
    labels, estimates, described, diffs = {}, [], [], {}
    for v in variants:
        part = trends[trends.variant == v].set_index("seed")
        diff = paired(f"{v} lower - upper half entropy", part.lower_half.to_dict(), part.upper_half.to_dict(), "nats")
        diffs[v], labels[v] = diff, directional(diff, +1)
        estimates.append(diff.estimate)
        described.append(
            f"`{v}` {part.lowest.mean():.2f} -> {part.highest.mean():.2f} nats from the lowest to the highest "
            f"layer, lower half minus upper half {diff.mean:+.2f} nats ({diff.why()}: "
            + {"agrees": "broadest below", "disagrees": "broadest above", "inconclusive": "no direction"}[labels[v]]
            + ")"
        )
    # the family least in Clark et al.'s direction (the lowest lower - upper difference) decides the verdict
    least = min(
        range(len(estimates)),
        key=lambda i: math.inf if math.isnan(estimates[i].value) else estimates[i].value,
        default=0,
    )
    told = "Mean head entropy by model family: " + "; ".join(described) + "."
    verdict = combine_verdicts(list(labels.values()))
    below = [v for v in variants if labels[v] == "agrees"]
    above = [v for v in variants if labels[v] == "disagrees"]
    flat = [v for v in variants if labels[v] == "inconclusive"]
    named = lambda vs: ", ".join(f"`{v}`" for v in vs) or "none"  # noqa: E731
    clark = (
        f" Clark et al. found the broadest heads in the lower layers: here in {named(below)}; in the upper layers in "
        f"{named(above)}; no direction in {named(flat)}."
    )
    word = {
        "agrees": "**agrees**",
        "disagrees": "**disagrees**",
        "inconclusive": "is **inconclusive**",
        "not run": "has no verdict",
    }[verdict]
    cause = ""
    if verdict != "agrees":
        cause = (
            f"the direction depends on the position encoding: broadest heads below in {named(below)}, above in "
            f"{named(above)}, no direction in {named(flat)}."
            if below
            else f"no family has its broadest heads in the lower layers (above in {named(above)}, no direction in {named(flat)})."
        )
        if above and verdict == "inconclusive":
            # a family whose interval already shows the reverse direction: more seeds cannot make every family agree
            cause = (
                cause.rstrip(".") + f"; the reversal in {named(above)} excludes 0, so more seeds cannot make the "
                "claim hold in every family."
            )
    return finding(
        ENTROPY_BY_LAYER, verdict, f"{told}{clark} This run {word}." + note, estimates, cause=cause, headline=least
    )
