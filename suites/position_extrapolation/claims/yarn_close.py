"""YaRN has lower perplexity at 4L than PI and NTK-aware without fine-tuning (Peng et al. 2023), its alpha and beta
chosen on validation text at 4L, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import all_hold
from suites.position_extrapolation.claims._shared import (
    Evidence,
    change,
    lower,
    mistuned,
    params,
    ppl,
    said,
    says,
    short_of_holm,
    unjudged,
)
from suites.position_extrapolation.tuning import JUDGED_MULTIPLIER

CLAIM = declared(__file__)
#: the scalings YaRN is compared with, each where the run has it
RIVALS = ("pi", "ntk")


def judge(ev: Evidence) -> Finding:
    """YaRN at JUDGED_MULTIPLIER x L (where its alpha and beta were chosen) against PI and NTK-aware there: lower than
    each, paired over seeds (all_hold); records whose free parameters were chosen at another length cannot judge it."""
    blocked = unjudged(ev, CLAIM, "yarn")
    if blocked is not None:
        return blocked
    by_name = ev.by_name
    if "yarn" not in by_name:
        return not_run(CLAIM)
    J = JUDGED_MULTIPLIER
    v = by_name["yarn"]
    at4 = ppl(ev, v, J)
    if not at4:
        return not_run(CLAIM, f"`{v}`: no perplexity at {J}L.")
    diffs = [change(f"{v} ppl({J}L) vs {by_name[o]}", at4, ppl(ev, by_name[o], J)) for o in RIVALS if o in by_name]
    diffs = [d for d in diffs if d.seeds]
    if not diffs:
        return not_run(CLAIM, f"`{v}`: no PI or NTK-aware perplexity at {J}L to compare with.")
    words = [lower(d) for d in diffs]
    word = all_hold(words)
    why_not = mistuned(ev, [v] + [by_name[o] for o in RIVALS if o in by_name])
    word = "inconclusive" if why_not else word
    parts = "; ".join(f"against `{_rival(d)}` {said(d)}" for d in diffs)
    sentence = f"YaRN (`{v}`{params(ev.ok, v)}): ppl({J}L) {parts}; {says(word)} (lower than each, paired over seeds)."
    failed = [(d, w) for d, w in zip(diffs, words) if w != "agrees"]
    cause = (
        ""
        if word == "agrees"
        else "; ".join(
            f"YaRN's ppl({J}L) is {said(d)} against `{_rival(d)}` ({'higher' if w == 'disagrees' else d.why()})"
            for d, w in failed
        )
        + short_of_holm(word, words)
        + "."
    )
    if why_not:
        cause = why_not
    # the comparison closest to failing (the highest of YaRN's changes) decides "lower than each"
    closest = max(range(len(diffs)), key=lambda i: diffs[i].estimate.value)
    return finding(
        CLAIM,
        word,
        sentence,
        [d.estimate for d in diffs],
        cause=cause,
        headline=closest,
        boundary=0.0,
        over_seeds=not why_not,
    )


def _rival(diff) -> str:
    """The variant YaRN is compared with in ``diff``, from its label ('rope+yarn ppl(4L) vs rope+pi')."""
    return diff.estimate.label.split(" vs ")[1]
