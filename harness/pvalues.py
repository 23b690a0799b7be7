"""The p-values behind the verdicts: a paired t test read back from an estimate's 95% interval, and the board's
false-discovery control.

Every verdict of the paired rule (harness/paired.py) is a t test over seeds on its own scale (the log ratio for a
relative change, the difference otherwise). ``test_scale`` recovers that test's centre, standard error and
degrees of freedom from an estimate (harness/power.py ``sd_of`` gives the per-seed sd behind the interval), so a
verdict and its p-value can never disagree: the 95% interval excludes a boundary exactly when the two-sided p
against it is below 0.05. ``above`` and ``below`` are the one-sided p-values a combiner of several parts needs
(harness/paired.py ``all_hold``). ``bh_q`` is Benjamini and Hochberg's step-up q-value over a family of tests
(J. R. Stat. Soc. B 57, 1995): the smallest false discovery rate at which each test would still be kept.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from harness.estimate import Estimate


@dataclass(frozen=True)
class Scale:
    """A t test's ingredients on its own scale: the estimate's centre, its standard error, the degrees of freedom,
    and the map of a boundary in the estimate's unit onto that scale."""

    centre: float
    se: float
    df: int
    kind: str
    unit: str

    def to(self, x: float) -> float:
        return math.log1p(x / 100.0) if self.kind == "log" and self.unit == "%" else x

    def t(self, boundary: float) -> float:
        """The t statistic of the estimate against ``boundary`` (in the estimate's unit); +-inf at zero spread."""
        gap = self.centre - self.to(boundary)
        if self.se == 0:
            return 0.0 if gap == 0 else math.copysign(math.inf, gap)
        return gap / self.se


def test_scale(e: Estimate | None) -> Scale | None:
    """The paired t test behind ``e``'s 95% interval, or None where it has none (one seed, a count, a timing band)."""
    from harness.power import sd_of

    if e is None or math.isnan(e.value):
        return None
    sd = sd_of(e)
    if sd is None:
        return None
    n = e.seeds
    try:
        # a relative change is tested on its log ratios: the interval's centre there (the geometric mean's), not the
        # value shown
        centre = (math.log1p(e.low / 100.0) + math.log1p(e.high / 100.0)) / 2 if e.kind == "log" else e.value
    except ValueError:
        return None
    return Scale(centre, sd / math.sqrt(n), n - 1, e.kind, e.unit)


def _t_sf(t: float, df: int) -> float:
    """P(T > t) for Student-t with ``df`` degrees of freedom."""
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    from scipy.special import stdtr  # Student-t's CDF, far cheaper per call than scipy.stats.t

    return float(stdtr(df, -t))


def above(e: Estimate | None, boundary: float = 0.0) -> float:
    """The one-sided p-value of 'the true value is above ``boundary``' (NaN without a test)."""
    s = test_scale(e)
    return math.nan if s is None else _t_sf(s.t(boundary), s.df)


def below(e: Estimate | None, boundary: float = 0.0) -> float:
    """The one-sided p-value of 'the true value is below ``boundary``' (NaN without a test)."""
    s = test_scale(e)
    return math.nan if s is None else _t_sf(-s.t(boundary), s.df)


def two_sided(e: Estimate | None, boundary: float = 0.0) -> float:
    """The two-sided p-value of the paired t test of ``e`` against ``boundary`` (NaN without a test)."""
    up, down = above(e, boundary), below(e, boundary)
    return math.nan if math.isnan(up) else min(1.0, 2.0 * min(up, down))


def bh_q(p: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg q-values of ``p`` in its order (NaN stays NaN and is not counted in the family)."""
    tested = sorted((v, i) for i, v in enumerate(p) if v is not None and not math.isnan(v))
    m = len(tested)
    q = [math.nan] * len(p)
    running = 1.0
    for rank in range(m, 0, -1):
        value, i = tested[rank - 1]
        running = min(running, value * m / rank)
        q[i] = running
    return q


__all__ = ["Scale", "test_scale", "above", "below", "two_sided", "bh_q"]
