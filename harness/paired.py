"""Verdict rules over seeds: a paired, magnitude-aware comparison of two arms, and the verdicts it supports.

A suite compares two arms (a variant against its baseline, a run with warm-up against one without) on the
same seeds. ``paired`` takes each arm's per-seed values, keeps the seeds both have, and returns a
``Difference``: the mean of the per-seed differences a - b with the 95% interval that fits it
(harness/intervals.py): Student-t for a difference of unbounded quantities, the t interval kept within
[low - high, high - low] for a difference of bounded ones (``bounds=``: two BLEUs differ by at most 100), and for a
relative change (``relative=True``) the log-scale interval of the per-seed ratios a / b, which stays above -100%.
A difference *counts* when

- its interval excludes zero, or
- it exceeds the seed spread: the two arms' per-seed ranges do not overlap (every seed of one arm is beyond
  every seed of the other), with at least two seeds, or
- with a declared ``margin`` (a threshold set from known noise, e.g. a timing's 10%), its size exceeds it.

Otherwise it is inconclusive. The three verdicts that follow from it:

- ``directional(diff, expected)``: the claim says a - b has the sign ``expected``; agrees when the difference
  counts in that direction, disagrees when it counts the other way, inconclusive when it does not count.
- ``equivalent(diff, tolerance)``: the claim says the arms are alike; agrees when the whole interval (or, with
  one seed, the value) lies within +-tolerance, whether or not it excludes zero (two one-sided tests: a real
  difference smaller than the tolerance is still "alike"), disagrees when it counts beyond the tolerance,
  inconclusive otherwise.
- ``not_worse(diff, margin)``: the claim says a costs at most ``margin`` against b, a - b > 0 being worse (a
  one-sided test of non-inferiority); agrees when the interval's upper end (or, with one seed, the value) is
  within the margin, whether a is better or not, disagrees when the difference counts beyond it, inconclusive
  otherwise.
- ``all_hold``: a claim of several parts that must all hold; disagrees as soon as one part does.
- ``combine_verdicts``: several comparisons of one claim (one per family or setting): agrees only when all
  agree; disagrees only when all that count disagree; otherwise inconclusive.

A collapsed run (diverged, or stuck at the unigram loss) is an outcome, never a missing value: a suite
passes its collapse value (the loss it stalled at, or the loss of predicting the unigram distribution) as
that seed's value, so the comparison sees it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple

from harness.findings import Estimate
from harness.intervals import difference_bounds


@dataclass(frozen=True)
class Difference:
    """The paired difference a - b over the seeds both arms have, and whether it counts."""

    estimate: Estimate
    a: Tuple[float, ...]
    b: Tuple[float, ...]
    margin: Optional[float] = None

    @property
    def mean(self) -> float:
        return self.estimate.value

    @property
    def seeds(self) -> int:
        return len(self.a)

    @property
    def interval_excludes_zero(self) -> bool:
        e = self.estimate
        return e.low is not None and e.high is not None and (e.low > 0 or e.high < 0)

    @property
    def ranges_separate(self) -> bool:
        """Every seed of one arm beyond every seed of the other (needs two seeds)."""
        if len(self.a) < 2:
            return False
        return min(self.a) > max(self.b) or max(self.a) < min(self.b)

    @property
    def beyond_margin(self) -> bool:
        return self.margin is not None and not math.isnan(self.mean) and abs(self.mean) > self.margin

    @property
    def counts(self) -> bool:
        """Whether the difference is real: interval excludes 0, or it exceeds the seed spread or the margin."""
        if math.isnan(self.mean):
            return False
        return self.interval_excludes_zero or self.ranges_separate or self.beyond_margin

    @property
    def sign(self) -> int:
        return 0 if math.isnan(self.mean) or self.mean == 0 else (1 if self.mean > 0 else -1)

    def why(self) -> str:
        """Why it counts or not, in words ('the interval excludes 0', 'inside the seed spread')."""
        if math.isnan(self.mean):
            return "no paired seeds"
        if self.interval_excludes_zero:
            return "its 95% interval excludes 0"
        if self.ranges_separate:
            return "the arms' per-seed ranges do not overlap"
        if self.beyond_margin:
            return f"it exceeds the margin {self.margin:g}"
        if self.seeds < 2:
            return ("one seed, inside the margin " + f"{self.margin:g}" if self.margin is not None
                    else "one seed and no margin to judge it by")
        return "its 95% interval includes 0 and the arms' seed ranges overlap"


def paired(label: str, a: Mapping[int, float], b: Mapping[int, float], unit: str = "",
           margin: Optional[float] = None, relative: bool = False,
           bounds: Optional[Tuple[float, float]] = None) -> Difference:
    """The paired difference a - b over the seeds (keys) both have; ``relative``: (a - b) / b per seed, in %, for
    positive arms; ``bounds``: the (low, high) each arm's values lie within, which the difference's interval keeps to.

    Values that are None or NaN are dropped with their seed (a suite passes a collapse as its value, not NaN).
    """
    if relative and bounds is not None:
        raise ValueError("paired: relative=True is a change of positive arms; bounds= is for a difference a - b, not both")
    seeds = sorted(s for s in a if s in b and _finite(a[s]) and _finite(b[s]))
    xa = tuple(float(a[s]) for s in seeds)
    xb = tuple(float(b[s]) for s in seeds)
    if relative and all(x > 0 for x in xa + xb):
        # the interval is of the per-seed ratios on a log scale; the seed-spread test still compares the raw arms
        return Difference(Estimate.change(label, [x / y for x, y in zip(xa, xb)], unit or "%"), xa, xb, margin)
    if relative:
        # an arm at or below 0 has no ratio's logarithm: the per-seed relative change with its Student-t interval
        diffs = [100.0 * (x - y) / y for x, y in zip(xa, xb)]
        return Difference(Estimate.of(label, diffs, unit or "%"), xa, xb, margin)
    diffs = [x - y for x, y in zip(xa, xb)]
    if bounds is None:
        return Difference(Estimate.of(label, diffs, unit), xa, xb, margin)
    return Difference(Estimate.of(label, diffs, unit, "bounded", difference_bounds(bounds)), xa, xb, margin)


def directional(diff: Difference, expected: int) -> str:
    """The verdict on 'a - b has sign ``expected``' (+1: a is larger; -1: a is smaller)."""
    if not diff.counts:
        return "inconclusive"
    return "agrees" if diff.sign == expected else "disagrees"


def equivalent(diff: Difference, tolerance: float) -> str:
    """The verdict on 'a and b are alike', within +-``tolerance`` in the difference's unit."""
    e = diff.estimate
    if math.isnan(e.value):
        return "inconclusive"
    low, high = (e.low, e.high) if e.low is not None else (e.value, e.value)
    if diff.counts and abs(e.value) > tolerance:
        return "disagrees"
    if -tolerance <= low and high <= tolerance:
        return "agrees"
    return "inconclusive"


def not_worse(diff: Difference, margin: float) -> str:
    """The verdict on 'a is worse than b by at most ``margin``' (in the difference's unit; a - b > 0 is worse)."""
    e = diff.estimate
    if math.isnan(e.value):
        return "inconclusive"
    high = e.high if e.high is not None else e.value
    if diff.counts and e.value > margin:
        return "disagrees"
    return "agrees" if high <= margin else "inconclusive"


def combine_verdicts(verdicts: Sequence[str]) -> str:
    """One verdict from several comparisons of one claim: all agree -> agrees; none agrees and some disagree ->
    disagrees; otherwise inconclusive ('not run' when there are none)."""
    verdicts = [v for v in verdicts if v != "not run"]
    if not verdicts:
        return "not run"
    if all(v == "agrees" for v in verdicts):
        return "agrees"
    if "agrees" not in verdicts and "disagrees" in verdicts:
        return "disagrees"
    return "inconclusive"


def all_hold(verdicts: Sequence[str]) -> str:
    """One verdict on a claim made of several parts that must all hold (ALiBi flat *and* sinusoidal rising; GQA keeps
    quality *and* MQA loses): disagrees when any part disagrees, agrees when every part agrees, otherwise inconclusive
    ('not run' with no part). Unlike ``combine_verdicts``, one failing part is enough to refute the conjunction."""
    verdicts = [v for v in verdicts if v != "not run"]
    if not verdicts:
        return "not run"
    if "disagrees" in verdicts:
        return "disagrees"
    return "agrees" if all(v == "agrees" for v in verdicts) else "inconclusive"


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(float(x))


__all__ = ["Difference", "paired", "directional", "equivalent", "not_worse", "combine_verdicts", "all_hold"]
