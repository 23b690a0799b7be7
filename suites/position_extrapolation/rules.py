"""The verdict rules of position_extrapolation: paired over seeds (harness/paired.py), magnitude-aware, directional.

Every statement compares per-seed perplexities of one trained model (the same seed's weights), as a
relative change in %: ``paired(..., relative=True)``, whose interval is the log-scale interval of the per-seed
ratios (perplexities are positive: it stays above -100%). Three shapes of statement:

- ``rises_by(diff, pct)``: "rises by at least pct%" (plain RoPE blows up, sinusoidal does not extrapolate,
  PI costs at short lengths): agrees when the rise counts (harness/paired.py; a rise beyond pct itself
  counts, as a declared margin) and its mean is at least pct; disagrees when it counts downwards or its
  whole interval lies below pct; otherwise inconclusive.
- ``stays_within(diff, pct)``: "stays close" (ALiBi flat, NTK-aware close): agrees when the interval's upper
  end (one seed: the value) is at most pct (a fall is close too); disagrees when its lower end is above
  pct; otherwise inconclusive.
- ``lower(diff)``: "lower than" (YaRN against PI and NTK-aware), harness.paired.directional.

A statement made of several parts (ALiBi flat *and* sinusoidal rising) is their conjunction, harness.paired.all_hold.

One seed (the quick profile, `make run`) has no interval and no seed spread, so a change counts only beyond a
declared margin: ONE_SEED_MARGIN, several times the seed spread the standard profile measures. A verdict reached
that way carries the note "1 seed: indicative only" (harness/findings.py).
"""

from __future__ import annotations

from typing import Dict, Optional

from harness.findings import Estimate
from harness.paired import Difference, directional, paired


#: % a one-seed change must exceed to count: the reference runs' (standard, 3 seeds) per-seed spread of ppl at L is
#: about ±3% (baseline 5.33 [5.19, 5.47]) and of ppl(8L)/ppl(L) up to about ±5% for the encodings that extrapolate
ONE_SEED_MARGIN = 10.0


def _one_seed_margin(a: Dict[int, float], b: Dict[int, float], margin: Optional[float]) -> Optional[float]:
    if margin is not None:
        return margin
    return ONE_SEED_MARGIN if len(set(a) & set(b)) == 1 else None


def change(label: str, a: Dict[int, float], b: Dict[int, float], margin: Optional[float] = None) -> Difference:
    """The per-seed relative change (a - b) / b in %, over the seeds both have (one seed: judged by ONE_SEED_MARGIN)."""
    return paired(label, a, b, unit="%", margin=_one_seed_margin(a, b, margin), relative=True)


def _ends(diff: Difference):
    e = diff.estimate
    return (e.value, e.value) if e.low is None or e.high is None else (e.low, e.high)


def rises_by(diff: Difference, pct: float) -> str:
    """The verdict on "a is at least pct% above b"."""
    if diff.seeds == 0:
        return "not run"
    low, high = _ends(diff)
    if diff.counts and diff.sign > 0 and diff.mean >= pct:
        return "agrees"
    if (diff.counts and diff.sign < 0) or high < pct:
        return "disagrees"
    return "inconclusive"


def stays_within(diff: Difference, pct: float) -> str:
    """The verdict on "a is at most pct% above b" (lower is within too)."""
    if diff.seeds == 0:
        return "not run"
    low, high = _ends(diff)
    if high <= pct:
        return "agrees"
    if low > pct:
        return "disagrees"
    return "inconclusive"


def lower(diff: Difference) -> str:
    """The verdict on "a is lower than b"."""
    return "not run" if diff.seeds == 0 else directional(diff, -1)


def said(diff: Difference) -> str:
    """'+52% [13, 91] over 3 seeds' for a sentence."""
    e = diff.estimate
    interval = "" if e.low is None else f" [{e.low:+.0f}, {e.high:+.0f}]"
    return f"{e.value:+.0f}%{interval} over {diff.seeds} seed(s)"


def from_one(label: str, ratios: Dict[int, float]) -> Difference:
    """The per-seed change of a ratio (ppl(8L)/ppl(L)) from 1, in %, judged by its interval (or a margin) alone: the
    ratio already pairs its two arms within each seed, so there are no arm ranges to separate."""
    seeds = sorted(ratios)
    values = tuple(float(ratios[s]) for s in seeds)
    return Difference(Estimate.change(label, values), values, values, ONE_SEED_MARGIN if len(seeds) == 1 else None)
