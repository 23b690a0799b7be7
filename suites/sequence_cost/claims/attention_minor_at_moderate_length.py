"""At moderate length attention is a minor share of a Transformer layer's compute (Kaplan et al. 2020): attention's
share of a causal block's forward time at every length with d_model > n / 12, and the crossover length against 12 d."""

from __future__ import annotations

import math

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import Verdict, all_hold
from suites.sequence_cost.claims._shared import Evidence, p_of
from suites.sequence_cost.share_table import share_rows

CLAIM = declared(__file__)
#: "minor": below half of the layer's time (this project's reading of Kaplan et al.'s "small")
HALF = 0.5
#: Kaplan et al.'s regime where the context term is small: d_model > n / 12 (section 2.1)
SMALL_N_OVER_D = 12


def judge(ev: Evidence) -> Finding:
    """Agrees when at every length with d_model > n / 12 the time share is below HALF (its 95% interval over the
    timing repeats wholly below, share_table.py); disagrees when at one of them the interval lies wholly above (the
    lengths held at 2.5% together: harness/paired.py ``all_hold``); else inconclusive."""
    rows = share_rows(ev.df)
    if not len(rows):
        return not_run(
            CLAIM,
            "These records hold no timing of a Transformer block's attention core (sequence_cost from suite version 2 on).",
        )
    d = round(float(rows["length"].iloc[0] / rows["n / d"].iloc[0]))
    small = rows[rows["n / d"] < SMALL_N_OVER_D]  # d_model > n / 12
    labels = [
        r.contrast.verdict(HALF, above=False) if r.contrast else Verdict("inconclusive") for r in small.itertuples()
    ]
    verdict = all_hold(labels) if labels else Verdict("inconclusive")
    # the length the verdict turns on: the first that fails, else the longest (the largest share) judged
    failing = [i for i, v in enumerate(labels) if v != "agrees"]
    longest = small.iloc[failing[0]] if failing else small.iloc[-1] if len(small) else rows.iloc[-1]
    cross = crossover(rows)
    listed = "; ".join(
        f"n = {int(r.length)} (n/d {r['n / d']:.2g}): {r['time share']:.0%} of the time"
        + (f" [{r.low:.0%}, {r.high:.0%}]" if r.contrast else "")
        + f", {r['FLOP share']:.0%} of the FLOPs"
        for _, r in rows.iterrows()
    )
    cross_text = (
        f"the time share reaches half at n = {cross:.0f}, against n = 12 d = {12 * d} for the FLOPs"
        if cross is not None
        else f"the time share stays below half at every length timed (the FLOPs' crossover is n = 12 d = {12 * d})"
    )
    sentence = (
        f"Attention's share of one causal block (d = {d}) by length, with its 95% interval over the timing repeats "
        f"(Student-t at their degrees of freedom): {listed}. At every length with d > n / 12 Kaplan et al. call the "
        f"context term small; {cross_text}."
    )
    cause = ""
    if verdict != "agrees":
        bad = [f"n = {int(r.length)}" for r, v in zip(small.itertuples(), labels) if v != "agrees"]
        cause = (
            f"at {', '.join(bad)} (d > n / 12) attention's share of the block's time is "
            f"{'above' if verdict == 'disagrees' else 'not clearly below'} half (its 95% interval over the timing "
            f"repeats); {cross_text}."
            if bad
            else f"no length timed has d > n / 12; {cross_text}."
        )
    label = f"attention's share of the block's time at n = {int(longest.length)}"
    c = longest.contrast
    estimate = (
        c.estimate(label, float(longest["time share"]), unit="") if c else Estimate(label, float(longest["time share"]))
    )
    return finding(CLAIM, verdict, sentence, [estimate], cause=cause, over_seeds=False, boundary=HALF, p=p_of(verdict))


def crossover(rows: pd.DataFrame) -> float | None:
    """The length where the time share reaches 1/2, interpolated in log length between the timed lengths around it;
    None if it never does within them."""
    pairs = list(zip(rows["length"], rows["time share"]))
    for (n0, s0), (n1, s1) in zip(pairs, pairs[1:]):
        if s0 < HALF <= s1:
            t = (HALF - s0) / (s1 - s0)
            return math.exp(math.log(n0) + t * (math.log(n1) - math.log(n0)))
    return float(pairs[0][0]) if pairs and pairs[0][1] >= HALF else None
