"""The verdict on Kaplan et al.'s "the context term is small" (attention_share.py): attention's share of a causal
block's forward time at every length with d_model > n / 12, and the crossover length against 12 d."""

from __future__ import annotations

import math

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.paired import MARGIN_SDS
from harness.suite_file import SuiteFile

(SHARE_CLAIM,) = SuiteFile.of(__file__).claims("attention_minor_at_moderate_length")
#: "minor": below half of the layer's time (this project's reading of Kaplan et al.'s "small")
HALF = 0.5


def share_rows(df: pd.DataFrame) -> pd.DataFrame:
    """One row per length of the first Transformer variant: time share, its bounds, FLOP and analytic shares."""
    rows = df[(df.metric == "attention_share") & (df.status == "ok")]
    if not len(rows):
        return pd.DataFrame()
    variant = sorted(rows.variant.unique())[0]
    rows = rows[rows.variant == variant].sort_values("x")
    out = []
    for r in rows.itertuples():
        e = r.extra
        spread = MARGIN_SDS * float(e.get("relative_sd", 0.0))
        out.append(
            {
                "variant": variant,
                "length": int(r.x),
                "n / d": float(e["n_over_d"]),
                "time share": float(r.value),
                "low": float(r.value) / (1 + spread),
                "high": float(r.value) * (1 + spread),
                "FLOP share": float(e["flops_share"]),
                "n / (12 d + n)": float(e["analytic_share"]),
            }
        )
    return pd.DataFrame(out)


def crossover(rows: pd.DataFrame) -> float | None:
    """The length where the time share reaches 1/2, interpolated in log length between the timed lengths around it;
    None if it never does within them."""
    pairs = list(zip(rows["length"], rows["time share"]))
    for (n0, s0), (n1, s1) in zip(pairs, pairs[1:]):
        if s0 < HALF <= s1:
            t = (HALF - s0) / (s1 - s0)
            return math.exp(math.log(n0) + t * (math.log(n1) - math.log(n0)))
    return float(pairs[0][0]) if pairs and pairs[0][1] >= HALF else None


def share_finding(df: pd.DataFrame) -> Finding:
    rows = share_rows(df)
    if not len(rows):
        return not_run(
            SHARE_CLAIM,
            "These records hold no timing of a Transformer block's attention core (sequence_cost from suite version 2 on).",
        )
    d = round(float(rows["length"].iloc[0] / rows["n / d"].iloc[0]))
    small = rows[rows["n / d"] < 12]  # d_model > n / 12
    labels = [
        "disagrees" if r.low >= HALF else "agrees" if r.high < HALF else "inconclusive" for r in small.itertuples()
    ]
    verdict = (
        "disagrees"
        if "disagrees" in labels
        else "agrees"
        if labels and all(v == "agrees" for v in labels)
        else "inconclusive"
    )
    longest = small.iloc[-1] if len(small) else rows.iloc[-1]
    cross = crossover(rows)
    listed = "; ".join(
        f"n = {int(r.length)} (n/d {r['n / d']:.2g}): {r['time share']:.0%} of the time, {r['FLOP share']:.0%} of the FLOPs"
        for _, r in rows.iterrows()
    )
    cross_text = (
        f"the time share reaches half at n = {cross:.0f}, against n = 12 d = {12 * d} for the FLOPs"
        if cross is not None
        else f"the time share stays below half at every length timed (the FLOPs' crossover is n = 12 d = {12 * d})"
    )
    sentence = (
        f"Attention's share of one causal block (d = {d}) by length: {listed}. At every length with d > n / 12 Kaplan "
        f"et al. call the context term small; {cross_text}."
    )
    cause = ""
    if verdict != "agrees":
        bad = [f"n = {int(r.length)}" for r, v in zip(small.itertuples(), labels) if v != "agrees"]
        cause = (
            f"at {', '.join(bad)} (d > n / 12) attention's share of the block's time is "
            f"{'at or above' if verdict == 'disagrees' else 'not clearly below'} half; {cross_text}."
        )
    estimate = Estimate(
        f"attention's share of the block's time at n = {int(longest.length)}",
        float(longest["time share"]),
        float(longest.low),
        float(longest.high),
        seeds=0,
        kind="count",
    )
    return finding(SHARE_CLAIM, verdict, sentence, [estimate], cause=cause, over_seeds=False, boundary=HALF)


def share_section(df: pd.DataFrame) -> list[str]:
    from harness.report import markdown_table

    rows = share_rows(df)
    if not len(rows):
        return []
    shown = rows.drop(columns=["variant", "low", "high"]).copy()
    for col in ("time share", "FLOP share", "n / (12 d + n)"):
        shown[col] = shown[col].map(lambda x: f"{x:.1%}")
    return [
        "## How much of a layer's compute is attention",
        "",
        f"The causal attention core of `{rows.variant.iloc[0]}` (softmax(q k^T) v, the block's own kernel and shapes) "
        "timed alone, as a share of the whole block's forward time, beside its share of the block's FLOPs "
        "(flop_counter, the causal half of the scores) and Kaplan et al.'s count n / (12 d + n).",
        "",
        markdown_table(shown),
        "",
    ]
