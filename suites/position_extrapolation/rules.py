"""The verdict rules of position_extrapolation: paired over seeds (harness/paired.py), magnitude-aware, directional.

Every statement compares per-seed perplexities of one trained model (the same seed's weights), as a
relative change in %: ``paired(..., relative=True)``, whose interval is the log-scale interval of the per-seed
ratios (perplexities are positive: it stays above -100%). Three shapes of statement:

- ``rises_by(diff, pct)``: "rises by at least pct%" (plain RoPE blows up, sinusoidal does not extrapolate,
  PI costs at short lengths): agrees when the whole interval lies at or above pct (one-sided against the
  threshold, which is the finding's boundary); disagrees when it lies wholly below pct; otherwise inconclusive.
- ``stays_within(diff, pct)``: "stays close" (ALiBi flat, NTK-aware close): agrees when the interval's upper
  end is at most pct (a fall is close too); disagrees when its lower end is above pct; otherwise inconclusive.
- ``lower(diff)``: "lower than" (YaRN against PI and NTK-aware), harness.paired.directional.

A statement made of several parts (ALiBi flat *and* sinusoidal rising) is their conjunction, harness.paired.all_hold.

One seed (the quick profile, `make run`) has no interval: its "interval" is the value widened by the margin
calibrated for that very quantity from the standard profile's seeds (margins.py; ``Difference.ends``), and a
quantity without one gives no verdict ("1 seed: no verdict"). At two seeds or more no margin applies.
"""

from __future__ import annotations

import math

from harness.findings import Estimate
from harness.paired import Difference, directional, paired
from suites.position_extrapolation.margins import margin_of


def change(label: str, a: dict[int, float], b: dict[int, float]) -> Difference:
    """The per-seed relative change (a - b) / b in %, over the seeds both have; ``label`` names the quantity, whose
    calibrated margin (margins.py) judges it at one seed."""
    return paired(label, a, b, unit="%", margin=margin_of(label), relative=True)


def _undecided(diff: Difference) -> bool:
    low, _ = diff.ends()
    return diff.seeds == 0 or math.isnan(diff.mean) or math.isnan(low)


def rises_by(diff: Difference, pct: float) -> str:
    """The verdict on "a is at least pct% above b"."""
    if diff.seeds == 0:
        return "not run"
    if _undecided(diff):
        return "inconclusive"
    low, high = diff.ends()
    if low >= pct:
        return "agrees"
    return "disagrees" if high < pct else "inconclusive"


def stays_within(diff: Difference, pct: float) -> str:
    """The verdict on "a is at most pct% above b" (lower is within too)."""
    if diff.seeds == 0:
        return "not run"
    if _undecided(diff):
        return "inconclusive"
    low, high = diff.ends()
    if high <= pct:
        return "agrees"
    return "disagrees" if low > pct else "inconclusive"


def lower(diff: Difference) -> str:
    """The verdict on "a is lower than b"."""
    return "not run" if diff.seeds == 0 else directional(diff, -1)


def said(diff: Difference) -> str:
    """'+52% [13, 91] over 3 seeds' for a sentence ('+52% (1 seed, margin ±30)' or '(1 seed: no verdict)' at one)."""
    e = diff.estimate
    if diff.one_seed:
        why = f"1 seed, calibrated margin ±{diff.margin:.0f}" if diff.margin is not None else diff.why()
        return f"{e.value:+.0f}% ({why})"
    interval = "" if e.low is None else f" [{e.low:+.0f}, {e.high:+.0f}]"
    return f"{e.value:+.0f}%{interval} over {diff.seeds} seed(s)"


def from_one(label: str, ratios: dict[int, float]) -> Difference:
    """The per-seed change of a ratio (ppl(8L)/ppl(L)) from 1, in %, judged by its interval (or a margin) alone: the
    ratio already pairs its two arms within each seed, so there are no arm ranges to separate."""
    seeds = sorted(ratios)
    values = tuple(float(ratios[s]) for s in seeds)
    return Difference(Estimate.change(label, values), values, values, margin_of(label))
