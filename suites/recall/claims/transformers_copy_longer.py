"""Transformers copy longer strings than LSTMs, minGRU and Mamba-2 at matched parameters (Jelassi et al. 2024): copy
token accuracy at the longest training length, paired over seeds; every pair must hold.

The longest length copied is a count, shown with its range over seeds."""

from __future__ import annotations

import dataclasses

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, cause_sentence, finding, not_run, unmet
from harness.paired import all_hold, directional, paired
from suites.recall.claims._shared import ACCURACY, Evidence, deciding, mean, says, scores
from suites.recall.tables import ATTENTION

CLAIM = declared(__file__)
#: the fixed-state models the copy claim puts against the Transformer (each where its records exist)
COPY_RIVALS = ("lstm", "mingru", "mamba2")


def _longest(df: pd.DataFrame, variant: str, threshold: float) -> dict[int, float]:
    """seed -> the longest in-distribution copy length whose token accuracy, and every shorter one's, reaches threshold."""
    rows = df[
        (df.metric == "token_accuracy") & (df.variant == variant) & (df.task == "copy") & (df.in_distribution == True)  # noqa: E712
    ]
    out = {}
    for seed, part in rows.groupby("seed"):
        longest = 0.0
        for x, v, st in sorted(zip(part.x, part.value, part.status)):
            if st != "ok" or v < threshold:
                break
            longest = float(x)
        out[int(seed)] = longest
    return out


def judge(ev: Evidence) -> Finding:
    """RoPE above each rival in copy token accuracy at n; not testable while RoPE has not learned copying at n."""
    df, s = ev.df, ev.s
    part = df[(df.metric == "token_accuracy") & (df.task == "copy")]
    rivals = [v for v in COPY_RIVALS if v in set(part.variant)]
    if not len(part) or ATTENTION not in set(part.variant) or not rivals:
        return not_run(CLAIM, "These records lack copy runs of the attention arm (rope) and of lstm, mingru or mamba2.")
    n, threshold = float(part.train_max.iloc[0]), s["learned_accuracy"]
    attention = scores(df, ATTENTION, "copy", n)
    gaps = [
        paired(
            f"{ATTENTION} - {v} copy token accuracy at length {int(n)}",
            attention,
            scores(df, v, "copy", n),
            bounds=ACCURACY,
        )
        for v in rivals
    ]
    verdicts = [directional(d, +1) for d in gaps]
    verdict = all_hold(verdicts)  # longer than LSTMs *and* minGRU: one reversed pair refutes it
    longest = {v: _longest(df, v, threshold) for v in [ATTENTION, *rivals]}
    text = (
        f"Copying strings of up to n = {int(n)} symbols (the training lengths): token accuracy at {int(n)} "
        + ", ".join(f"{v} {mean(scores(df, v, 'copy', n)):.2f}" for v in [ATTENTION, *rivals])
        + f"; longest length copied at token accuracy >= {threshold:g} (and every shorter one) per seed: "
        + "; ".join(f"{v} [{', '.join(f'{x:g}' for _, x in sorted(l.items()))}]" for v, l in longest.items())
        + ". Paired at length n: "
        + ", ".join(f"{d.estimate.label.split(' copy')[0]} {d.mean:+.2f} ({d.why()})" for d in gaps)
    )
    estimates = [d.estimate for d in gaps] + [
        Estimate.of(f"longest copied, {v}", list(l.values()), "symbols", "count") for v, l in longest.items()
    ]
    # a claim about what trained models can copy: an attention arm that has not learned copying at the training
    # lengths cannot refute it (a recurrent model that learns faster is not one that copies longer)
    if mean(attention) < threshold:
        return _unlearned(attention, n, threshold, text, estimates)
    causes = [
        f"the gap {d.estimate.label} is {d.mean:+.2f}, " + ("reversed" if v == "disagrees" else d.why())
        for d, v in zip(gaps, verdicts)
        if v != "agrees"
    ]
    return finding(
        CLAIM,
        verdict,
        f"{text}. This run {says(verdict)}.",
        estimates,
        cause=cause_sentence(verdict, causes),
        headline=deciding(gaps, verdicts),
        boundary=0.0,
    )


def _unlearned(attention: dict[int, float], n: float, threshold: float, text: str, estimates: list) -> Finding:
    """Not testable here: the attention arm has not learned copying at the training lengths."""
    found = unmet(
        CLAIM,
        f"{ATTENTION}'s token accuracy at n = {int(n)} is {mean(attention):.2f}, below the "
        f"{threshold:g} that counts as learned",
        f"a longer training or a learning-rate sweep of {ATTENTION} on copying until it copies the training lengths",
        [
            Estimate.of(
                f"{ATTENTION} copy token accuracy at length {int(n)}",
                list(attention.values()),
                kind="bounded",
                bounds=ACCURACY,
            )
        ]
        + estimates,
    )
    return dataclasses.replace(found, sentence=f"{text}. {found.sentence}", boundary=threshold)
