"""Each variant's law on the runs' final losses, behind the ladder's gate, and the per-rung compute multipliers against
the baseline, from one group of records: what the report's tables and figures show."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from suites.scaling.fit import MIN_DECADES, MIN_RUNGS, Gate, Law, Profiled, fit_law, flatten, gate, profile
from suites.scaling.ladder import BASELINE
from suites.scaling.multipliers import RungMultiplier, rung_multipliers
from suites.scaling.tables import bases, final_losses, points, rung_compute, unbracketed


@dataclass
class Fitted:
    """One variant's ladder: its gate, and behind it the law with its floor's and exponent's profile intervals (None:
    no law fitted, ``gate.why_not()`` says why)."""

    variant: str
    gate: Gate
    law: Law | None = None
    E: Profiled | None = None
    alpha: Profiled | None = None
    n_points: int = 0


def fitted(df: pd.DataFrame) -> dict[str, Fitted]:
    """variant -> its ladder's law, fitted to one point per run only where the ladder passes the gate."""
    compute = rung_compute(df)
    out = {}
    for variant, pts in sorted(points(df).items()):
        c, loss = flatten(pts)
        g = gate({r: x for (v, r), x in compute.items() if v == variant and any(k[0] == r for k in pts)})
        if not g.passes:
            out[variant] = Fitted(variant, g, n_points=len(c))
            continue
        out[variant] = Fitted(variant, g, fit_law(c, loss), profile(c, loss, "E"), profile(c, loss, "alpha"), len(c))
    return out


def law_table(laws: dict[str, Fitted], order: list[str]) -> pd.DataFrame:
    rows = []
    for v in order:
        f = laws.get(v)
        if f is None:
            continue
        row = {"variant": v, "runs": f.n_points, "rungs": f.gate.rungs, "decades of compute": f"{f.gate.decades:.2f}"}
        if f.law is None or f.E is None or f.alpha is None:
            why = "no law fitted" + ("" if f.gate.passes else f": needs {MIN_RUNGS} rungs over {MIN_DECADES:g} decades")
            rows.append(row | {"E (nats/char)": why, "α": "-", "log residual (RMS / largest)": "-"})
            continue
        largest = max(abs(r) for r in f.law.residuals)
        rows.append(
            row
            | {
                "E (nats/char)": f.E.show(),
                "α": f.alpha.show(),
                "log residual (RMS / largest)": f"{f.law.rms_residual:.4f} / {largest:.4f}",
            }
        )
    return pd.DataFrame(rows)


def multipliers(df: pd.DataFrame) -> list[RungMultiplier]:
    """Each variant's multiplier against the baseline at every rung both reached (multipliers.py), variants in the
    records' order."""
    losses, compute = final_losses(df), rung_compute(df)
    base = {r: s for (v, r), s in losses.items() if v == BASELINE}
    base_compute = {r: c for (v, r), c in compute.items() if v == BASELINE}
    out = []
    for v in bases(df):
        if v == BASELINE:
            continue
        mine = {r: s for (w, r), s in losses.items() if w == v}
        out += rung_multipliers(v, mine, base, base_compute)
    return out


def multiplier_table(df: pd.DataFrame, rows: list[RungMultiplier]) -> pd.DataFrame:
    compute = rung_compute(df)
    open_ = unbracketed(df)

    def fmt(x: float) -> str:
        return f"{x:.2f}x"

    out = []
    for m in rows:
        d = m.difference.estimate
        ratio = compute.get((m.variant, m.rung), math.nan) / m.compute
        sweep = [w for w in (m.variant, BASELINE) if (w, m.rung) in open_]
        out.append(
            {
                "variant": m.variant,
                "rung": m.rung,
                "baseline FLOPs": f"{m.compute:.3g}",
                "variant's FLOPs / baseline's": f"{ratio:.3f}",
                "loss difference (nats/char)": f"{d.value:+.4f}"
                + (f" [{d.low:+.4f}, {d.high:+.4f}]" if d.low is not None else ""),
                "multiplier": "none" if m.value is None else fmt(m.value),
                "95% interval": (f"[{fmt(m.interval[0])}, {fmt(m.interval[1])}]" if m.interval else "none")
                + (" (an end read past the ladder)" if m.outside else ""),
                "note": "; ".join(
                    ([m.note] if m.note else [])
                    + ([f"not bracketed ({', '.join(sweep)} kept an end of the sweep)"] if sweep else [])
                )
                or "-",
            }
        )
    return pd.DataFrame(out)


__all__ = ["Fitted", "bases", "fitted", "law_table", "multiplier_table", "multipliers"]
