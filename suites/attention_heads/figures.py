"""Figures of the attention_heads report: a layer x head grid of every statistic, and kept attention maps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.figures import finish, heatmap, panel_grid, panels

#: (statistic, colour-bar label, number format, fixed colour range or None)
GRID_PANELS = (
    ("entropy", "attention entropy (nats)", ".2f", None),
    ("mean_distance", "mean attention distance (tokens)", ".1f", None),
    ("previous_token_share", "share of attention on the previous token", ".2f", (0.0, 1.0)),
    ("first_token_share", "share of attention on the first token", ".2f", (0.0, 1.0)),
    ("delimiter_share", "share of attention on delimiters", ".2f", (0.0, 1.0)),
    ("offset_share", "share at the most attended fixed offset (cell: offset)", "", (0.0, 1.0)),
)


def shown(char: str) -> str:
    """A character as a tick label: space and line breaks made visible."""
    return {" ": "␣", "\n": "↵", "\t": "→", "\r": "↵"}.get(char, char)


def grid_figure(heads: pd.DataFrame, variant: str, seed: int, path: Path, uniform_entropy: float | None = None) -> Path:
    """One panel per statistic, layers as rows (layer 1 on top) and heads as columns, each cell annotated.

    ``heads`` has one row per (metric, layer, head) of one variant and seed, with columns metric, layer,
    head, value and offset (for offset_share).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    n_layers, n_heads = int(heads.layer.max()) + 1, int(heads["head"].max()) + 1
    fig, axes = panels(2, 3, (max(11.0, 3 * 0.42 * n_heads + 4.5), 2 * (0.5 * n_layers + 1.6)))
    for ax, (metric, label, fmt, limits) in zip(axes.flat, GRID_PANELS):
        part = heads[heads.metric == metric]
        grid = part.pivot_table(index="layer", columns="head", values="value", aggfunc="mean")
        grid = grid.reindex(index=range(n_layers), columns=range(n_heads))
        if metric == "offset_share":
            offsets = part.pivot_table(index="layer", columns="head", values="offset", aggfunc="first")
            annot = (
                offsets.reindex(index=range(n_layers), columns=range(n_heads))
                .map(lambda v: "" if pd.isna(v) else str(int(v)))
                .to_numpy()
            )
            fmt = ""
        else:
            annot = True
        vmin, vmax = limits if limits else (0.0, None)
        if metric == "entropy" and uniform_entropy is not None:
            vmax = max(
                uniform_entropy, float(np.nanmax(grid.to_numpy())) if grid.notna().any().any() else uniform_entropy
            )
        heatmap(
            ax,
            grid,
            label,
            annot=annot,
            fmt=fmt,
            vmin=vmin,
            vmax=vmax,
            cmap="viridis",
            annot_kws={"fontsize": 7},
        )
        ax.set_xticklabels([str(h + 1) for h in range(n_heads)], rotation=0)
        ax.set_yticklabels([str(layer + 1) for layer in range(n_layers)], rotation=0)
        ax.set(xlabel="head", ylabel="layer", title=label.split(" (")[0])
    return finish(fig, path, f"{variant} (seed {seed}): what each head attends to, mean over held-out queries")


def maps_figure(maps: pd.DataFrame, variant: str, seed: int, path: Path) -> Path:
    """Each kept head's attention map on the first held-out window: query characters as rows, keys as columns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = panel_grid(len(maps), 3, (6.0, 5.6))
    for ax, row in zip(axes, maps.itertuples()):
        e = row.extra
        weights = np.array(e["weights"], dtype=float)
        labels = [shown(c) for c in e["text"][: weights.shape[0]]]
        mask = np.triu(np.ones_like(weights, dtype=bool), k=1)  # keys after the query: never attended (causal)
        heatmap(
            ax,
            weights,
            "attention probability",
            mask=mask,
            vmin=0.0,
            vmax=1.0,
            cmap="magma_r",
            square=True,
            xticklabels=labels,
            yticklabels=labels,
            cbar_kws={"shrink": 0.7},
        )
        ax.tick_params(labelsize=7, length=0)
        ax.set(
            xlabel="key (character attended to)",
            ylabel="query (character attending)",
            title=f"layer {e['layer'] + 1}, head {e['head'] + 1}: {e['criterion']} ({row.value:.2f})",
        )
    title = f"{variant} (seed {seed}): attention maps of the most distinct heads on the first held-out window"
    return finish(fig, path, title)


def figure_names(variant: str) -> list[str]:
    """File names of a variant's two figures (characters unsafe in file names replaced)."""
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in variant)
    return [f"attention_heads_{safe}.png", f"attention_heads_maps_{safe}.png"]
