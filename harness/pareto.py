"""The index's Pareto figure: held-out perplexity against KV-cache bytes per token and against decode latency.

One point per variant design of the quality x cost table that has both numbers, with its 95% interval
over seeds (where there are several), and the Pareto front (no other point is better on both axes) drawn.
A row of panels per perplexity and the suite it comes from: different suites train models of different
sizes, so their perplexities never share an axis.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pandas as pd

from harness.columns import Reading
from harness.tradeoffs import Table

#: (quality column, its axis label) and (cost column, its axis label) of the panels
QUALITY_AXES = (("ppl_L", "held-out perplexity at L (per character)"), ("ppl_8L", "held-out perplexity at 8L (per character)"))
COST_AXES = (("kv_bytes", "KV cache (bytes per token)"), ("decode_ms", "decode latency (ms per token)"))


def points(table: Table, quality: str, cost: str) -> pd.DataFrame:
    """Variant, the quality's suite, x and its half-interval, y and its half-interval for rows with both readings."""
    rows = []
    for label in table.frame.variant:
        y, x = table.readings.get((label, quality)), table.readings.get((label, cost))
        if x is None or y is None:
            continue
        (xm, xh, _), (ym, yh, _) = _spread(x), _spread(y)
        rows.append({"variant": label, "suite": y.suite, "x": xm, "x_err": xh, "y": ym, "y_err": yh})
    return pd.DataFrame(rows, columns=["variant", "suite", "x", "x_err", "y", "y_err"])


def _spread(reading: Reading) -> Tuple[float, float, int]:
    mean, half, n = reading.interval
    return mean, (0.0 if math.isnan(half) else half), n


def front(data: pd.DataFrame) -> pd.DataFrame:
    """The points no other point beats on both axes (lower is better on both), in order of x."""
    best, kept = math.inf, []
    for row in data.sort_values(["x", "y"]).itertuples():
        if row.y < best:
            kept.append(row.Index)
            best = row.y
    return data.loc[kept]


def panels(table: Table) -> Dict[Tuple[str, str, str], pd.DataFrame]:
    """(quality column, its suite, cost column) -> points; perplexities of different suites' models never share an axis."""
    out: Dict[Tuple[str, str, str], pd.DataFrame] = {}
    for quality, _ in QUALITY_AXES:
        for cost, _ in COST_AXES:
            data = points(table, quality, cost)
            for suite, part in data.groupby("suite", sort=False):
                out[(quality, suite, cost)] = part.reset_index(drop=True)
    return out


def figure(table: Table, path: Path, context: Optional[str] = None) -> Optional[Path]:
    """Write the figure (a row of panels per perplexity and suite); None when no variant has a quality and a cost."""
    found = panels(table)
    if not found:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    rows = list(dict.fromkeys((q, s) for q, s, _ in found))
    fig, axes = plt.subplots(len(rows), len(COST_AXES), figsize=(12, 4.2 * len(rows)), squeeze=False)
    variants: List[str] = list(dict.fromkeys(v for d in found.values() for v in d.variant))
    colours = sns.color_palette("tab10" if len(variants) <= 10 else "tab20" if len(variants) <= 20 else "husl", len(variants))
    palette = dict(zip(variants, colours))
    labels = dict(QUALITY_AXES)
    for r, (quality, suite) in enumerate(rows):
        for j, (cost, cost_label) in enumerate(COST_AXES):
            ax = axes[r][j]
            data = found.get((quality, suite, cost))
            if data is None:
                ax.set_axis_off()
                continue
            _panel(ax, data, palette, sns)
            ax.set_xlabel(cost_label + (f" at {context}" if context and cost == "decode_ms" else ""))
            ax.set_ylabel(f"{labels[quality]}\n{suite}")
    handles = [plt.Line2D([], [], marker="o", linestyle="", color=palette[v], label=v) for v in variants]
    handles.append(plt.Line2D([], [], color="black", linestyle="--", label="Pareto front"))
    fig.legend(handles=handles, title="variant", loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize=8)
    fig.suptitle("Quality against inference cost (lower-left is better)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def _panel(ax, data: pd.DataFrame, palette, sns) -> None:
    ax.errorbar(data.x, data.y, xerr=data.x_err, yerr=data.y_err, fmt="none", ecolor="grey", elinewidth=1, capsize=3)
    sns.scatterplot(data=data, x="x", y="y", hue="variant", palette=palette, s=70, ax=ax, legend=False)
    best = front(data)
    ax.step(best.x, best.y, where="post", color="black", linewidth=1, linestyle="--")
