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
  quantity being judged* (``one_seed_margin``: the 95% prediction bound t(0.975, n - 1) * sd * sqrt(arms), which
  carries the uncertainty of an sd estimated from a few seeds); with no calibrated margin one seed gives no
  verdict ("1 seed: no verdict").

Otherwise it is inconclusive. Every rule returns a ``Verdict``: its word, with the one-sided p-values of the test for
and against the claim (harness/pvalues.py reads them back from the interval, so word and p never disagree). The rules:

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
- ``reaches(estimate, threshold)``: the claim says a mean is at least (or at most) a bar; a one-sided test against
  the bar, never "the mean is below it" (which says "disagrees" half the time at a true mean on the bar).
- ``all_hold``: a claim of several parts that must all hold (a ranking, a conjunction); agrees when every part
  agrees, disagrees when a part refutes it with the parts' p-values held at 2.5% together (Holm), so k null parts
  say "disagrees" no more often than one test.
- ``combine_verdicts``: several replicates of one claim (one per family or setting of a claim that should hold
  in each): agrees only when all agree; disagrees only when none agrees and a replicate refutes it, held at 2.5%
  together as ``all_hold`` holds its parts; otherwise inconclusive.

tests/unit/harness/test_rule_sizes.py simulates each rule's size under the null.

A collapsed run (diverged, or stuck at the unigram loss) is an outcome, never a missing value: a suite
passes its collapse value (the loss it stalled at, or the loss of predicting the unigram distribution) as
that seed's value, so the comparison sees it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness import pvalues
from harness.estimate import Estimate
from harness.intervals import difference_bounds, t_quantile

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

    def p_value(self, boundary: float = 0.0) -> float:
        """The two-sided p-value of the paired t test of the difference against ``boundary`` (NaN at one seed)."""
        return pvalues.two_sided(self.estimate, boundary) if not self.one_seed else math.nan

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


class Verdict(str):
    """A verdict word ("agrees", "disagrees", "inconclusive", ...) that carries the one-sided p-values of its test:
    ``p_for`` of the evidence for the claim, ``p_against`` of the evidence against it (NaN where the rule has no
    test: one seed judged by its margin, a verdict typed by hand). It equals its word, so it reads as one."""

    p_for: float
    p_against: float

    def __new__(cls, word: str, p_for: float = math.nan, p_against: float = math.nan) -> Verdict:
        self = super().__new__(cls, str(word))
        self.p_for, self.p_against = float(p_for), float(p_against)
        return self

    @property
    def p(self) -> float:
        """The two-sided p-value of whichever direction the evidence leans (decided at 5% when below 0.05)."""
        if math.isnan(self.p_for) or math.isnan(self.p_against):
            return math.nan
        return min(1.0, 2.0 * min(self.p_for, self.p_against))


def p_against(verdict: str) -> float:
    """The one-sided p-value against the claim a verdict carries; a plain word has none (NaN)."""
    return getattr(verdict, "p_against", math.nan)


def _tested(diff: Difference) -> bool:
    return not diff.one_seed and not math.isnan(diff.mean) and diff.estimate.low is not None


def directional(diff: Difference, expected: int) -> Verdict:
    """The verdict on 'a - b has sign ``expected``' (+1: a is larger; -1: a is smaller)."""
    p_for = p_back = math.nan
    if _tested(diff):
        up, down = pvalues.above(diff.estimate), pvalues.below(diff.estimate)
        p_for, p_back = (up, down) if expected > 0 else (down, up)
    if not diff.counts:
        return Verdict("inconclusive", p_for, p_back)
    return Verdict("agrees" if diff.sign == expected else "disagrees", p_for, p_back)


def equivalent(diff: Difference, tolerance: float) -> Verdict:
    """The verdict on 'a and b are alike', within +-``tolerance`` in the difference's unit (two one-sided tests:
    the whole interval inside; it disagrees when the interval lies wholly beyond the tolerance)."""
    low, high = diff.ends()
    p_for = p_back = math.nan
    if _tested(diff):
        e = diff.estimate
        p_for = max(pvalues.below(e, tolerance), pvalues.above(e, -tolerance))
        p_back = min(pvalues.above(e, tolerance), pvalues.below(e, -tolerance))
    if math.isnan(diff.mean) or math.isnan(low):
        return Verdict("inconclusive", p_for, p_back)
    if low > tolerance or high < -tolerance:
        return Verdict("disagrees", p_for, p_back)
    if -tolerance <= low and high <= tolerance:
        return Verdict("agrees", p_for, p_back)
    return Verdict("inconclusive", p_for, p_back)


def not_worse(diff: Difference, margin: float) -> Verdict:
    """The verdict on 'a is worse than b by at most ``margin``' (in the difference's unit; a - b > 0 is worse):
    agrees when the interval's upper end is within the margin, disagrees when its lower end is beyond it."""
    low, high = diff.ends()
    p_for = p_back = math.nan
    if _tested(diff):
        p_for, p_back = pvalues.below(diff.estimate, margin), pvalues.above(diff.estimate, margin)
    if math.isnan(diff.mean) or math.isnan(low):
        return Verdict("inconclusive", p_for, p_back)
    if low > margin:
        return Verdict("disagrees", p_for, p_back)
    return Verdict("agrees" if high <= margin else "inconclusive", p_for, p_back)


def reaches(estimate: Estimate, threshold: float, above: bool = True) -> Verdict:
    """The verdict on 'the true mean is at least ``threshold``' (``above=False``: at most), a one-sided test of the
    mean over seeds against the threshold: agrees when the 95% interval lies wholly on the claimed side, disagrees
    when wholly on the other, otherwise inconclusive. A mean just below a bar is not evidence against it: at a true
    mean exactly on the bar each verdict is reached 2.5% of the time (tests/unit/harness/test_rule_size.py)."""
    if estimate is None or math.isnan(estimate.value):
        return Verdict("not run")
    if estimate.low is None or estimate.high is None:
        return Verdict("inconclusive")
    up, down = pvalues.above(estimate, threshold), pvalues.below(estimate, threshold)
    p_for, p_back = (up, down) if above else (down, up)
    low, high = estimate.low, estimate.high
    on_side = low > threshold if above else high < threshold
    off_side = high < threshold if above else low > threshold
    return Verdict("agrees" if on_side else "disagrees" if off_side else "inconclusive", p_for, p_back)


def one_seed_margin(per_seed: Sequence[float], at_least: float = 0.0, arms: int = 1) -> float:
    """The margin one seed of a quantity must exceed to count: the 95% prediction bound of one new seed of null
    noise, t(0.975, n - 1) * sd * sqrt(``arms``), from the sample sd of that quantity's per-seed values in the
    standard profile (``per_seed``: at least three), or ``at_least`` if larger.

    The t quantile carries the uncertainty of an sd estimated from n seeds (a fixed 2.8 sd counts null noise 10.6%
    of the time at n = 3); ``arms=2`` where the one-seed quantity judged is a difference of two one-seed arms and
    ``per_seed`` is one arm's spread (the difference's sd is sqrt 2 times it)."""
    vals = [float(v) for v in per_seed if v is not None and math.isfinite(float(v))]
    if len(vals) < 3:
        raise ValueError(f"one_seed_margin needs the standard profile's values of at least 3 seeds, got {len(vals)}")
    mean = sum(vals) / len(vals)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
    return max(t_quantile(0.975, len(vals) - 1) * sd * math.sqrt(arms), at_least)


#: each branch of a rule of several parts is held to one paired test's per-direction level: 2.5% false "agrees"
#: and 2.5% false "disagrees", 5% in all
BRANCH_LEVEL = 0.025


def refuted(parts: Sequence[str], level: float = BRANCH_LEVEL) -> bool:
    """Whether some part refutes the claim with the family of parts held at ``level`` (Holm's step-down: at least one
    rejection exactly when the smallest p against is at most level / k over the k parts that carry a p). A part
    without a p (one seed judged by its margin, a word typed by hand) refutes when its word says so."""
    if any(v == "disagrees" and math.isnan(p_against(v)) for v in parts):
        return True
    ps = [p_against(v) for v in parts if not math.isnan(p_against(v))]
    return bool(ps) and min(ps) <= level / len(ps)


def _joined(word: str, parts: Sequence[str]) -> Verdict:
    """The combined verdict carrying the parts' joint p-values: the largest p for (every part must agree) and the
    Bonferroni-adjusted smallest p against."""
    fors = [getattr(v, "p_for", math.nan) for v in parts]
    against = [p_against(v) for v in parts]
    p_for = math.nan if any(math.isnan(p) for p in fors) or not fors else max(fors)
    tested = [p for p in against if not math.isnan(p)]
    p_back = min(1.0, min(tested) * len(tested)) if tested and len(tested) == len(against) else math.nan
    return Verdict(word, p_for, p_back)


def combine_verdicts(verdicts: Sequence[str]) -> Verdict:
    """One verdict from several replicates of one claim (never the pairs of a ranking: ``all_hold``): all agree ->
    agrees; none agrees and some part refutes it with the replicates held at 2.5% together (``refuted``) ->
    disagrees; otherwise inconclusive ('not run' when there are none)."""
    verdicts = [v for v in verdicts if v != "not run"]
    if not verdicts:
        return Verdict("not run")
    if all(v == "agrees" for v in verdicts):
        return _joined("agrees", verdicts)
    if "agrees" not in verdicts and refuted(verdicts):
        return _joined("disagrees", verdicts)
    return _joined("inconclusive", verdicts)


def all_hold(verdicts: Sequence[str]) -> Verdict:
    """One verdict on a claim made of several parts that must all hold (ALiBi flat *and* sinusoidal rising; GQA keeps
    quality *and* MQA loses): agrees when every part agrees (an intersection-union test: its size is each part's),
    disagrees when some part refutes it with the parts held at 2.5% together (``refuted``: a conjunction of k null
    parts otherwise says "disagrees" up to k times as often as one test), otherwise inconclusive ('not run' with no
    part)."""
    verdicts = [v for v in verdicts if v != "not run"]
    if not verdicts:
        return Verdict("not run")
    if refuted(verdicts):
        return _joined("disagrees", verdicts)
    return _joined("agrees" if all(v == "agrees" for v in verdicts) else "inconclusive", verdicts)


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
    "refuted",
    "reaches",
    "Verdict",
    "p_against",
    "BRANCH_LEVEL",
    "one_seed_margin",
    "NO_VERDICT",
]
