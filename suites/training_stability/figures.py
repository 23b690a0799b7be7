"""The training_stability figure: each layer's FFN gradient norm at initialisation, one panel per depth."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import pyplot, save_figure


def gradient_figure(grads: pd.DataFrame, variants: list[str], path: Path) -> Path:
    import seaborn as sns

    plt = pyplot()
    depths = sorted(int(d) for d in grads.depth.dropna().unique()) or [0]
    fig, axes = plt.subplots(1, len(depths), figsize=(4.5 * len(depths), 4), squeeze=False)
    for ax, depth in zip(axes[0], depths):
        part = grads[grads.depth == depth].rename(columns={"x": "layer", "value": "FFN gradient norm ||dL/dW||"})
        sns.lineplot(
            data=part,
            x="layer",
            y="FFN gradient norm ||dL/dW||",
            hue="variant",
            marker="o",
            hue_order=[v for v in variants if v in set(part.variant)],
            errorbar=("ci", 95),
            seed=0,
            ax=ax,
        )
        ax.set_yscale("log")
        ax.set_title(f"{depth} layers")
        ax.set_xticks(range(1, depth + 1) if depth <= 12 else range(1, depth + 1, max(1, depth // 12)))
    fig.suptitle("FFN weight gradient norm by layer at initialisation")
    fig.tight_layout()
    return save_figure(fig, path)
