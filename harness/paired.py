"""Verdict rules over seeds: a paired, magnitude-aware comparison of two arms, and the verdicts it supports.

A suite compares two arms (a variant against its baseline, a run with warm-up against one without) on the
same seeds. ``paired`` takes each arm's per-seed values, keeps the seeds both have, and returns a
``Difference``: the mean of the per-seed differences a - b with the 95% interval that fits it
(harness/intervals.py): Student-t for a difference of unbounded quantities, the t interval kept within
[low - high, high - low] for a difference of bounded ones (``bounds=``: two BLEUs differ by at most 100), and for a
relative change (``relative=True``) the log-scale interval of the per-seed ratios a / b, which stays above -100%.
A difference *counts* on one paired test, whatever the rule's shape:

- with two or more seeds, when its 95% interval excludes zero: the paired t test at level 5% two-sided, on the
  per-seed differences (bounded quantities) or on the per-seed log ratios (``relative=True``, positive quantities).
  Its size is what it says: under null noise it counts 5% of the time (tests/unit/harness/test_rule_size.py simulates it).
  No range test, no margin: a declared ``margin`` is ignored at two seeds or more.
- with one seed, only beyond a declared ``margin`` calibrated from the standard profile's per-seed spread *of the
  quantity being judged* (at least ``MARGIN_SDS`` standard deviations, ``one_seed_margin``); with no calibrated
  margin one seed gives no verdict ("1 seed: no verdict").

Otherwise it is inconclusive. The verdicts that follow from it:

- ``directional(diff, expected)``: the claim says a - b has the sign ``expected``; agrees when the difference
  counts in that direction, disagrees when it counts the other way, inconclusive when it does not count.
- ``equivalent(diff, tolerance)``: the claim says the arms are alike; agrees when the whole interval (one seed:
  the value widened by its calibrated margin) lies within +-tolerance, whether or not it excludes zero (two one-sided
  tests: a real difference smaller than the tolerance is still "alike"), disagrees when it lies wholly beyond the
  tolerance, inconclusive otherwise.
- ``not_worse(diff, margin)``: the claim says a costs at most ``margin`` against b, a - b > 0 being worse (a
  one-sided test of non-inferiority); agrees when the interval's upper end (one seed: the value plus its calibrated
  margin) is within the margin, whether a is better or not, disagrees when its lower end is beyond the margin,
  inconclusive otherwise.
- ``all_hold``: a claim of several parts that must all hold; disagrees as soon as one part does.
- ``combine_verdicts``: several replicates of one claim (one per family or setting of a claim that should hold
  in each): agrees only when all agree; disagrees only when all that count disagree; otherwise inconclusive.
  A ranking or any claim that is the conjunction of its pairs is ``all_hold`` instead: one reversed pair refutes it.

A collapsed run (diverged, or stuck at the unigram loss) is an outcome, never a missing value: a suite
passes its collapse value (the loss it stalled at, or the loss of predicting the unigram distribution) as
that seed's value, so the comparison sees it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.estimate import Estimate
from harness.intervals import difference_bounds

#: a one-seed margin is at least this many standard deviations of the quantity's per-seed spread (2.8 sd: a single
#: seed of null noise beyond it about 0.5% of the time under a normal model)
MARGIN_SDS = 2.8
#: what a comparison of one seed without a calibrated margin says
NO_VERDICT = "1 seed: no verdict"


@dataclass(frozen=True)
class Difference:
    """The paired difference a - b over the seeds both arms have, and whether it counts."""

    estimate: Estimate
    a: tuple[float, ...]
    b: tuple[float, ...]
    margin: float | None = None

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
    def one_seed(self) -> bool:
        return self.seeds == 1

    @property
    def beyond_margin(self) -> bool:
        """One seed beyond its calibrated margin (a margin never applies at two seeds or more)."""
        return self.one_seed and self.margin is not None and not math.isnan(self.mean) and abs(self.mean) > self.margin

    @property
    def no_verdict(self) -> bool:
        """One seed and no calibrated margin to judge it by: no verdict either way."""
        return self.one_seed and self.margin is None

    @property
    def counts(self) -> bool:
        """Whether the difference is real: its paired 95% interval excludes 0 (one seed: beyond its margin)."""
        if math.isnan(self.mean):
            return False
        return self.beyond_margin if self.one_seed else self.interval_excludes_zero

    @property
    def sign(self) -> int:
        return 0 if math.isnan(self.mean) or self.mean == 0 else (1 if self.mean > 0 else -1)

    def ends(self) -> tuple[float, float]:
        """(low, high) the verdicts compare with a threshold: the interval's ends, or with one seed the value
        widened by its calibrated margin (NaN without one: no verdict)."""
        e = self.estimate
        if not self.one_seed:
            return (e.low, e.high) if e.low is not None else (e.value, e.value)
        if self.margin is None:
            return (math.nan, math.nan)
        return (e.value - self.margin, e.value + self.margin)

    def why(self) -> str:
        """Why it counts or not, in words ('its 95% interval excludes 0', '1 seed: no verdict')."""
        if math.isnan(self.mean):
            return "no paired seeds"
        if self.one_seed:
            if self.margin is None:
                return NO_VERDICT
            return (
                f"one seed, beyond its calibrated margin {self.margin:g}"
                if self.beyond_margin
                else f"one seed, inside its calibrated margin {self.margin:g}"
            )
        if self.interval_excludes_zero:
            return "its 95% interval excludes 0"
        return "its 95% interval includes 0"


def paired(
    label: str,
    a: Mapping[int, float],
    b: Mapping[int, float],
    unit: str = "",
    margin: float | None = None,
    relative: bool = False,
    bounds: tuple[float, float] | None = None,
) -> Difference:
    """The paired difference a - b over the seeds (keys) both have; ``relative``: (a - b) / b per seed, in %, for
    positive arms; ``bounds``: the (low, high) each arm's values lie within, which the difference's interval keeps to.

    Values that are None or NaN are dropped with their seed (a suite passes a collapse as its value, not NaN).
    """
    if relative and bounds is not None:
        raise ValueError(
            "paired: relative=True is a change of positive arms; bounds= is for a difference a - b, not both"
        )
    seeds = sorted(s for s in a if s in b and _finite(a[s]) and _finite(b[s]))
    xa = tuple(float(a[s]) for s in seeds)
    xb = tuple(float(b[s]) for s in seeds)
    if relative and all(x > 0 for x in xa + xb):
        # the paired t test on the per-seed log ratios: the interval of the ratios on a log scale
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
    """The verdict on 'a and b are alike', within +-``tolerance`` in the difference's unit (two one-sided tests:
    the whole interval inside; it disagrees when the interval lies wholly beyond the tolerance)."""
    low, high = diff.ends()
    if math.isnan(diff.mean) or math.isnan(low):
        return "inconclusive"
    if low > tolerance or high < -tolerance:
        return "disagrees"
    if -tolerance <= low and high <= tolerance:
        return "agrees"
    return "inconclusive"


def not_worse(diff: Difference, margin: float) -> str:
    """The verdict on 'a is worse than b by at most ``margin``' (in the difference's unit; a - b > 0 is worse):
    agrees when the interval's upper end is within the margin, disagrees when its lower end is beyond it."""
    low, high = diff.ends()
    if math.isnan(diff.mean) or math.isnan(low):
        return "inconclusive"
    if low > margin:
        return "disagrees"
    return "agrees" if high <= margin else "inconclusive"


def one_seed_margin(per_seed: Sequence[float], at_least: float = 0.0) -> float:
    """The margin one seed of a quantity must exceed to count: MARGIN_SDS times the sample sd of that quantity's
    per-seed values in the standard profile (``per_seed``: at least three), or ``at_least`` if larger."""
    vals = [float(v) for v in per_seed if v is not None and math.isfinite(float(v))]
    if len(vals) < 3:
        raise ValueError(f"one_seed_margin needs the standard profile's values of at least 3 seeds, got {len(vals)}")
    mean = sum(vals) / len(vals)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
    return max(MARGIN_SDS * sd, at_least)


def combine_verdicts(verdicts: Sequence[str]) -> str:
    """One verdict from several replicates of one claim (never the pairs of a ranking: ``all_hold``): all agree -> agrees; none agrees and some disagree ->
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


__all__ = [
    "Difference",
    "paired",
    "directional",
    "equivalent",
    "not_worse",
    "combine_verdicts",
    "all_hold",
    "one_seed_margin",
    "MARGIN_SDS",
    "NO_VERDICT",
]
