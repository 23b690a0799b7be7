"""Compute multipliers read off the ladder itself: each rung's paired loss difference, variant minus baseline, mapped
through the local slope of the baseline's measured loss-compute curve.

The multiplier of a variant at rung r is the compute the baseline needs to reach the variant's loss, over the
baseline's compute at that rung: above 1 the variant is worth more compute than the rung's budget ("worth 1.3x
compute"), below 1 less. The baseline's curve is its mean final loss over seeds at each rung against the log of the
rung's training FLOPs, joined rung to rung by straight lines (the local slope between neighbouring rungs; past the
ladder's ends, the end segment's slope, and the row says so). The variant's loss at rung r is the curve's value there
plus the paired difference d (harness/paired.py), so the multiplier is exp(ln C_b(L_b(r) + d) - ln C_r), and its
interval is the paired difference's 95% interval mapped through the same curve. The mapping is monotone and gives
exactly 1 at d = 0, so the interval excludes 1 exactly when the paired test counts: it is the verdicts' own test,
read in compute (tests/unit/suites/scaling/test_scaling_multipliers.py simulates its coverage on null ladders).

No multiplier is given past the ladder's last rung: the ladder measures nothing there, and a law's functional form
alone is not a measurement. None either where the baseline's mean loss does not fall from rung to rung (the curve
cannot be inverted), or at one seed (a value, no interval).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from harness.paired import Difference, paired

#: one arm's final losses at each rung: rung -> {seed: loss}
Losses = Mapping[int, Mapping[int, float]]


@dataclass(frozen=True)
class Curve:
    """The baseline's loss against log compute, one node per rung (mean over seeds), piecewise linear between."""

    rungs: tuple[int, ...]
    log_compute: tuple[float, ...]
    loss: tuple[float, ...]

    @classmethod
    def of(cls, losses: Losses, compute: Mapping[int, float]) -> Curve:
        rungs = tuple(
            r for r in sorted(losses) if r in compute and compute[r] > 0 and _finite_values(losses[r]).size > 0
        )
        return cls(
            rungs,
            tuple(math.log(compute[r]) for r in rungs),
            tuple(float(_finite_values(losses[r]).mean()) for r in rungs),
        )

    def rise(self) -> tuple[int, int] | None:
        """The first pair of neighbouring rungs whose mean loss does not fall, or None when it falls at every rung."""
        for k in range(len(self.rungs) - 1):
            if not self.loss[k + 1] < self.loss[k]:
                return self.rungs[k], self.rungs[k + 1]
        return None

    def log_compute_for(self, loss: float) -> tuple[float, bool]:
        """(ln C at which the curve reaches ``loss``, whether that lies past the ladder's ends): the segment whose
        losses hold it, or the end segment's line beyond."""
        x, y = self.log_compute, self.loss
        if y[-1] <= loss <= y[0]:
            k = next(k for k in range(len(y) - 1) if y[k + 1] <= loss)
            outside = False
        else:
            k = 0 if loss > y[0] else len(y) - 2
            outside = True
        slope = (y[k + 1] - y[k]) / (x[k + 1] - x[k])  # nats per unit of log compute, negative
        return x[k] + (loss - y[k]) / slope, outside


@dataclass(frozen=True)
class RungMultiplier:
    """A variant's multiplier against the baseline at one rung, with its 95% interval (None: why in ``note``)."""

    variant: str
    rung: int
    #: the baseline's training FLOPs at this rung, the compute the multiplier is per unit of
    compute: float
    difference: Difference
    value: float | None
    interval: tuple[float, float] | None
    #: whether the value or an end of its interval reads the baseline's curve past the ladder's ends
    outside: bool = False
    #: why there is no multiplier, or no interval
    note: str = ""


def rung_multipliers(
    variant: str, losses: Losses, baseline: Losses, compute: Mapping[int, float], unit: str = "nats/char"
) -> list[RungMultiplier]:
    """The variant's multiplier at every rung both arms reached, from the paired difference of its final losses and
    the baseline's curve (``compute``: the baseline's training FLOPs per rung)."""
    curve = Curve.of(baseline, compute)
    out = []
    for r in sorted(set(losses) & set(curve.rungs)):
        diff = paired(f"{variant} - baseline loss, rung {r}", losses[r], baseline[r], unit)
        out.append(_at(variant, r, diff, curve, compute[r]))
    return out


def _at(variant: str, rung: int, diff: Difference, curve: Curve, compute: float) -> RungMultiplier:
    def none(note: str) -> RungMultiplier:
        return RungMultiplier(variant, rung, compute, diff, None, None, note=note)

    if len(curve.rungs) < 2:
        return none("one rung: no loss-compute slope to read a multiplier through")
    rise = curve.rise()
    if rise is not None:
        return none(
            f"the baseline's mean loss does not fall from rung {rise[0]} to rung {rise[1]}, so its loss-compute "
            "curve cannot be inverted"
        )
    if math.isnan(diff.mean):
        return none("no paired seeds")
    node = curve.loss[curve.rungs.index(rung)]
    here = math.log(compute)

    def multiplier(d: float) -> tuple[float, bool]:
        log_c, outside = curve.log_compute_for(node + d)
        return math.exp(log_c - here), outside

    value, outside = multiplier(diff.mean)
    e = diff.estimate
    if diff.one_seed or e.low is None or e.high is None:
        return RungMultiplier(variant, rung, compute, diff, value, None, outside, "1 seed: no interval")
    (high, out_high), (low, out_low) = multiplier(e.low), multiplier(e.high)  # a lower loss is a larger multiplier
    return RungMultiplier(variant, rung, compute, diff, value, (low, high), outside or out_low or out_high)


def _finite_values(values: Mapping[int, float]) -> np.ndarray:
    v = np.asarray([float(x) for x in values.values() if x is not None], dtype=float)
    return v[np.isfinite(v)]
