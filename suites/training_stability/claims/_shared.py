"""What training_stability's claims share: Xiong et al. 2020's setting, the records split into the W^2 probe and the
training grid's outcomes, and the sentence parts every verdict writes.

Each is paired over seeds and magnitude-aware (harness/paired.py). Every run counts: a collapse (diverged, or
stuck at the unigram loss) is the outcome these claims are about, so it enters at its loss (a diverged run at
the unigram loss), never left out (outcomes.py).

The kinds of estimate (harness/intervals.py): last/first gradient ratios are positive ("log"), their logs and the
warm-up costs' differences unbounded ("t"); collapsed runs per seed are counts, shown with their range over seeds,
and their paired difference keeps within +-(runs per seed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from harness.paired import Difference
from suites.training_stability.init_probe import METRIC as W2_METRIC
from suites.training_stability.outcomes import outcomes
from suites.training_stability.tables import _expand

PUBLISHED = (
    "Xiong et al. 2020 (arXiv 2002.04745): Post-LN on IWSLT14 De-En with Adam reaches BLEU 8.45 without warm-up and "
    "~34 with 4000 warm-up steps (31.16 with 500 warm-up steps at lr 5e-4, but 2.77 at lr 1e-3), while Pre-LN trains "
    "without warm-up; at initialisation the FFN weights' gradient norm grows with layer index for Post-LN and is "
    "roughly flat for Pre-LN."
)


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the W^2 gradient probe's finished records
    probe: pd.DataFrame
    #: each training run's outcome (outcomes.py), keyed (variant, depth, warm-up, seed)
    out: dict
    #: the corpus's unigram loss, nats/char: where a collapsed run ends
    unigram: float


def prepare(df: pd.DataFrame) -> Evidence:
    probe = df[(df.metric == W2_METRIC) & (df.status == "ok")]
    df = df[df.metric != W2_METRIC]  # the training grid's records
    first = df.iloc[0] if len(df) else probe.iloc[0]
    unigram = float(first.get("unigram_loss", float("nan")))
    runs = _expand(df[df.metric == "heldout_loss"], "depth", "warmup")
    return Evidence(probe, outcomes(runs, unigram) if len(runs) else {}, unigram)


def mean(values: dict[int, float]) -> float:
    return sum(values.values()) / len(values) if values else math.nan


def seeds(values: dict[int, float], fmt: str = "{:.2f}") -> str:
    return "[" + ", ".join(fmt.format(v) for _, v in sorted(values.items())) + "]"


def interval(d: Difference, fmt: str = "{:+.2f}") -> str:
    e = d.estimate
    if math.isnan(e.value):
        return "no paired seeds"
    return (
        fmt.format(e.value)
        + (f" [{fmt.format(e.low)}, {fmt.format(e.high)}]" if e.low is not None else "")
        + f" (n={d.seeds}; {d.why()})"
    )


def said(verdict: str) -> str:
    return {"agrees": "agrees", "disagrees": "disagrees", "inconclusive": "is inconclusive"}.get(verdict, verdict)
