"""Each variant's fitted law with its bootstrap, and the compute multipliers against the baseline, from one group of
records: what the report's tables and figures show."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from suites.scaling.fit import MIN_POINTS, Law, bootstrap_laws, fit_law, flatten, multiplier, percentile_interval
from suites.scaling.ladder import BASELINE
from suites.scaling.tables import bases, points, rung_compute

#: how far past the ladder's largest compute the multiplier is extrapolated: one decade
EXTRAPOLATE = 10.0


@dataclass
class Fitted:
    """One variant's law (None: too few points), its bootstrap draws and the points it was fitted to."""

    variant: str
    law: Law | None
    draws: list[Law] = field(default_factory=list)
    n_points: int = 0

    def interval(self, name: str) -> tuple[float, float] | None:
        return percentile_interval([getattr(d, name) for d in self.draws])


def fitted(df: pd.DataFrame) -> dict[str, Fitted]:
    """variant -> its law, bootstrapped over seeds within rungs (a different resampling stream per variant)."""
    out = {}
    for k, (variant, pts) in enumerate(sorted(points(df).items())):
        compute, loss = flatten(pts)
        out[variant] = Fitted(variant, fit_law(compute, loss), bootstrap_laws(pts, seed=k), len(compute))
    return out


def law_table(laws: dict[str, Fitted], order: list[str]) -> pd.DataFrame:
    rows = []
    for v in order:
        f = laws.get(v)
        if f is None:
            continue
        row = {"variant": v, "points": f.n_points}
        if f.law is None:
            row |= {
                "E": f"no fit: fewer than {MIN_POINTS} points",
                "A": "-",
                "α": "-",
                "log residual (RMS / largest)": "-",
            }
            rows.append(row)
            continue
        for name, label in (("E", "E"), ("A", "A"), ("alpha", "α")):
            value, ci = getattr(f.law, name), f.interval(name)
            row[label] = f"{value:.3g}" + (f" [{ci[0]:.3g}, {ci[1]:.3g}]" if ci else "")
        largest = max(abs(r) for r in f.law.residuals)
        row["log residual (RMS / largest)"] = f"{f.law.rms_residual:.4f} / {largest:.4f}"
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Multiplier:
    variant: str
    where: str
    compute: float
    value: float
    interval: tuple[float, float] | None
    #: bootstrap draws where the baseline never reaches the variant's loss (below its floor)
    unreached: int = 0


def multipliers(df: pd.DataFrame, laws: dict[str, Fitted]) -> list[Multiplier]:
    """Each variant's multiplier against the baseline at each rung's compute (the baseline's, mean over seeds) and
    one decade past the largest; the interval pairs the i-th bootstrap draw of each, resampled independently."""
    base = laws.get(BASELINE)
    if base is None or base.law is None:
        return []
    compute = rung_compute(df)
    rungs = sorted(r for (v, r) in compute if v == BASELINE)
    where = [(f"rung {r}", compute[(BASELINE, r)]) for r in rungs]
    if where:
        where.append((f"{EXTRAPOLATE:g}x rung {rungs[-1]} (extrapolated)", EXTRAPOLATE * where[-1][1]))
    out = []
    for v, f in laws.items():
        if v == BASELINE or f.law is None:
            continue
        for label, c in where:
            draws = [multiplier(a, b, c) for a, b in zip(f.draws, base.draws)]
            unreached = sum(1 for x in draws if math.isinf(x))
            out.append(Multiplier(v, label, c, multiplier(f.law, base.law, c), percentile_interval(draws), unreached))
    return out


def multiplier_table(rows: list[Multiplier], n_draws: int) -> pd.DataFrame:
    def fmt(x: float) -> str:
        return "never (below the baseline's floor)" if math.isinf(x) else f"{x:.2f}x"

    return pd.DataFrame(
        [
            {
                "variant": m.variant,
                "at": m.where,
                "compute (FLOP)": f"{m.compute:.3g}",
                "multiplier": fmt(m.value),
                "95% interval": (f"[{fmt(m.interval[0])}, {fmt(m.interval[1])}]" if m.interval else "none (1 seed)")
                + (f"; {m.unreached} of {n_draws} draws never reached" if m.unreached else ""),
            }
            for m in rows
        ]
    )


def band(f: Fitted, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The 2.5th and 97.5th percentiles of the bootstrap laws' losses at each compute of ``grid``."""
    if not f.draws:
        return None
    values = np.array([[d.loss(c) for c in grid] for d in f.draws])
    return np.percentile(values, 2.5, axis=0), np.percentile(values, 97.5, axis=0)


__all__ = ["Fitted", "Multiplier", "band", "bases", "fitted", "law_table", "multiplier_table", "multipliers"]
