"""The report's figures: accuracy against length per arm, and accuracy by length and depth per arm."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import pyplot, save_figure
from suites.retrieval_length.records import ok_records
from suites.retrieval_length.tables import arms


def accuracy_figure(df: pd.DataFrame, variants: list[str], settings: dict, path: Path) -> Path:
    """Accuracy (mean over depths) against evaluation length, one line per arm, the interval over seeds."""
    import seaborn as sns

    plt = pyplot()
    ok = ok_records(df)
    frames = []
    for label, v, metric in arms(df, variants, settings):
        rows = ok[(ok.variant == v) & (ok.metric == metric)]
        frames.append(
            pd.DataFrame({"arm": label, "length": rows.x.astype(float), "accuracy": rows.value.astype(float)})
        )
    data = pd.concat(frames) if frames else pd.DataFrame(columns=["arm", "length", "accuracy"])
    fig, ax = plt.subplots(figsize=(8, 4.5))
    sns.lineplot(data=data, x="length", y="accuracy", hue="arm", marker="o", errorbar=("ci", 95), seed=0, ax=ax)
    ax.set_xscale("log", base=2)
    ax.axvline(float(settings["train_len"]), color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("evaluation length (characters, log scale; dotted: training length L)")
    ax.set_ylabel("passkey accuracy (exact match)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title("Passkey retrieval against length")
    return save_figure(fig, path)


def depth_figure(df: pd.DataFrame, variants: list[str], settings: dict, path: Path) -> Path:
    """One heatmap per arm: accuracy by evaluation length (columns) and needle depth (rows), mean over seeds."""
    import seaborn as sns

    plt = pyplot()
    ok = ok_records(df)
    found = arms(df, variants, settings)
    cols = min(4, max(1, len(found)))
    rows_n = max(1, -(-len(found) // cols))
    fig, axes = plt.subplots(rows_n, cols, figsize=(3.2 * cols, 2.6 * rows_n), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, (label, v, metric) in zip(axes.flat, found):
        recs = ok[(ok.variant == v) & (ok.metric == metric)]
        cells = []
        for r in recs.itertuples():
            e = r.extra if isinstance(r.extra, dict) else {}
            for d, acc in zip(e.get("depths", ()), e.get("by_depth", ())):
                cells.append({"length": int(r.x), "depth": float(d), "accuracy": float(acc)})
        if not cells:
            continue
        grid = pd.DataFrame(cells).pivot_table(index="depth", columns="length", values="accuracy", aggfunc="mean")
        ax.axis("on")
        sns.heatmap(
            grid, vmin=0, vmax=1, cmap="viridis", annot=True, fmt=".2f", annot_kws={"size": 6}, cbar=False, ax=ax
        )
        ax.set_title(label, fontsize=8)
        ax.set_xlabel("evaluation length")
        ax.set_ylabel("needle depth")
    fig.suptitle("Passkey accuracy by length and needle depth")
    fig.tight_layout()
    return save_figure(fig, path)
