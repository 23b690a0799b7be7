"""The attention_scaling figures: score statistics against d_k at initialisation, and the training loss curves."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import pyplot, save_figure


def scaling_figures(ok: pd.DataFrame, variants: list[str], folder: Path, name: str):
    import seaborn as sns

    plt = pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    probe = ok[ok.metric.isin(["score_variance", "softmax_entropy", "softmax_saturated_fraction"])]
    if len(probe):
        panels = [
            ("score_variance", "variance of the score", True),
            ("softmax_entropy", "softmax entropy (nats)", False),
            ("softmax_saturated_fraction", "share of saturated queries", False),
        ]
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
        for ax, (metric, label, log) in zip(axes, panels):
            part = probe[probe.metric == metric].rename(columns={"x": "d_k", "value": label})
            sns.lineplot(
                data=part,
                x="d_k",
                y=label,
                hue="variant",
                marker="o",
                errorbar=("ci", 95),
                seed=0,
                ax=ax,
                hue_order=[v for v in variants if v in set(part.variant)],
            )
            ax.set_xscale("log", base=2)
            if log:
                ax.set_yscale("log")
            if metric == "score_variance":
                d = sorted(part.d_k.unique())
                ax.plot(d, d, color="grey", linestyle="--", linewidth=1, label="d_k (theory for q.k)")
                ax.legend(fontsize=8)
        fig.suptitle("Scores of unit-variance queries and keys at initialisation")
        fig.tight_layout()
        made.append(("score statistics against d_k", save_figure(fig, folder / f"{name}_init.png")))
    curve = ok[ok.metric == "train_loss_curve"].rename(columns={"x": "step", "value": "training loss (nats/char)"})
    if len(curve):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        sns.lineplot(
            data=curve,
            x="step",
            y="training loss (nats/char)",
            hue="variant",
            errorbar=("ci", 95),
            seed=0,
            ax=ax,
            hue_order=[v for v in variants if v in set(curve.variant)],
        )
        ax.set_title("Training loss at large d_k")
        fig.tight_layout()
        made.append(("training loss at large d_k", save_figure(fig, folder / f"{name}_training.png")))
    return made
