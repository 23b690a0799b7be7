"""One measured quantity with its interval over seeds, as a finding states it (harness/findings.py) and the power
analysis reads it (harness/power.py)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from harness.intervals import Spread, change, spread


@dataclass(frozen=True)
class Estimate:
    """One measured quantity: the mean over seeds with the 95% interval of its kind (harness/intervals.py), or its range.

    ``kind`` says what the quantity is: "t" an unbounded difference, "log" a positive quantity, "bounded" one within
    known bounds, "count" a count or a maximum over a sweep, which shows its range over seeds (``lowest``-``highest``)
    and no interval. One seed, or an exact count (seeds 0), has no interval."""

    label: str
    value: float
    low: float | None = None
    high: float | None = None
    unit: str = ""
    seeds: int = 1
    kind: str = "t"
    lowest: float | None = None
    highest: float | None = None

    @classmethod
    def of(
        cls,
        label: str,
        values: Iterable[float],
        unit: str = "",
        kind: str = "t",
        bounds: tuple[float, float] | None = None,
    ) -> Estimate:
        """The estimate of per-seed values (NaN values and None are left out) as a quantity of ``kind``
        (intervals.KINDS; "bounded" needs ``bounds``)."""
        return cls._from(label, spread(values, kind, bounds), unit, kind)

    @classmethod
    def change(cls, label: str, ratios: Iterable[float], unit: str = "%") -> Estimate:
        """The relative change 100 * (r - 1) of per-seed ratios r = a / b, with the log-scale interval of the ratios
        (it stays above -100%)."""
        return cls._from(label, change(ratios), unit, "log")

    @classmethod
    def _from(cls, label: str, s: Spread, unit: str, kind: str) -> Estimate:
        ranged = (s.lowest, s.highest) if s.n >= 2 else (None, None)
        return cls(label, s.mean, s.low, s.high, unit, s.n, kind, *ranged)

    def _num(self, value: float) -> str:
        if math.isnan(value):
            return "-"
        if self.unit == "B" or (abs(value) >= 1e4 and float(value).is_integer()):
            return f"{value:,.0f}"
        return f"{value:.3g}"

    def range_text(self) -> str:
        """'range 50-100' of a count over two or more seeds ('all 5' when every seed has the same); else ''."""
        if self.kind != "count" or self.lowest is None or self.highest is None or math.isnan(self.value):
            return ""
        if self.lowest == self.highest:
            return f"all {self._num(self.lowest)}"
        joint = " to " if self.lowest < 0 else "-"
        return f"range {self._num(self.lowest)}{joint}{self._num(self.highest)}"

    def text(self) -> str:
        """'ALiBi ppl(8L)/ppl(L) 1.02' with the unit when it has one; a count adds its range over seeds
        ('longest lag learned, lstm 83.3 steps (range 50-100, 3 seeds)')."""
        text = f"{self.label} {self._num(self.value)}" + (f" {self.unit}" if self.unit else "")
        spread_text = self.range_text()
        return text + (f" ({spread_text}, {self.seeds} seeds)" if spread_text else "")

    def interval_text(self) -> str:
        """'[0.98, 1.06]'; a count's range over seeds; or why there is none: one seed, or an exact count or formula
        (seeds 0)."""
        if math.isnan(self.value):
            return "-"
        if self.range_text():
            return self.range_text()
        if self.low is None or self.high is None:
            return "none (1 seed)" if self.seeds == 1 else ("exact" if self.seeds == 0 else "none")
        return f"[{self._num(self.low)}, {self._num(self.high)}]"
