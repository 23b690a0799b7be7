"""The gradient_flow figures: gradient reach against distance, the spectral-radius sweep, accuracy against lag."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import pyplot, save_figure
from suites.gradient_flow.tables import FLOOR, log10


def figures(flow: pd.DataFrame, sweep: pd.DataFrame, ok: pd.DataFrame, variants: list[str], folder: Path):
    plt = pyplot()
    import seaborn as sns

    folder.mkdir(parents=True, exist_ok=True)
    made = []
    if len(flow):
        data = flow[flow.value > FLOOR]
        data = data.assign(log=log10(data.value)).rename(columns={"x": "distance from the loss (steps)"})
        phases = [p for p in ("init", "trained") if p in set(data.phase)]
        fig, axes = plt.subplots(1, len(phases), figsize=(6 * len(phases), 4.2), sharey=True, squeeze=False)
        for ax, phase in zip(axes[0], phases):
            sns.lineplot(
                data=data[data.phase == phase],
                x="distance from the loss (steps)",
                y="log",
                hue="variant",
                hue_order=[v for v in variants if v in set(data.variant)],
                errorbar=("ci", 95),
                seed=0,
                ax=ax,
            )
            ax.set_title("at initialisation" if phase == "init" else "after training")
            ax.set_ylabel("log10 ||dL/dh_k|| / ||dL/dh_(T-1)||")
        fig.suptitle("How far back the gradient reaches")
        fig.tight_layout()
        made.append(("gradient norm against distance", save_figure(fig, folder / "gradient_flow_distance.png")))
    if len(sweep):
        data = sweep[sweep.value > FLOOR]
        data = data.assign(log=log10(data.value)).rename(columns={"x": "distance from the loss (steps)"})
        cells = sorted(data.variant.unique())
        fig, axes = plt.subplots(1, len(cells), figsize=(6 * len(cells), 4.2), sharey=True, squeeze=False)
        for ax, v in zip(axes[0], cells):
            sns.lineplot(
                data=data[data.variant == v],
                x="distance from the loss (steps)",
                y="log",
                hue="radius",
                palette="coolwarm",
                errorbar=None,
                ax=ax,
                legend="full",
            )
            ax.axhline(0, color="grey", linewidth=1, linestyle="--")
            ax.set_title(f"{v} at initialisation")
            ax.set_ylabel("log10 ||dL/dh_k|| / ||dL/dh_(T-1)||")
            ax.legend(title="spectral radius", fontsize=8)
        fig.tight_layout()
        made.append(("spectral-radius sweep", save_figure(fig, folder / "gradient_flow_radius.png")))
    acc = ok[ok.metric == "copy_accuracy"].rename(columns={"x": "lag (steps)", "value": "held-out recall accuracy"})
    if len(acc):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        sns.lineplot(
            data=acc,
            x="lag (steps)",
            y="held-out recall accuracy",
            hue="variant",
            marker="o",
            hue_order=[v for v in variants if v in set(acc.variant)],
            errorbar=("ci", 95),
            seed=0,
            ax=ax,
        )
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_title("Copy-task accuracy against lag")
        fig.tight_layout()
        made.append(("accuracy against lag", save_figure(fig, folder / "gradient_flow_lags.png")))
    return made
