"""Transformers copy longer strings than LSTMs, minGRU and Mamba-2 at matched parameters (Jelassi et al. 2024): copy
token accuracy at the longest training length, paired over seeds; every rival judged must be below the Transformer.

The claim is about strings that outgrow a fixed state: Jelassi et al.'s recurrent models fail "once the string
outgrows their fixed state", while a Transformer's cache grows with the string. Its precondition (suite.yaml), about
the setting and declared before the results: the longest training string outgrows the rival's state. The measure
compares the string's length in symbols with the rival's state in numbers (what it keeps per sequence, from its spec:
suites/recall/models.state_numbers): a state of S numbers holds at most S symbols when each number holds one symbol,
the densest code a trained state is credited with here. Counting bits instead (Jelassi et al.'s bound: S x 32 bits at
float32 against n log2(alphabet) bits) puts the limit past 2,000 symbols even for the LSTM's 308 numbers, a bound on
any code, not on what training finds. A rival whose state the string does not outgrow is shown, not judged; with none
outgrown the claim is not testable here, whatever the gaps. The attention arm's own accuracy is part of the claim's
predicted outcome, so it is judged, never a precondition.

The longest length copied is a count, shown with its range over seeds."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, not_run, unmet
from harness.paired import directional, paired
from suites.recall.claims._shared import ACCURACY, Evidence, Part, conjunction, mean, scores, state_of, why
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
    """RoPE above each rival whose state the longest training string outgrows; not testable where it outgrows none."""
    df, s = ev.df, ev.s
    part = df[(df.metric == "token_accuracy") & (df.task == "copy")]
    rivals = [v for v in COPY_RIVALS if v in set(part.variant)]
    if not len(part) or ATTENTION not in set(part.variant) or not rivals:
        return not_run(CLAIM, "These records lack copy runs of the attention arm (rope) and of lstm, mingru or mamba2.")
    n, threshold = float(part.train_max.iloc[0]), s["learned_accuracy"]
    alphabet = int(s.get("copy_alphabet") or 0)
    # a copy sequence: the string, a delimiter and the string again; a fixed state's size does not depend on it
    states = {v: state_of(df, v, int(2 * n + 1)) for v in rivals}
    if all(size is None for size in states.values()):
        return not_run(CLAIM, "These records lack the rivals' specs, from which their states are counted.")
    outgrown = [v for v in rivals if states[v] is not None and n > states[v]]
    attention = scores(df, ATTENTION, "copy", n)
    parts = []
    for v in rivals:
        diff = paired(
            f"{ATTENTION} - {v} copy token accuracy at length {int(n)}",
            attention,
            scores(df, v, "copy", n),
            bounds=ACCURACY,
        )
        parts.append(Part(diff, directional(diff, +1)))
    longest = {v: _longest(df, v, threshold) for v in [ATTENTION, *rivals]}
    bits = f"; {int(n)} x log2 {alphabet} = {n * math.log2(alphabet):.0f} bits" if alphabet > 1 else ""
    text = (
        f"Copying strings of up to n = {int(n)} symbols (the training lengths{bits}) against each rival's state, "
        "counted in numbers kept per sequence: "
        + ", ".join(f"{v} {states[v]:,}" if states[v] is not None else f"{v} not recorded" for v in rivals)
        + f". Token accuracy at {int(n)}: "
        + ", ".join(f"{v} {mean(scores(df, v, 'copy', n)):.2f}" for v in [ATTENTION, *rivals])
        + f"; longest length copied at token accuracy >= {threshold:g} (and every shorter one) per seed: "
        + "; ".join(f"{v} [{', '.join(f'{x:g}' for _, x in sorted(l.items()))}]" for v, l in longest.items())
        + "."
    )
    counts = [Estimate.of(f"longest copied, {v}", list(l.values()), "symbols", "count") for v, l in longest.items()]
    judged = [p for v, p in zip(rivals, parts) if v in outgrown]
    shown = [p for v, p in zip(rivals, parts) if v not in outgrown]
    shown_text = (
        " Shown, not judged (the string does not outgrow the rival's state): "
        + ", ".join(f"{p.diff.estimate.label.split(' copy')[0]} {p.diff.mean:+.2f} ({why(p)})" for p in shown)
        + "."
        if shown
        else ""
    )
    if not judged:
        return _fits(n, rivals, states, text + shown_text, [p.diff.estimate for p in parts] + counts, len(attention))
    judged_text = " Judged, paired at length n: " + ", ".join(
        f"{p.diff.estimate.label.split(' copy')[0]} {p.diff.mean:+.2f} ({why(p)})" for p in judged
    )
    return conjunction(CLAIM, f"{text}{judged_text}.{shown_text}", judged, [p.diff.estimate for p in shown] + counts)


def _fits(n: float, rivals: list[str], states: dict, text: str, estimates: list, seeds: int) -> Finding:
    """Not testable here: the longest training string fits in every rival's state."""
    known = sorted((states[v], v) for v in rivals if states[v] is not None)
    smallest, first = known[0]
    found = unmet(
        CLAIM,
        f"the longest training string, {int(n)} symbols, outgrows none of the rivals' states ("
        + ", ".join(f"{v} {size:,} numbers" for size, v in known)
        + ", counting one symbol per number)",
        "training copy lengths n beyond each rival's state at these widths: "
        + ", ".join(f"n > {size:,} for {v}" for size, v in known)
        + "; or rivals with smaller states at this n",
        [
            Estimate(
                f"copy training length n (against {first}'s state of {smallest:,} numbers)", n, unit="symbols", seeds=0
            )
        ]
        + estimates,
        seeds=seeds,
    )
    return dataclasses.replace(found, sentence=f"{text} {found.sentence}", boundary=float(smallest))
