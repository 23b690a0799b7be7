"""Paired comparison of two variants over seeds: the difference B - A with a 95% interval and a one-line verdict.

Two variants of one group of records ran with the same seeds, so seed s of A and seed s of B saw the same
initialisation seed and the same data order; the difference is taken per seed, which is far narrower than
comparing two unpaired means. The verdict follows harness/paired.py, as every suite's verdicts do: for a metric
whose every value is positive (a perplexity, a time, a BLEU) the relative change B / A - 1 with the log-scale
interval of the per-seed ratios (it stays above -100%), otherwise the difference B - A with its Student-t
interval; the difference counts when that interval excludes 0 (the paired t test, at level 5%).
A ``Comparison`` reads as a sentence for the terminal (``bench compare``) and as an ``Estimate`` for a finding
(harness/findings.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from harness.findings import Estimate
from harness.paired import Difference
from harness.paired import paired as paired_difference
from harness.report import mean_ci
from harness.timing import CONTENDED_MARK, contended

#: record ``extra`` keys that say under which condition a value was measured (a training run's depth and
#: warm-up, a kernel's pass and mask, a probe's phase); values are paired only under the same condition
CONDITION_KEYS = ("depth", "warmup", "pass", "causal", "phase", "radius", "clipping", "path", "bucket")


@dataclass(frozen=True)
class Comparison:
    """B - A of one metric at one x (and condition), paired by seed."""

    a: str
    b: str
    metric: str
    unit: str
    higher_is_better: bool | None
    at: str
    mean_a: float
    mean_b: float
    #: each arm's values over the seeds both ran, in one seed order
    va: tuple[float, ...]
    vb: tuple[float, ...]
    #: the x the metric was measured at (None when it has none)
    x: float | None = None
    #: seeds of A and of B whose value is a timing taken under another process's load (harness/timing.py)
    contended_a: int = 0
    contended_b: int = 0

    @property
    def contended(self) -> bool:
        """Whether either arm's timing was contended: the comparison is shown, never ranked."""
        return bool(self.contended_a or self.contended_b)

    @property
    def diffs(self) -> tuple[float, ...]:
        """B - A per shared seed."""
        return tuple(b - a for a, b in zip(self.va, self.vb))

    @property
    def n(self) -> int:
        return len(self.diffs)

    @property
    def interval(self) -> tuple[float, float, float]:
        """(mean difference B - A, low, high) of its Student-t 95% interval; low and high are NaN with one seed."""
        mean, half, _ = mean_ci(self.diffs)
        return mean, mean - half, mean + half

    @property
    def relative(self) -> bool:
        """Whether the verdict reads the relative change: every value of both arms is positive."""
        return self.n > 0 and all(v > 0 for v in self.va + self.vb)

    @property
    def difference(self) -> Difference:
        """The paired comparison the verdict rests on (harness/paired.py): B / A - 1 in % for positive values, else B - A."""
        seeds = range(len(self.vb))
        return paired_difference(
            f"{self.b} vs {self.a} {self.metric}{self.at}",
            dict(zip(seeds, self.vb)),
            dict(zip(seeds, self.va)),
            "%" if self.relative else self.unit,
            relative=self.relative,
        )

    def _num(self, value: float) -> str:
        return f"{value:+.4g}" + (f" {self.unit}" if self.unit else "")

    def interval_text(self) -> str:
        """'-4.1% [-6.2%, -2.0%]' (the relative change), '[-0.31, -0.19]' (the difference), '-' with one seed."""
        if self.n < 2:
            return "-"
        e = self.difference.estimate
        if self.relative:
            return f"{e.value:+.1f}% [{e.low:+.1f}%, {e.high:+.1f}%]"
        return f"[{e.low:+.4g}, {e.high:+.4g}]"

    def direction(self) -> str:
        """'better' or 'worse' (a metric with a declared direction), 'differs' (one without: entropy, a share),
        'no detectable difference', or 'one seed' / 'no shared seed' when it cannot tell."""
        if self.n == 0:
            return "no shared seed"
        if self.contended:
            return "not ranked (contended timing)"
        if self.n == 1:
            return "one seed"
        diff = self.difference
        if not diff.counts:
            return "no detectable difference"
        if self.higher_is_better is None:
            return "differs"
        return "better" if (diff.sign > 0) == self.higher_is_better else "worse"

    def verdict(self) -> str:
        """One line: '`alibi` vs `rope`, perplexity at x=64: alibi - rope = -0.2 (-4.1% of rope, 95% interval -6.2% to
        -2.0%) over 3 seeds: alibi is better than rope.'"""
        head = f"`{self.b}` vs `{self.a}`, {self.metric}{self.at}: "
        if self.n == 0:
            return head + "the two share no seed, so no paired difference (run both with the same seeds)."
        mean, low, high = self.interval
        said = f"{self.b} - {self.a} = {self._num(mean)}"
        direction = self.direction()
        if direction.startswith("not ranked"):
            busy = [
                f"{arm} in {k} of its seeds" for arm, k in ((self.a, self.contended_a), (self.b, self.contended_b)) if k
            ]
            return head + (
                f"{said}: not ranked, as the timing of {' and '.join(busy)} was taken while another process "
                f"held a CPU; re-time it alone (`bench run ... retime=true`) before comparing."
            )
        if direction == "one seed":
            relative = f" ({100 * mean / abs(self.mean_a):+.1f}% of {self.a})" if self.mean_a else ""
            return (
                head
                + f"{said}{relative} from one shared seed: no interval (1 seed: indicative only), run more seeds before trusting it."
            )
        diff = self.difference
        e = diff.estimate
        if self.relative:
            spread = f" ({e.value:+.1f}% of {self.a}, 95% interval {e.low:+.1f}% to {e.high:+.1f}%) over {self.n} seeds"
        else:
            spread = f" [95% interval {low:+.4g} to {self._num(high)}] over {self.n} seeds"
        if direction == "no detectable difference":
            return head + f"{said}{spread}: no detectable difference ({diff.why()})."
        if direction == "differs":  # no declared direction: the difference, never a judgement
            return head + f"{said}{spread}: {self.b} differs from {self.a} ({self.metric} has no better direction)."
        return head + f"{said}{spread}: {self.b} is {direction} than {self.a}."

    def estimate(self) -> Estimate:
        """The comparison as an Estimate a finding can carry: the relative change in % of a positive metric, with the
        log-scale interval, else the difference B - A with its Student-t interval (none with one seed)."""
        if self.n == 0:
            return Estimate(f"{self.b} - {self.a} {self.metric}{self.at}", math.nan, unit=self.unit, seeds=0)
        e = self.difference.estimate
        label = (f"{self.b} / {self.a} - 1" if self.relative else f"{self.b} - {self.a}") + f" {self.metric}{self.at}"
        return Estimate(label, e.value, e.low, e.high, e.unit, e.seeds, e.kind, e.lowest, e.highest)


def conditions(frame: pd.DataFrame) -> pd.Series:
    """Each record's measuring condition from ``extra`` (CONDITION_KEYS), as text ('' for none)."""

    def one(extra) -> str:
        if not isinstance(extra, dict):
            return ""
        return ", ".join(
            f"{k} {extra[k]}" for k in CONDITION_KEYS if k in extra and not isinstance(extra[k], (dict, list))
        )

    return frame["extra"].map(one) if "extra" in frame else pd.Series("", index=frame.index)


def _per_seed(rows: pd.DataFrame) -> dict[int, float]:
    return {int(seed): float(value) for seed, value in rows.groupby("seed").value.mean().items()}


def _contended_seeds(rows: pd.DataFrame, seeds) -> int:
    """How many of ``seeds`` have a record among ``rows`` timed under another process's load."""
    if "extra" not in rows:
        return 0
    busy = {int(s) for s, e in zip(rows.seed, rows.extra) if contended(e)}
    return len(busy & set(seeds))


def _at(x, x_name, condition: str) -> str:
    """' at eval_length=64 (pass fwd, causal True)': where a value was measured."""
    where = "" if x is None or (isinstance(x, float) and math.isnan(x)) else f" at {x_name or 'x'}={x:g}"
    return where + (f" ({condition})" if condition else "")


def paired(
    frame: pd.DataFrame,
    a: str,
    b: str,
    metrics: Sequence[str] | None = None,
    directions: Mapping[str, bool | None] | None = None,
) -> list[Comparison]:
    """One Comparison per metric, x and condition that both variants measured (status ok), in record order.

    ``directions``: metric -> higher_is_better as the suite declares it now (None: no better direction); it
    overrides what older records carry, and a metric it does not name keeps its records' direction.
    """
    ok = frame[(frame.status == "ok") & frame.variant.isin([a, b]) & frame.value.notna()].copy()
    if metrics:
        ok = ok[ok.metric.isin(metrics)]
    if not len(ok):
        return []
    ok["condition"] = conditions(ok)
    ok["x_key"] = ok.x.fillna(-math.inf) if "x" in ok else -math.inf
    out = []
    for (metric, x_key, condition), rows in ok.groupby(["metric", "x_key", "condition"], sort=False):
        va, vb = _per_seed(rows[rows.variant == a]), _per_seed(rows[rows.variant == b])
        if not va or not vb:
            continue
        first = rows.iloc[0]
        seeds = sorted(set(va) & set(vb))
        hib = first.get("higher_is_better")
        hib = directions[metric] if directions and metric in directions else (None if pd.isna(hib) else bool(hib))
        x = None if x_key == -math.inf else float(x_key)
        out.append(
            Comparison(
                a,
                b,
                metric,
                str(first.get("unit") or ""),
                hib,
                _at(x, first.get("x_name"), condition),
                mean_ci(va.values())[0],
                mean_ci(vb.values())[0],
                tuple(va[s] for s in seeds),
                tuple(vb[s] for s in seeds),
                x,
                _contended_seeds(rows[rows.variant == a], seeds),
                _contended_seeds(rows[rows.variant == b], seeds),
            )
        )
    return out


def table(comparisons: Sequence[Comparison]) -> pd.DataFrame:
    """The comparisons as rows for the terminal: metric, where, both means, B - A, its 95% interval (of the relative
    change B / A - 1 in % where every value is positive), seeds, verdict."""
    rows = []
    for c in comparisons:
        mean, low, high = c.interval
        rows.append(
            {
                "metric": c.metric + (f" ({c.unit})" if c.unit else ""),
                "at": c.at.strip().removeprefix("at ") or "-",
                c.a: f"{c.mean_a:.4g}" + (CONTENDED_MARK if c.contended_a else ""),
                c.b: f"{c.mean_b:.4g}" + (CONTENDED_MARK if c.contended_b else ""),
                f"{c.b} - {c.a}": "-" if c.n == 0 else f"{mean:+.4g}",
                # a positive metric's relative change with its log-ratio interval, else the difference's interval
                "95% interval": c.interval_text(),
                "seeds": c.n,
                "verdict": c.direction(),
            }
        )
    return pd.DataFrame(rows)
