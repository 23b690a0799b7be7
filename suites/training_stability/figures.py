"""The training_stability figure: each layer's FFN gradient norm at initialisation, one panel per depth."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, panels

NORM = "FFN gradient norm ||dL/dW||"


def gradient_figure(grads: pd.DataFrame, variants: list[str], path: Path) -> Path:
    """Each layer's FFN weight gradient norm at initialisation, a panel per depth, a line per variant."""
    depths = sorted(int(d) for d in grads.depth.dropna().unique()) or [0]
    fig, axes = panels(1, len(depths), (4.5 * len(depths), 4))
    for ax, depth in zip(axes[0], depths):
        part = grads[grads.depth == depth].rename(columns={"x": "layer", "value": NORM})
        curves(ax, part, "layer", NORM, order=variants, marker="o")
        ax.set_yscale("log")
        ax.set_title(f"{depth} layers")
        ax.set_xticks(range(1, depth + 1) if depth <= 12 else range(1, depth + 1, max(1, depth // 12)))
    return finish(fig, path, "FFN weight gradient norm by layer at initialisation")
