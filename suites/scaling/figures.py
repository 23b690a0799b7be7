"""The scaling figures: loss against training compute per variant with its fitted law and band, and each variant's
compute multiplier against the baseline along compute."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.figures import finish, guide, log_axes, panels, styles
from suites.scaling.fit import multiplier, percentile_interval
from suites.scaling.ladder import BASELINE, split_rung
from suites.scaling.laws import EXTRAPOLATE, Fitted, band


def _grid(df: pd.DataFrame) -> np.ndarray:
    x = df[(df.metric == "loss") & (df.status == "ok")].x.astype(float)
    return np.logspace(np.log10(x.min()), np.log10(EXTRAPOLATE * x.max()), 80)


def law_figure(df: pd.DataFrame, laws: dict[str, Fitted], order: list[str], path: Path) -> Path:
    """Held-out loss against training FLOPs: each run's end (filled) and its earlier kept losses (hollow), the fitted
    law (line, dashed past the ladder) and its 95% bootstrap band."""
    look = styles(order)
    rows = df[(df.metric == "loss") & (df.status == "ok")]
    base = rows.variant.map(lambda v: split_rung(v)[0])
    grid = _grid(df)
    top = rows.x.astype(float).max()
    fig, axes = panels(size=(7.5, 4.8))
    ax = axes[0][0]
    for v in order:
        part = rows[base == v]
        end = part[part.extra.map(lambda e: float(e.get("fraction", 1.0)) == 1.0)]
        early = part.drop(end.index)
        s = look[v]
        ax.scatter(
            end.x.astype(float), end.value, color=s.colour, marker=s.marker, s=28, label=f"{v} (end of training)"
        )
        ax.scatter(early.x.astype(float), early.value, facecolors="none", edgecolors=s.colour, marker=s.marker, s=18)
        f = laws.get(v)
        if f is None or f.law is None:
            continue
        inside, outside = grid[grid <= top], grid[grid >= top]
        ax.plot(
            inside,
            [f.law.loss(c) for c in inside],
            color=s.colour,
            label=f"{v}: L = {f.law.E:.2f} + A C^-{f.law.alpha:.3f}",
        )
        ax.plot(outside, [f.law.loss(c) for c in outside], color=s.colour, linestyle="--")
        bounds = band(f, grid)
        if bounds is not None:
            ax.fill_between(grid, *bounds, color=s.colour, alpha=0.15, linewidth=0)
    ax.set_xscale("log")
    ax.set_xlabel("training compute C (FLOP, forward and backward)")
    ax.set_ylabel("held-out loss (nats/char)")
    ax.set_title("Loss against compute (hollow: earlier in training; dashed: extrapolated)", fontsize=10)
    ax.legend(fontsize=7)
    return finish(fig, path)


def multiplier_figure(df: pd.DataFrame, laws: dict[str, Fitted], order: list[str], path: Path) -> Path | None:
    """Each variant's compute multiplier against the baseline along compute, with its 95% bootstrap band; 1 is parity."""
    base = laws.get(BASELINE)
    others = [v for v in order if v != BASELINE and laws.get(v) and laws[v].law is not None]
    if base is None or base.law is None or not others:
        return None
    look = styles(order)
    grid = _grid(df)
    fig, axes = panels(size=(7.5, 4.2))
    ax = axes[0][0]
    for v in others:
        f = laws[v]
        ax.plot(grid, [multiplier(f.law, base.law, c) for c in grid], color=look[v].colour, label=v)
        if f.draws and base.draws:
            bands = [percentile_interval([multiplier(a, b, c) for a, b in zip(f.draws, base.draws)]) for c in grid]
            ax.fill_between(
                grid, [b[0] for b in bands], [b[1] for b in bands], color=look[v].colour, alpha=0.15, linewidth=0
            )
    guide(ax, y=1.0, style=":")
    guide(ax, x=df[(df.metric == "loss") & (df.status == "ok")].x.astype(float).max(), width=0.8)
    log_axes(ax, x=10, y=10)
    ax.set_xlabel("training compute C (FLOP)")
    ax.set_ylabel(f"compute multiplier against {BASELINE} (x)")
    ax.set_title(
        "Compute the baseline needs for the variant's loss, per unit spent (right of the dashed line: extrapolated)"
    )
    ax.legend(fontsize=8)
    return finish(fig, path)
