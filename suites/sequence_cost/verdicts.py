"""The sequence_cost verdict: whether recurrence leaves the device idle while attention keeps it busy.

Its estimates, a layer's share of the matmul peak, lie in [0, 100] % ("bounded", harness/intervals.py), each
seed's value from medians over timing repeats; the verdict compares them by a ratio margin (AGREE_RATIO,
DISAGREE_RATIO), not by the spread over seeds, so a run of one seed is not marked indicative.
"""

from __future__ import annotations

import math
from typing import List

import pandas as pd

from harness.suite_file import SuiteFile
from harness.findings import Estimate, Finding, finding, not_run, not_testable
from suites.sequence_cost.scan import SCAN, scan_finding
from suites.sequence_cost.tables import _frame, shares

#: the published findings this suite tests, in the order its report states them (suite.yaml)
UTILISATION, = SuiteFile.of(__file__).claims("recurrence_idles_device")
CLAIMS = (UTILISATION, SCAN)
#: the quoted figures (% of peak)
QUOTED_RECURRENT, QUOTED_ATTENTION = 30.0, 70.0
#: verdict on a GPU: attention's share at least AGREE_RATIO x recurrence's agrees (the quoted 70% against 30% is 2.3x);
#: below DISAGREE_RATIO x disagrees (a 25% margin over equal shares, above one seed's timing noise of a few %)
AGREE_RATIO, DISAGREE_RATIO = 2.0, 1.25
#: what would test the claim where the device is not a GPU
WOULD_TEST = "a CUDA device: bench run suite=sequence_cost profile=large device=cuda"


def findings(df: pd.DataFrame) -> List[Finding]:
    """The utilisation verdict, then minGRU's parallel scan against the sequential GRU (suites/sequence_cost/scan.py)."""
    if "pass" not in df:
        df = _frame(df)
    return _utilisation(df) + [scan_finding(df)]


def _utilisation(df: pd.DataFrame) -> List[Finding]:
    """On a GPU: agrees when the attention layer's share of the matmul peak is at least AGREE_RATIO x the best
    recurrent layer's at the longest length both were timed (forward+backward when measured, else forward);
    disagrees below DISAGREE_RATIO x; inconclusive between. Elsewhere not testable here (a GPU claim), with the
    shares measured kept as estimates."""
    if "pass" not in df:
        df = _frame(df)
    device = str(df.iloc[0].device).split(":")[0] if len(df) else "?"
    measured = [p for p in ("fwd+bwd", "fwd") if shares(df, p)[0] is not None]
    if not measured:
        return [not_run(UTILISATION, "These records lack a recurrent and an attention layer timed at a common length.")]
    parts, verdicts, estimates = [], [], []
    for pass_ in measured:
        x, rec, att = shares(df, pass_)
        best_rec = max(rec, key=rec.get)
        best_att = max(att, key=att.get)
        ratio = att[best_att] / rec[best_rec] if rec[best_rec] > 0 else math.inf
        verdicts.append("agrees" if ratio >= AGREE_RATIO else "disagrees" if ratio < DISAGREE_RATIO else "inconclusive")
        estimates += [Estimate.of(f"{pass_} {v} % of peak", _seed_values(df, v, pass_, x), "%", "bounded", (0, 100))
                      for v in (best_att, best_rec)]
        parts.append(f"{pass_} at {int(x)} tokens: `{best_att}` {att[best_att]:.0f}% of the matmul peak against "
                     + ", ".join(f"`{v}` {s:.0f}%" for v, s in sorted(rec.items(), key=lambda kv: -kv[1]))
                     + f" ({ratio:.1f}x the busiest recurrent layer)")
    if device != "cuda":
        x, rec, att = shares(df, measured[0])
        best_rec, best_att = max(rec, key=rec.get), max(att, key=att.get)
        return [not_testable(UTILISATION, f"the claim is about GPUs, whose thousands of cores a recurrent layer's one step "
                             f"per token leaves idle, while on this {device} `{best_rec}` keeps its few cores about as busy "
                             f"as `{best_att}` ({measured[0]} at {int(x)} tokens: {rec[best_rec]:.0f}% of the matmul peak "
                             f"against {att[best_att]:.0f}%)", WOULD_TEST, estimates)]
    primary = verdicts[0]
    quoted = (f"the quoted ~{QUOTED_RECURRENT:.0f}% against {QUOTED_ATTENTION:.0f}%+ is for GPUs" if device == "cpu"
              else f"quoted: ~{QUOTED_RECURRENT:.0f}% against {QUOTED_ATTENTION:.0f}%+")
    word = {"agrees": "**agrees**: attention keeps the device at least "
                      f"{AGREE_RATIO:g}x as busy as recurrence",
            "disagrees": f"**disagrees**: recurrence keeps this {device} about as busy as attention or busier "
                         f"(attention's share is under {DISAGREE_RATIO:g}x the busiest recurrent layer's)",
            "inconclusive": f"is **inconclusive**: attention is busier, but by less than {AGREE_RATIO:g}x"}[primary]
    sentence = (f"On this {device} ({quoted}): " + "; ".join(parts) + f". Judged on {measured[0]}, this run {word}.")
    cause = {"agrees": "", "disagrees": f"the busiest recurrent layer reaches over 1/{DISAGREE_RATIO:g} of attention's "
                                        f"share of the matmul peak on this {device}.",
             "inconclusive": f"attention is busier than recurrence by less than {AGREE_RATIO:g}x."}[primary]
    return [finding(UTILISATION, primary, sentence, estimates, cause=cause, over_seeds=False)]


def _seed_values(df: pd.DataFrame, variant: str, pass_: str, x: float) -> List[float]:
    rows = df[(df.metric == "peak_fraction") & (df.status == "ok") & (df.variant == variant) & (df["pass"] == pass_)
              & (df.x == x)]
    return [float(v) for v in rows.value]
