"""Dense attention fails past the training length (Xiao et al. 2023, StreamingLLM, figure 3): perplexity from twice
the training length on against sliding-window recomputation's, paired over the trained models."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import paired
from suites.streaming.claims._shared import Evidence, fails, interval, mean_of, per_model

CLAIM = declared(__file__)
#: dense attention fails when its perplexity exceeds recomputation's by more than this (%), the whole 95% interval
#: beyond it (this project's choice: the source's dense perplexity "explodes" past the pre-training window, figure 3,
#: by orders of magnitude)
FAILS = 10.0


def judge(ev: Evidence) -> Finding:
    """The full cache with the text's positions against recomputation past 2 L, on the models without a sink token."""
    if not ev.streamed:
        return not_run(CLAIM)
    df = ev.plain
    full, recompute = (per_model(df, "ppl_past_training", p) for p in ("full", "recompute"))
    if not (full and recompute):
        return not_run(CLAIM)
    worse = paired("full Δ ppl vs recompute", full, recompute, relative=True)
    verdict = fails(worse, FAILS)
    first = df[df.metric == "ppl_past_training"].extra.iloc[0].get("from_position")
    text = (
        f"Dense attention from position {first} on (twice the training length): "
        f"{mean_of(df, 'ppl_past_training', 'full'):.3f} against recomputation's "
        f"{mean_of(df, 'ppl_past_training', 'recompute'):.3f}, {interval(worse)} paired over {worse.seeds} trained "
        "models (seeds); this run "
        + {
            "agrees": "agrees that dense attention fails past the training length.",
            "disagrees": f"disagrees: dense attention's loss there is within +{FAILS:g}%.",
            "inconclusive": "is inconclusive.",
        }[verdict]
    )
    cause = (
        ""
        if verdict == "agrees"
        else f"Dense attention's {worse.mean:+.1f}% rests on one trained model: no verdict."
        if worse.no_verdict
        else f"Dense attention's {interval(worse)} is not a failure that clears +{FAILS:g}%."
    )
    return finding(CLAIM, verdict, text, [worse.estimate], cause=cause, headline=0, boundary=FAILS)
