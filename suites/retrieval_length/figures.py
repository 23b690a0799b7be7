"""The report's figures: accuracy against length per arm, and accuracy by length and depth per arm."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, guide, heatmap, panel_grid, panels
from suites.retrieval_length.records import ok_records
from suites.retrieval_length.tables import arms


def accuracy_figure(df: pd.DataFrame, variants: list[str], settings: dict, path: Path) -> Path:
    """Accuracy (mean over depths) against evaluation length, one line per arm, the interval over seeds."""
    ok = ok_records(df)
    frames = []
    for label, v, metric in arms(df, variants, settings):
        rows = ok[(ok.variant == v) & (ok.metric == metric)]
        frames.append(
            pd.DataFrame({"arm": label, "length": rows.x.astype(float), "accuracy": rows.value.astype(float)})
        )
    data = pd.concat(frames) if frames else pd.DataFrame(columns=["arm", "length", "accuracy"])
    fig, axes = panels(size=(8, 4.5))
    ax = axes[0][0]
    curves(ax, data, "length", "accuracy", "arm", marker="o")
    ax.set_xscale("log", base=2)
    guide(ax, x=float(settings["train_len"]), style=":")
    ax.set_xlabel("evaluation length (characters, log scale; dotted: training length L)")
    ax.set_ylabel("passkey accuracy (exact match)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title("Passkey retrieval against length")
    return finish(fig, path, tight=False)


def depth_figure(df: pd.DataFrame, variants: list[str], settings: dict, path: Path) -> Path:
    """One heatmap per arm: accuracy by evaluation length (columns) and needle depth (rows), mean over seeds."""
    ok = ok_records(df)
    found = arms(df, variants, settings)
    fig, axes = panel_grid(len(found), 4, (3.2, 2.6))
    for ax in axes:
        ax.axis("off")
    for ax, (label, v, metric) in zip(axes, found):
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
        heatmap(
            ax,
            grid,
            xlabel="evaluation length (characters)",
            ylabel="needle depth (fraction)",
            vmin=0,
            vmax=1,
            cmap="viridis",
            annot=True,
            fmt=".2f",
            annot_kws={"size": 6},
            cbar=False,
        )
        ax.set_title(label, fontsize=8)
    return finish(fig, path, "Passkey accuracy by length and needle depth")
