"""The attention_scaling figures: score statistics against d_k at initialisation, and the training loss curves."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, log_axes, panels


def scaling_figures(ok: pd.DataFrame, variants: list[str], folder: Path, name: str):
    """The score statistics against d_k and the training loss curves, those the records hold: (caption, path) each."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    probe = ok[ok.metric.isin(["score_variance", "softmax_entropy", "softmax_saturated_fraction"])]
    if len(probe):
        stats = [
            ("score_variance", "variance of the score", True),
            ("softmax_entropy", "softmax entropy (nats)", False),
            ("softmax_saturated_fraction", "share of saturated queries", False),
        ]
        fig, axes = panels(1, 3, (15, 4.2))
        for ax, (metric, label, log) in zip(axes[0], stats):
            part = probe[probe.metric == metric].rename(columns={"x": "d_k", "value": label})
            curves(ax, part, "d_k", label, order=variants, marker="o", xlabel="key width d_k (dimensions per head)")
            log_axes(ax, x=2, y=10 if log else None)
            if metric == "score_variance":
                d = sorted(part.d_k.unique())
                ax.plot(d, d, color="grey", linestyle="--", linewidth=1, label="d_k (theory for q.k)")
                ax.legend(fontsize=8)
        path = finish(fig, folder / f"{name}_init.png", "Scores of unit-variance queries and keys at initialisation")
        made.append(("score statistics against d_k", path))
    curve = ok[ok.metric == "train_loss_curve"].rename(columns={"x": "step", "value": "training loss (nats/char)"})
    if len(curve):
        fig, axes = panels(size=(7, 4.2))
        curves(
            axes[0][0],
            curve,
            "step",
            "training loss (nats/char)",
            order=variants,
            xlabel="training step",
            title="Training loss at large d_k",
        )
        made.append(("training loss at large d_k", finish(fig, folder / f"{name}_training.png")))
    return made
