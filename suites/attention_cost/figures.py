"""Figures of the attention_cost report: latency and peak memory against sequence length, log-log."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import save_figure


def latency_and_memory_figures(df: pd.DataFrame, folder: Path) -> list[Path]:
    """Log-log latency and peak memory against length: a panel per (mask, pass), a line per kernel and heads."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for metric, label, name in (
        ("latency", "latency (ms)", "attention_cost_latency"),
        ("peak_memory", "peak memory (MiB)", "attention_cost_memory"),
    ):
        data = df[(df.metric == metric) & (df.status == "ok")].copy()
        if not len(data):
            continue
        data["mask"] = data.causal.map({True: "causal", False: "full"})
        masks, passes = sorted(data["mask"].unique(), reverse=True), sorted(data["pass"].unique())
        fig, axes = plt.subplots(len(masks), len(passes), figsize=(5.2 * len(passes), 3.8 * len(masks)), squeeze=False)
        hue_order, style_order = sorted(data.kernel.unique()), sorted(data.heads.unique())
        for i, mask in enumerate(masks):
            for j, pass_ in enumerate(passes):
                ax = axes[i][j]
                part = data[(data["mask"] == mask) & (data["pass"] == pass_)]
                if len(part):
                    sns.lineplot(
                        data=part,
                        x="x",
                        y="value",
                        hue="kernel",
                        style="heads",
                        hue_order=hue_order,
                        style_order=style_order,
                        marker="o",
                        errorbar=None,
                        ax=ax,
                        legend=(i == 0 and j == 0),
                    )
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set(xlabel="sequence length (tokens)", ylabel=label, title=f"{pass_}, {mask} mask")
        fig.suptitle(f"Attention {label} against sequence length (log-log, one line per kernel and head grouping)")
        fig.tight_layout()
        path = folder / f"{name}.png"
        save_figure(fig, path)
        paths.append(path)
    return paths
