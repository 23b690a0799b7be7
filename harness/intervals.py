"""Intervals that fit the quantity: Student-t for a difference, log scale for a positive one, bounds kept, counts as ranges.

A 95% Student-t interval of the mean over seeds is symmetric and unbounded, so with two or three seeds it runs
below zero for a perplexity or past 100 for a BLEU. Each estimate declares its kind instead:

- ``"t"``: an unbounded quantity, above all a difference (a - b, a log ratio): mean +- t * sd / sqrt(n).
- ``"log"``: a positive quantity (a ratio, a perplexity, a time): the t interval of the logs, exponentiated back,
  so it stays above 0 and is as wide in factors up as down. It is the interval of the geometric mean; the value
  shown stays the arithmetic mean, within rounding of it at the seed spreads measured here.
- ``"bounded"``: a quantity with known bounds (BLEU in [0, 100], an accuracy in [0, 1], a difference of two
  BLEUs in [-100, 100]): the t interval intersected with the bounds. The true mean lies within the bounds, so
  the intersection covers it whenever the t interval does: the coverage stays 95%. (A percentile bootstrap over
  seeds was not used: the mean of three seeds resampled stays within their minimum and maximum, and its 2.5 and
  97.5 percentiles are exactly those, an interval that holds the mean of symmetric noise only 1 - 2 * 0.5^3 = 75%
  of the time, and with it "the interval excludes 0" would mean no more than "every seed has the same sign".)
- ``"count"``: a count or a maximum over a sweep (heads of a kind, runs diverged, the longest lag learned), whose
  spread over a handful of seeds is better said than modelled: no interval, the range over seeds instead.

One value has no interval whatever its kind.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

#: the kinds of quantity an estimate can declare (see the module docstring)
KINDS = ("t", "log", "bounded", "count")
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Spread:
    """The mean of some values, its interval (None where there is none) and their range."""

    mean: float
    low: float | None
    high: float | None
    n: int
    lowest: float = math.nan
    highest: float = math.nan


def check_kind(kind: str, bounds: tuple[float, float] | None) -> None:
    """One clear sentence when ``kind`` is not one of KINDS, or ``bounds`` are missing or reversed for "bounded"."""
    if kind not in KINDS:
        raise ValueError(f"interval kind {kind!r} is not one of {', '.join(KINDS)}")
    if kind == "bounded" and (bounds is None or len(bounds) != 2 or not bounds[0] < bounds[1]):
        raise ValueError(f"interval kind 'bounded' needs bounds=(low, high) with low < high, got {bounds!r}")


def finite(values: Iterable) -> list[float]:
    """The values as floats, None and NaN left out."""
    return [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]


@cache
def t_quantile(q: float, df: int) -> float:
    """Student-t's ``q`` quantile at ``df`` degrees of freedom (cached: the judge asks for a few, many times)."""
    from scipy import stats

    return float(stats.t.ppf(q, df))


def t_half(vals: list[float], confidence: float = CONFIDENCE) -> float:
    """The half-width of the Student-t interval of the mean of ``vals`` (NaN for fewer than two)."""
    n = len(vals)
    if n < 2:
        return math.nan
    mean = sum(vals) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (n - 1))
    return t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)


def spread(
    values: Iterable, kind: str = "t", bounds: tuple[float, float] | None = None, confidence: float = CONFIDENCE
) -> Spread:
    """The mean of ``values`` (None and NaN left out) with the interval of its ``kind`` (KINDS)."""
    check_kind(kind, bounds)
    vals = finite(values)
    n = len(vals)
    if n == 0:
        return Spread(math.nan, None, None, 0)
    mean = sum(vals) / n
    lowest, highest = min(vals), max(vals)
    if n == 1 or kind == "count":
        return Spread(mean, None, None, n, lowest, highest)
    if kind == "log" and lowest > 0:
        logs = [math.log(v) for v in vals]
        centre, half = sum(logs) / n, t_half(logs, confidence)
        return Spread(mean, math.exp(centre - half), math.exp(centre + half), n, lowest, highest)
    half = t_half(vals, confidence)
    low, high = mean - half, mean + half
    if kind == "log":
        # a "positive" quantity with a value <= 0 (a measurement at the floor): the t interval, kept above 0 where the mean is
        bounds = (0.0, math.inf)
    if bounds is not None:
        # intersected with the bounds, but never so as to leave out the mean itself (values beyond the bounds, e.g. a
        # share of peak over 100% timed under a changing load, are shown as measured, not hidden)
        low, high = min(max(low, bounds[0]), mean), max(min(high, bounds[1]), mean)
    return Spread(mean, low, high, n, lowest, highest)


def change(ratios: Iterable, confidence: float = CONFIDENCE) -> Spread:
    """The relative change 100 * (r - 1) in % of per-seed ratios r = a / b, with the log-scale interval of the ratios.

    The interval is 100 * (exp(mean log r +- t * sd(log r) / sqrt(n)) - 1): it stays above -100% and excludes 0
    exactly when the log ratios' interval does."""
    vals = finite(ratios)
    s = spread(vals, "log", confidence=confidence)
    pct = lambda r: None if r is None else 100.0 * (r - 1.0)  # noqa: E731
    return Spread(
        pct(s.mean) if s.n else math.nan,
        pct(s.low),
        pct(s.high),
        s.n,
        pct(s.lowest) if s.n else math.nan,
        pct(s.highest) if s.n else math.nan,
    )


def difference_bounds(bounds: tuple[float, float] | None) -> tuple[float, float] | None:
    """The bounds of a - b where a and b each lie within ``bounds``: (low - high, high - low)."""
    if bounds is None:
        return None
    low, high = bounds
    return (low - high, high - low)


__all__ = ["KINDS", "Spread", "spread", "change", "difference_bounds", "check_kind", "t_half", "t_quantile", "finite"]
