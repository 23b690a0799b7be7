"""The gradient_flow figures: gradient reach against distance, the spectral-radius sweep, accuracy against lag."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, guide, panels
from suites.gradient_flow.tables import FLOOR, log10

DISTANCE = "distance from the loss (steps)"
REACH = "log10 ||dL/dh_k|| / ||dL/dh_(T-1)||"


def _reach(frame: pd.DataFrame) -> pd.DataFrame:
    """The gradient norms above the floor, their log10 as ``log``, x renamed to the distance it is."""
    data = frame[frame.value > FLOOR]
    return data.assign(log=log10(data.value)).rename(columns={"x": DISTANCE})


def figures(flow: pd.DataFrame, sweep: pd.DataFrame, ok: pd.DataFrame, variants: list[str], folder: Path):
    """The gradient reach, radius sweep and lag figures, those the records hold: (caption, path) each."""
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    if len(flow):
        data = _reach(flow)
        phases = [p for p in ("init", "trained") if p in set(data.phase)]
        fig, axes = panels(1, len(phases), (6 * len(phases), 4.2), sharey=True)
        for ax, phase in zip(axes[0], phases):
            title = "at initialisation" if phase == "init" else "after training"
            curves(ax, data[data.phase == phase], DISTANCE, "log", order=variants, title=title, ylabel=REACH)
        path = finish(fig, folder / "gradient_flow_distance.png", "How far back the gradient reaches")
        made.append(("gradient norm against distance", path))
    if len(sweep):
        data = _reach(sweep)
        cells = sorted(data.variant.unique())
        fig, axes = panels(1, len(cells), (6 * len(cells), 4.2), sharey=True)
        for ax, v in zip(axes[0], cells):
            part = data[data.variant == v]
            curves(ax, part, DISTANCE, "log", "radius", interval=False, palette="coolwarm", legend="full")
            guide(ax, y=0)
            ax.set_title(f"{v} at initialisation")
            ax.set_ylabel(REACH)
            ax.legend(title="spectral radius", fontsize=8)
        made.append(("spectral-radius sweep", finish(fig, folder / "gradient_flow_radius.png")))
    acc = ok[ok.metric == "copy_accuracy"].rename(columns={"x": "lag (steps)", "value": "held-out recall accuracy"})
    if len(acc):
        fig, axes = panels(size=(7, 4.2))
        ax = axes[0][0]
        curves(ax, acc, "lag (steps)", "held-out recall accuracy", order=variants, marker="o")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_title("Copy-task accuracy against lag")
        made.append(("accuracy against lag", finish(fig, folder / "gradient_flow_lags.png")))
    return made
