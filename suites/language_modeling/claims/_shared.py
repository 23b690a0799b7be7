"""What language_modeling's claims read: the per-variant summary of every run and of the runs that learned, and the
interval text, paired changes and conjunction rule they share.

Every comparison is paired over seeds (harness/paired.py): the per-seed relative change of a variant's held-out
perplexity against its reference's, whose interval is the log-scale interval of the per-seed perplexity ratios
(harness/intervals.py: perplexities are positive, so it stays above -100%). Two kinds of claim, two ways with runs
that learned nothing:

- claims about the *quality of trained models* (the scorings, GQA/MQA) compare only variants that learned and did
  not memorise (suites/common/learning.py): a model that learned nothing says nothing about its design's quality;
- the *trainability* claim (Post-LN without a long warm-up) is about whether a model trains at all, so a collapsed
  run is its outcome: it enters at its perplexity (a diverged run at exp(unigram entropy)), never left out.

The scorings, GQA and Post-LN claims are judged only where the baseline learned (``unjudged``): Pre-LN is also
the trainability claim's control, so without it no claim is tested.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from harness.findings import Claim, Estimate, Finding, finding, not_run
from harness.paired import Difference, paired
from suites.common.learning import LearningCheck, learning_checks, usable
from suites.language_modeling.summary import Summary


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the records of the group
    df: pd.DataFrame
    #: every variant that ran
    everyone: Summary
    #: the variants that learned and did not memorise (None where the baseline is not among them)
    learned: Summary | None
    #: variant -> whether its model learned and did not memorise
    checks: dict[str, LearningCheck]
    #: the variants that learned and did not memorise
    kept: list[str]


def prepare(df: pd.DataFrame) -> Evidence:
    everyone = Summary(df)
    checks = learning_checks(df, "loss", float(df.iloc[0].profile_settings["train_len"]))
    kept = usable(checks)[0]
    learned = Summary(df[df.variant.isin(kept)]) if everyone.baseline in kept else None
    return Evidence(df, everyone, learned, checks, kept)


def unjudged(ev: Evidence, claim: Claim) -> Finding | None:
    """The finding of a claim (scorings, GQA, Post-LN) where the baseline did not learn or has no perplexity: no
    variant can be compared with it; None where it can."""
    s, checks = ev.everyone, ev.checks
    if s.baseline not in ev.kept:
        why = checks[s.baseline].reason() if s.baseline in checks else "did not run"
        sentence = f"No verdict: the baseline `{s.baseline}` {why}, so no variant can be compared with it."
        if s.baseline not in checks:
            return not_run(claim, sentence)
        return finding(claim, "inconclusive", sentence, cause=f"the baseline {why}.")
    if ev.learned is None or math.isnan(ev.learned.mean_ppl(ev.learned.baseline)):
        return not_run(claim, "This run has no baseline perplexity, so it cannot be compared with the literature.")
    return None


def diff(s: Summary, v: str, label: str, values=None, ref_values=None) -> Difference:
    """The paired per-seed relative change (%) of v's perplexity against its reference's."""
    ref = s.reference.get(v)
    a = s.ppl.get(v, {}) if values is None else values
    b = s.ppl.get(ref, {}) if ref_values is None else ref_values
    return paired(f"{label} Δ ppl vs {ref or 'its reference'}", a, b, relative=True)


def interval(d: Difference, unpaired: bool = True) -> str:
    """'+1.2% [+0.4, +2.0] (n=3)'; 'no paired seeds' where the arms share none (``unpaired``: else the NaN shows)."""
    e = d.estimate
    if unpaired and math.isnan(e.value):
        return "no paired seeds"
    inside = f" [{e.low:+.1f}, {e.high:+.1f}]" if e.low is not None else ""
    return f"{e.value:+.1f}%{inside} (n={d.seeds})"


def unlearned(s: Summary, everyone: Summary, family: str) -> list[str]:
    """Variants of a family that ran but are left out of the quality verdicts (did not learn or memorised)."""
    return sorted(v for v, f in everyone.family.items() if f == family and v not in s.family)


def left_out_text(names: list[str]) -> str:
    return "no verdict, as " + ", ".join(f"`{v}`" for v in names) + " did not learn or memorised (see above)."


def said(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees", "inconclusive": "is inconclusive on whether"}.get(
        verdict, verdict
    )


def edge(d: Difference, tolerance: float) -> float:
    """The side of an equivalence's ±tolerance its interval must clear: the one nearer the estimate."""
    return tolerance if d.estimate.value >= 0 else -tolerance


#: one part of a conjunction: (its verdict, a harness.paired.Verdict carrying its one-sided p-values; its estimate;
#: the boundary its interval must clear; the side of the boundary the claim expects: +1 above, -1 below, None for
#: an equivalence)
Part = tuple[str, Estimate, float, int | None]


def _p(verdict: str, side: str) -> float:
    """A part's one-sided p-value ``side`` ('p_for' or 'p_against'), NaN where it carries none."""
    return getattr(verdict, side, math.nan)


def _wrong_side(e: Estimate, boundary: float, expected: int | None) -> bool:
    return expected is not None and (e.value - boundary) * expected < 0


def deciding(parts: Sequence[Part]) -> int:
    """The index of the part a conjunction's verdict turns on: the refuted part with the strongest evidence against
    the claim (the smallest one-sided p against it); else the first undecided part whose estimate lies on the wrong
    side of its boundary (more seeds would rather refute it); else the undecided part with the weakest evidence for
    the claim (the largest one-sided p for it: the farthest from agreeing); else (every part agrees) the first. The
    measured estimate never stands in for the true effect: no part is chosen by the seeds it would need."""
    refuted = [i for i, (verdict, *_) in enumerate(parts) if verdict == "disagrees"]
    if refuted:
        return min(refuted, key=lambda i: (_or_inf(_p(parts[i][0], "p_against")), i))
    for i, (verdict, e, b, expected) in enumerate(parts):
        if verdict != "agrees" and _wrong_side(e, b, expected):
            return i
    open_parts = [i for i, (verdict, *_) in enumerate(parts) if verdict != "agrees"]
    if not open_parts:
        return 0
    # a part with no p (one seed, no verdict) has no evidence for the claim at all: it is the farthest
    return max(open_parts, key=lambda i: (_or_inf(_p(parts[i][0], "p_for")), -i))


def _or_inf(p: float) -> float:
    return math.inf if math.isnan(p) else p
