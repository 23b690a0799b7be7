"""Tests on timing repeats: a latency ratio (or a product of ratios) against a threshold, a test of stated size.

A timed call is recorded as the median of its kept repeats (harness/timing.py: the repeats free of other processes'
CPU use, or all of them when too few are). On the log scale a ratio of two medians is a difference of two log
medians, and a growth of a ratio with length (or a latency growth over an exact bytes growth) a sum of several with
signs. Each log median's variance is estimated from its own repeats: pi/2 times their sample variance over n (the
large-sample variance of a median of normal repeats, which overstates it at the few repeats of a CPU run: at 5
repeats the median of normal noise varies 0.29 sd^2, the formula gives 0.31), with n - 1 degrees of freedom; their
sum is tested on Student-t at the Welch-Satterthwaite degrees of freedom. The 95% interval is that t interval, and a
threshold is decided as harness/paired.py ``reaches`` decides one: agrees when the whole interval lies on the
claimed side, disagrees when it lies wholly on the other, so at a true ratio exactly on the threshold each verdict
is reached at most 2.5% of the time (tests/unit/suites/common/test_timing_repeats.py simulates it). No fixed count
of standard deviations, no margin on a point estimate.

What the test covers: the repeat-to-repeat noise within one job. Noise that moves a whole job (another job on the
machine, a clock change between two jobs) is not in it; with two seeds or more the per-seed ratios' t interval over
seeds, which holds it, decides instead (``over_seeds``).

Records from before the repeats were kept (no ``times``) fall back on their interquartile range (``noise`` =
IQR / median, over 1.349 an sd of the log repeats) and their count of kept repeats (or a stated lower bound on it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness.estimate import Estimate
from harness.paired import Verdict

#: the interquartile range of a normal sample is this many standard deviations
IQR_SDS = 1.349
#: the large-sample variance of a median is MEDIAN_VARIANCE x sd^2 / n (pi / 2 for normal repeats)
MEDIAN_VARIANCE = math.pi / 2
#: the two-sided confidence of the intervals (each verdict's branch at 2.5%)
CONFIDENCE = 0.95


@dataclass(frozen=True)
class LogTiming:
    """One timed call on the log scale: the log of its median (ms), that log's variance, its degrees of freedom."""

    centre: float
    var: float
    df: float


def kept_times(extra: Mapping) -> list[float]:
    """The repeats a record's median was taken over (harness/timing.py ``Timing.kept``): the clean ones, or every
    repeat where fewer than the recorded ``kept`` are clean; [] where the record keeps no repeats."""
    times = [float(t) for t in extra.get("times") or [] if t is not None and float(t) > 0]
    mask = extra.get("kept_mask") or []
    if len(mask) == len(times):
        clean = [t for t, ok in zip(times, mask) if ok]
        if len(clean) == extra.get("kept", len(clean)):
            return clean
    return times


def log_timing(value: float, extra: Mapping | None, repeats_at_least: int | None = None) -> LogTiming | None:
    """The log median of one record (``value``, ms) with its variance from the record's repeats (``extra``); where
    it keeps no repeats, from its IQR ``noise`` and its ``kept`` count (else ``repeats_at_least``, a lower bound
    such as the profile's min_repeats); None where neither gives two repeats."""
    if value is None or not value > 0:
        return None
    extra = extra if isinstance(extra, Mapping) else {}
    times = kept_times(extra)
    if len(times) >= 2:
        _, var, df = log_medians(np.asarray(times))
        return LogTiming(math.log(value), float(var), float(df))
    n = int(extra.get("kept") or repeats_at_least or 0)
    noise = extra.get("noise")
    if n < 2 or noise is None:
        return None
    return from_spread(math.log(value), float(noise) / IQR_SDS, n)


def log_medians(times: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised over the leading axes of ``times`` (repeats on the last axis, each at least two): the log median,
    its variance MEDIAN_VARIANCE x var(log repeats) / n, and n - 1 degrees of freedom."""
    logs = np.log(np.asarray(times, float))
    n = logs.shape[-1]
    var = MEDIAN_VARIANCE * logs.var(axis=-1, ddof=1) / n
    return np.median(logs, axis=-1), var, np.full(var.shape, float(n - 1))


def combine(coefs: Sequence[float], centres, variances, dfs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised: the sum of coef x log median over terms (the last axis of ``centres``, ``variances``, ``dfs``),
    its standard error and its Welch-Satterthwaite degrees of freedom."""
    c = np.asarray(coefs, float)
    var = c * c * np.asarray(variances, float)
    return (c * np.asarray(centres, float)).sum(-1), np.sqrt(var.sum(-1)), welch_df(var, dfs)


def from_spread(centre: float, sd: float, n: int) -> LogTiming:
    """A log median from the sd of its ``n`` log repeats."""
    return LogTiming(centre, MEDIAN_VARIANCE * sd * sd / n, float(n - 1))


def welch_df(variances: np.ndarray, dfs: np.ndarray) -> np.ndarray:
    """The Welch-Satterthwaite degrees of freedom of a sum of independent terms (last axis): (sum v)^2 / sum v^2/df;
    terms with no variance drop out."""
    variances, dfs = np.asarray(variances, float), np.asarray(dfs, float)
    num = variances.sum(-1) ** 2
    den = np.where(variances > 0, variances**2 / np.maximum(dfs, 1e-12), 0.0).sum(-1)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.inf)


def t_quantile(q: float, df) -> np.ndarray:
    from scipy import stats

    return stats.t.ppf(q, np.asarray(df, float))


def t_sf(t, df) -> np.ndarray:
    from scipy import stats

    return stats.t.sf(np.asarray(t, float), np.asarray(df, float))


@dataclass(frozen=True)
class Contrast:
    """A log ratio with its standard error and degrees of freedom: the quantity a timing verdict tests."""

    centre: float
    se: float
    df: float
    #: what the interval is over: one job's "timing repeats", or "seeds" (the per-seed ratios' spread)
    over: str = "timing repeats"
    seeds: int = 1

    @classmethod
    def of(cls, terms: Sequence[tuple[float, LogTiming]], offset: float = 0.0) -> Contrast | None:
        """sum coef x log median + ``offset`` (an exact log term, such as minus the log of a bytes growth); None
        where a term is missing."""
        if any(t is None for _, t in terms):
            return None
        centre, se, df = combine(
            [c for c, _ in terms], [t.centre for _, t in terms], [t.var for _, t in terms], [t.df for _, t in terms]
        )
        return cls(float(centre) + offset, float(se), float(df))

    @classmethod
    def over_seeds(cls, logs: Iterable[float]) -> Contrast | None:
        """The mean of per-seed log ratios with its t standard error over seeds (two seeds or more), which holds the
        noise that moves a whole job too."""
        vals = [float(v) for v in logs if v is not None and math.isfinite(float(v))]
        if len(vals) < 2:
            return None
        sd = float(np.std(vals, ddof=1))
        return cls(float(np.mean(vals)), sd / math.sqrt(len(vals)), float(len(vals) - 1), "seeds", len(vals))

    def bounds(self) -> tuple[float, float]:
        """The 95% interval on the ratio's own scale (exp of the log interval)."""
        half = float(t_quantile(0.5 + CONFIDENCE / 2, self.df)) * self.se
        return math.exp(self.centre - half), math.exp(self.centre + half)

    def verdict(self, threshold: float, above: bool = True) -> Verdict:
        """'The ratio is above ``threshold``' (``above=False``: below it), decided on the 95% interval as
        harness/paired.py ``reaches`` decides a mean: agrees when the whole interval lies on the claimed side,
        disagrees when wholly on the other, else inconclusive; carries the one-sided p-values for and against."""
        return decide(self.centre, self.se, self.df, math.log(threshold), above)

    def p(self, threshold: float) -> float:
        """The two-sided p-value of the ratio against ``threshold``."""
        t = (self.centre - math.log(threshold)) / self.se if self.se > 0 else math.copysign(math.inf, self.centre)
        return float(min(1.0, 2 * t_sf(abs(t), self.df)))

    def estimate(self, label: str, value: float | None = None, unit: str = "x") -> Estimate:
        """The ratio with its 95% interval (``value``: the number shown, exp(centre) by default): over one job's
        timing repeats (a ``RepeatsEstimate``, whose interval says so) or over seeds."""
        low, high = self.bounds()
        shown = math.exp(self.centre) if value is None else value
        if self.over == "seeds":
            return Estimate(label, shown, low, high, unit=unit, seeds=self.seeds, kind="log")
        return RepeatsEstimate(label, shown, low, high, unit=unit, seeds=1, kind="log")


def codes(centre, se, df, threshold_log: float, above: bool = True) -> np.ndarray:
    """Vectorised verdicts: +1 agrees, -1 disagrees, 0 inconclusive (the rule ``Contrast.verdict`` applies)."""
    centre, se = np.asarray(centre, float), np.asarray(se, float)
    half = t_quantile(0.5 + CONFIDENCE / 2, df) * se
    low, high = centre - half, centre + half
    on = low > threshold_log if above else high < threshold_log
    off = high < threshold_log if above else low > threshold_log
    return np.where(on, 1, np.where(off, -1, 0))


def decide(centre: float, se: float, df: float, threshold_log: float, above: bool = True) -> Verdict:
    """One verdict with its one-sided p-values (see ``codes``)."""
    return verdicts(centre, se, df, threshold_log, above)[0]


def verdicts(centre, se, df, threshold_log: float, above: bool = True) -> list[Verdict]:
    """Vectorised ``decide``: one Verdict per element, carrying the one-sided p-values for and against the claimed
    side (harness/paired.py ``all_hold`` reads them)."""
    centre, se, df = (np.atleast_1d(np.asarray(v, float)) for v in (centre, se, df))
    word = codes(centre, se, df, threshold_log, above)
    gap = centre - threshold_log
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, gap / np.where(se > 0, se, 1.0), np.where(gap == 0, 0.0, np.sign(gap) * np.inf))
    up, down = t_sf(t, df), t_sf(-t, df)
    p_for, p_against = (up, down) if above else (down, up)
    names = {1: "agrees", -1: "disagrees", 0: "inconclusive"}
    return [Verdict(names[int(w)], float(a), float(b)) for w, a, b in zip(word, p_for, p_against)]


@dataclass(frozen=True)
class RepeatsEstimate(Estimate):
    """An estimate whose 95% interval comes from one job's timing repeats, not from seeds: its interval says so."""

    def interval_text(self) -> str:
        text = super().interval_text()
        return f"{text} over timing repeats" if text.startswith("[") else text


def ratio_contrast(
    per_seed: Mapping[int, Sequence[tuple[float, LogTiming | None]]], offset: float = 0.0
) -> Contrast | None:
    """The contrast of one seed from its repeats, or of several from the spread of their per-seed log ratios (seed
    -> its (coefficient, log median) terms); None where a term or every seed is missing."""
    per_seed = {s: terms for s, terms in per_seed.items() if all(t is not None for _, t in terms)}
    if len(per_seed) >= 2:
        return Contrast.over_seeds(sum(c * t.centre for c, t in terms) + offset for terms in per_seed.values())
    if not per_seed:
        return None
    (terms,) = per_seed.values()
    return Contrast.of(terms, offset)
