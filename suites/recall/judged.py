"""What the recall verdicts share: per-seed accuracies, their bounds, and the part a conjunction of pairs turns on.

Every comparison is one paired test over seeds (harness/paired.py): a difference counts when its 95% interval
excludes 0. No margin applies: a one-seed margin would have to be calibrated from the standard profile's per-seed
spread of the very quantity judged, and none is, so one seed gives no verdict. A claim made of several pairs
(attention above each fixed-state model; a ranking) holds only if every pair holds (``all_hold``), and its
headline is the pair the verdict turns on (``deciding``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from harness.paired import Difference

#: the bounds of a token accuracy: its estimates and the paired gaps between two accuracies keep to them
#: (harness/intervals.py "bounded"; a gap lies within [-1, 1])
ACCURACY = (0.0, 1.0)


def scores(df: pd.DataFrame, variant: str, task: str, size: float) -> dict[int, float]:
    """seed -> token accuracy, a diverged training at 0 (an outcome, not a gap)."""
    rows = df[(df.metric == "token_accuracy") & (df.variant == variant) & (df.task == task) & (df.x == size)]
    return {int(seed): (float(v) if st == "ok" else 0.0) for seed, v, st in zip(rows.seed, rows.value, rows.status)}


def mean(values: dict[int, float]) -> float:
    vals = list(values.values())
    return sum(vals) / len(vals) if vals else float("nan")


def says(verdict: str) -> str:
    """'agrees', 'disagrees' or 'is inconclusive', for 'This run ...'."""
    return {"agrees": "agrees", "disagrees": "disagrees"}.get(verdict, "is inconclusive")


def deciding(diffs: Sequence[Difference], verdicts: Sequence[str]) -> int:
    """The position of the part a conjunction's verdict turns on: the first that disagrees; else the least decided
    of those that are inconclusive (the smallest |estimate| against its interval's half-width: the one more seeds
    would resolve last); else, all agreeing, the one whose interval comes nearest 0."""
    if not diffs:
        return 0
    if "disagrees" in verdicts:
        return list(verdicts).index("disagrees")
    undecided = [i for i, v in enumerate(verdicts) if v != "agrees"]
    if undecided:
        return min(undecided, key=lambda i: _decidedness(diffs[i]))
    return min(range(len(diffs)), key=lambda i: _nearest_zero(diffs[i]))


def _decidedness(d: Difference) -> float:
    e = d.estimate
    if e.low is None or e.high is None or math.isnan(e.value):
        return -1.0  # no interval (one seed, no verdict): as undecided as a part can be
    half = (e.high - e.low) / 2
    return abs(e.value) / half if half > 0 else math.inf


def _nearest_zero(d: Difference) -> float:
    e = d.estimate
    if e.low is None or e.high is None:
        return abs(e.value)
    return min(abs(e.low), abs(e.high))
