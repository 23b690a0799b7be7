"""Whether more seeds could decide an inconclusive comparison: its minimum detectable effect and the seeds it needs.

A paired comparison over n seeds (harness/paired.py) counts when its 95% interval clears a boundary: 0 for "a
differs from b", the tolerance for "a and b are alike", the claimed rise for "rises by at least pct%". From an
estimate's interval this module recovers the per-seed standard deviation sd of the paired quantity (on the
test's scale: the log ratio for a relative change, the difference otherwise) and gives

- the minimum detectable effect at n seeds, MDE(n) = (t(0.975, n - 1) + t(POWER, n - 1)) * sd / sqrt(n): the
  distance from the boundary a true effect needs for the test to clear it with probability POWER (80%);
- the seeds a comparison needs to detect the claim's *smallest effect of interest* (``Claim.smallest_effect``: the
  claim's margin or tolerance, a size in the source's units, or one this project declares in ``suite.yaml`` and
  names as its choice) with probability POWER: the smallest n with MDE(n) <= that effect, or "more than
  MOST_SEEDS". The measured estimate never sets the plan: taking a noisy estimate as the true effect (observed
  power) promises seeds the data cannot promise.

The normal-theory approximation to the non-central t it uses is the standard one for planning seeds.
"""

from __future__ import annotations

import math

from harness.estimate import Estimate
from harness.intervals import t_quantile as _t

#: the probability a true effect of the MDE is detected
POWER = 0.8
#: the most seeds a plan counts up to (beyond it the plan says "more than 200")
MOST_SEEDS = 200


def _scale(e: Estimate):
    """(to, back): the test's scale for this estimate (log ratios for a relative change in %) and the way back."""
    if e.kind == "log" and e.unit == "%":
        return (lambda x: math.log1p(x / 100.0)), (lambda y: 100.0 * math.expm1(y))
    return (lambda x: x), (lambda y: y)


def sd_of(e: Estimate) -> float | None:
    """The per-seed sd of the paired quantity behind ``e``'s 95% interval (None without an interval, or for a kind
    whose interval is not a t interval on a known scale)."""
    n = e.seeds
    if n < 2 or e.low is None or e.high is None or e.kind not in ("t", "bounded", "log"):
        return None
    if e.kind == "log" and e.unit != "%":
        return None
    to, _ = _scale(e)
    try:
        low, high, centre = to(e.low), to(e.high), to(e.value)
    except ValueError:
        return None
    # a bounded interval may be cut at a bound: its wider side is the t half-width
    half = max(high - centre, centre - low) if e.kind == "bounded" else (high - low) / 2
    return half * math.sqrt(n) / _t(0.975, n - 1)


def mde(sd: float, n: int) -> float:
    """The minimum detectable effect of a paired t test over ``n`` seeds at level 5% two-sided and power POWER."""
    return (_t(0.975, n - 1) + _t(POWER, n - 1)) * sd / math.sqrt(n)


def seeds_to_resolve(sd: float, distance: float) -> int | None:
    """The fewest seeds whose MDE is at most ``distance`` (None when more than MOST_SEEDS would be needed)."""
    if sd == 0:
        return 2
    for n in range(2, MOST_SEEDS + 1):
        if mde(sd, n) <= distance:
            return n
    return None


def sentence(e: Estimate, boundary: float = 0.0, smallest_effect: float | None = None, source: str = "") -> str:
    """One sentence on the seeds an undecided comparison would need: the minimum detectable effect at its seeds, and
    the seeds that detect the claim's ``smallest_effect`` of interest (in ``e``'s unit, from ``boundary``; its
    ``source`` named) with POWER; '' where ``e`` carries no interval to plan from or already clears ``boundary``."""
    sd = sd_of(e)
    if sd is None or math.isnan(e.value):
        return ""
    if e.low > boundary or e.high < boundary:
        return ""  # the interval already clears its boundary: the verdict is undecided for another reason than seeds
    to, back = _scale(e)
    unit = f" {e.unit}" if e.unit and e.unit != "%" else e.unit
    now = back(mde(sd, e.seeds))
    said = (
        f"At {e.seeds} seeds the smallest effect this test detects with {POWER:.0%} power is {now:.3g}{unit} "
        f"from {boundary:.3g}"
    )
    if smallest_effect is None or not smallest_effect > 0:
        return f"{said}; no smallest effect of interest is declared for this claim, so no seed count is planned."
    try:
        distance = abs(to(boundary + smallest_effect) - to(boundary))
    except ValueError:
        return f"{said}."
    need = seeds_to_resolve(sd, distance)
    interest = f"the smallest effect of interest, {smallest_effect:.3g}{unit}" + (f" ({source})" if source else "")
    if need is None:
        return f"{said}; {interest}, would need more than {MOST_SEEDS} seeds at this spread."
    if need <= e.seeds:
        return f"{said}; {interest}, is detectable at these seeds: a true effect of that size is unlikely here."
    return f"{said}; {interest}, needs about {need} seeds at this spread."


__all__ = ["POWER", "MOST_SEEDS", "sd_of", "mde", "seeds_to_resolve", "sentence"]
