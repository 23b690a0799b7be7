"""The scaling figures: loss against training compute per variant with its fitted law where one is fitted, and each
variant's compute multiplier against the baseline at each rung with its 95% interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.figures import finish, guide, log_axes, panels, styles
from suites.scaling.ladder import BASELINE, split_rung
from suites.scaling.laws import Fitted, multipliers


def law_figure(df: pd.DataFrame, laws: dict[str, Fitted], order: list[str], path: Path) -> Path:
    """Held-out loss against training FLOPs: each run's end (filled: the law's points) and its earlier kept losses
    (hollow, never fitted), and the fitted law within the ladder where one is fitted."""
    look = styles(order)
    rows = df[(df.metric == "loss") & (df.status == "ok")]
    base = rows.variant.map(lambda v: split_rung(v)[0])
    fig, axes = panels(size=(7.5, 4.8))
    ax = axes[0][0]
    for v in order:
        part = rows[base == v]
        end = part[part.extra.map(lambda e: float((e or {}).get("fraction", 1.0)) == 1.0)]
        early = part.drop(end.index)
        s = look[v]
        ax.scatter(
            end.x.astype(float), end.value, color=s.colour, marker=s.marker, s=28, label=f"{v} (end of training)"
        )
        ax.scatter(early.x.astype(float), early.value, facecolors="none", edgecolors=s.colour, marker=s.marker, s=18)
        f = laws.get(v)
        if f is None or f.law is None or not len(end):
            continue
        grid = np.geomspace(end.x.astype(float).min(), end.x.astype(float).max(), 60)
        ax.plot(grid, [f.law.loss(c) for c in grid], color=s.colour, label=f"{v}: law fitted to the ends")
    ax.set_xscale("log")
    ax.set_xlabel("training compute C (FLOP, forward and backward)")
    ax.set_ylabel("held-out loss (nats/char)")
    ax.set_title("Loss against compute (filled: end of training, the law's points; hollow: earlier)", fontsize=10)
    ax.legend(fontsize=7)
    return finish(fig, path)


def multiplier_figure(df: pd.DataFrame, order: list[str], path: Path) -> Path | None:
    """Each variant's compute multiplier against the baseline at each rung's compute, with its 95% interval; 1 is
    parity. Nothing is drawn past the ladder's last rung."""
    rows = [m for m in multipliers(df) if m.value is not None]
    if not rows:
        return None
    look = styles(order)
    fig, axes = panels(size=(7.5, 4.2))
    ax = axes[0][0]
    variants = [v for v in order if any(m.variant == v for m in rows)]
    for k, v in enumerate(variants):
        mine = [m for m in rows if m.variant == v]
        shift = 1.0 + 0.04 * (k - (len(variants) - 1) / 2)  # side by side at each rung
        x = np.array([m.compute * shift for m in mine])
        y = np.array([m.value for m in mine])
        low = np.array([m.interval[0] if m.interval else m.value for m in mine])
        high = np.array([m.interval[1] if m.interval else m.value for m in mine])
        s = look[v]
        ax.errorbar(x, y, yerr=[y - low, high - y], color=s.colour, marker=s.marker, linestyle="-", capsize=3, label=v)
    guide(ax, y=1.0, style=":")
    log_axes(ax, x=10, y=10)
    ax.set_xlabel("training compute of the rung, C (FLOP)")
    ax.set_ylabel(f"compute multiplier against {BASELINE} (x)")
    ax.set_title("Compute multiplier at each rung, with its 95% paired interval", fontsize=10)
    ax.legend(fontsize=8)
    return finish(fig, path)
