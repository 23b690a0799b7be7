"""The index's Pareto figure: each trained model's quality against its own costs, a front per quality metric.

One point per model of the quality x cost table (bench/index/tradeoffs.py) with its 95% interval over seeds, its
quality and cost from the same jobs. A row of panels per suite and quality metric (held-out perplexity at L, and at
8L where the suite scores it), against KV-cache bytes per token, decode latency per token at the same length, and
training FLOPs per token; different suites' models never share an axis. Two costs whose intervals overlap (a
timing's repeats, or seeds) are a tie: the front treats them as equal, and the figure shades them as one; a panel
whose costs are all one tie shows no trade-off and is left out, named under the figure. Each suite's models are told
apart by family (hue) and member (shade and marker), with one legend per suite. An axis whose values span a decade
or more is logarithmic. Models the suite flags (did not learn, memorised) are left out of the panels and named in
the caption, so they do not squash the axes.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from bench.index.tradeoffs import Table

#: (quality column, its axis label)
QUALITY_AXES = (("ppl_L", "held-out perplexity at L (per char)"), ("ppl_8L", "held-out perplexity at 8L (per char)"))
#: quality column -> (cost column, its axis label) of its panels
COST_AXES = {
    "ppl_L": (
        ("kv_bytes", "KV cache (bytes per token)"),
        ("decode_ms", "decode at L (ms per token)"),
        ("flops", "training FLOPs per token"),
    ),
    "ppl_8L": (
        ("kv_bytes", "KV cache (bytes per token)"),
        ("decode_8L_ms", "decode at 8L (ms per token)"),
        ("flops", "training FLOPs per token"),
    ),
}
COLUMNS = ["model", "suite", "x", "x_low", "x_high", "y", "y_low", "y_high"]


def points(table: Table, quality: str, cost: str) -> pd.DataFrame:
    """Model, suite, x and y with their intervals, for the unflagged rows that have both readings."""
    rows = []
    for row in table.rows:
        y, x = row.readings.get(quality), row.readings.get(cost)
        if x is None or y is None or row.flag:
            continue
        (x_low, x_high), (y_low, y_high) = x.bounds, y.bounds
        rows.append(
            {
                "model": row.label,
                "suite": row.suite,
                "x": x.mean,
                "x_low": x_low,
                "x_high": x_high,
                "y": y.mean,
                "y_low": y_low,
                "y_high": y_high,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def flagged(table: Table) -> list[str]:
    """'post_ln (language_modeling: did not learn: ...)' for every row left out of the figure."""
    return [f"{row.label} ({row.suite}: {row.flag.removeprefix('flagged: ')})" for row in table.rows if row.flag]


def ties(data: pd.DataFrame) -> list[list[int]]:
    """Groups of point indices whose cost intervals overlap (chained: a ties with b, b with c), in order of cost."""
    order = data.sort_values(["x", "y"]).index.tolist()
    groups: list[list[int]] = []
    reach = -math.inf
    for i in order:
        if groups and data.at[i, "x_low"] <= reach:
            groups[-1].append(i)
            reach = max(reach, data.at[i, "x_high"])
        else:
            groups.append([i])
            reach = data.at[i, "x_high"]
    return groups


def front(data: pd.DataFrame) -> pd.DataFrame:
    """The points no other point beats (lower is better on both axes), costs inside each other's interval being
    equal: within a tie only the best quality counts; in order of cost."""
    best, kept = math.inf, []
    for group in ties(data):
        winner = min(group, key=lambda i: data.at[i, "y"])
        if data.at[winner, "y"] < best:
            kept.append(winner)
            best = data.at[winner, "y"]
    return data.loc[kept]


def spans_decade(values: pd.Series) -> bool:
    """Whether positive values span a factor of 10 or more (a log axis then)."""
    vals = values[values > 0]
    return len(vals) > 1 and vals.max() / vals.min() >= 10


def panels(table: Table) -> dict[tuple[str, str, str], pd.DataFrame]:
    """(quality column, suite, cost column) -> points; different suites' models never share an axis."""
    out: dict[tuple[str, str, str], pd.DataFrame] = {}
    for quality, _ in QUALITY_AXES:
        for cost, _ in COST_AXES[quality]:
            data = points(table, quality, cost)
            for suite, part in data.groupby("suite", sort=False):
                if len(part):
                    out[(quality, suite, cost)] = part.reset_index(drop=True)
    return out


def drawn(found: dict[tuple[str, str, str], pd.DataFrame]) -> tuple[dict, list[str]]:
    """The panels worth drawing, and a phrase for each left out: a panel whose models' costs all overlap (one tie:
    training FLOPs of models that differ only in how they encode position) shows no trade-off."""
    kept, left = {}, []
    labels = {c: label for axes in COST_AXES.values() for c, label in axes}
    for (quality, suite, cost), data in found.items():
        if len(data) > 1 and len(ties(data)) == 1:
            phrase = f"{labels[cost]} in {suite}"
            if phrase not in left:
                left.append(phrase)
            continue
        kept[(quality, suite, cost)] = data
    return kept, left


def figure(table: Table, path: Path) -> Path | None:
    """Write the figure (a row of panels per suite and quality metric); None when no model has a quality and a cost.

    Each suite's models are told apart by family (hue) and member (shade and marker; harness/figure_styles.py), with a
    legend beside the suite's rows; a panel whose costs all tie is left out and named under the figure."""
    found, left = drawn(panels(table))
    if not found:
        return None
    from harness import figures as kit
    from harness.figure_styles import families

    plt = kit.pyplot()

    rows = list(dict.fromkeys((q, s) for q, s, _ in found))
    costs = {row: [c for c, _ in COST_AXES[row[0]] if (row[0], row[1], c) in found] for row in rows}
    width = max(len(c) for c in costs.values())
    fig, axes = kit.panels(len(rows), width, (5.2 * width + 2.6, 4.2 * len(rows)))
    looks = {}
    for suite in dict.fromkeys(s for _, s in rows):
        models = list(dict.fromkeys(m for (_, s, _), d in found.items() if s == suite for m in d.model))
        family = families(models)
        order = list(dict.fromkeys(family[m] for m in models))
        looks[suite] = kit.styles(sorted(models, key=lambda m: (order.index(family[m]), models.index(m))))
    labels = dict(QUALITY_AXES)
    cost_labels = {c: label for axes_ in COST_AXES.values() for c, label in axes_}
    for r, (quality, suite) in enumerate(rows):
        for j in range(width):
            ax = axes[r][j]
            if j >= len(costs[(quality, suite)]):
                ax.set_axis_off()
                continue
            cost = costs[(quality, suite)][j]
            _panel(ax, found[(quality, suite, cost)], looks[suite])
            ax.set_xlabel(cost_labels[cost])
            ax.set_ylabel(f"{labels[quality]}\n{suite}")
        if all(s != suite for _, s in rows[:r]):  # one legend per suite, its models by family, beside its first row
            look = looks[suite]
            handles = [
                plt.Line2D([], [], marker=look[m].marker, linestyle="", color=look[m].colour, label=m) for m in look
            ]
            handles.append(plt.Line2D([], [], color="black", linestyle="--", label="Pareto front"))
            handles.append(plt.Rectangle((0, 0), 1, 1, color="grey", alpha=0.2, label="tie (cost intervals overlap)"))
            last = axes[r][len(costs[(quality, suite)]) - 1]
            last.legend(
                handles=handles,
                title=suite,
                loc="upper left",
                bbox_to_anchor=(1.02, 1.0),
                fontsize=7,
                ncol=1 if len(handles) <= 16 else 2,  # a long legend in two columns keeps the rows close
            )
    fig.suptitle(
        "Each model's quality against its own cost, measured in the job that trained it (lower-left is better)"
    )
    if left:
        fig.text(0.01, 0.0, "Not drawn (every model's cost within one interval): " + "; ".join(left) + ".", fontsize=9)
    return kit.finish(fig, path, bbox_inches="tight")


def _panel(ax, data: pd.DataFrame, look) -> None:
    for group in ties(data):
        if len(group) > 1:
            lo, hi = data.loc[group, "x_low"].min(), data.loc[group, "x_high"].max()
            if hi <= lo:  # equal costs without an interval (bytes, FLOPs): a thin band around the shared value
                lo, hi = lo * 0.98, hi * 1.02
            ax.axvspan(lo, hi, color="grey", alpha=0.2, linewidth=0)
    xerr = [(data.x - data.x_low).clip(lower=0), (data.x_high - data.x).clip(lower=0)]
    yerr = [(data.y - data.y_low).clip(lower=0), (data.y_high - data.y).clip(lower=0)]
    ax.errorbar(data.x, data.y, xerr=xerr, yerr=yerr, fmt="none", ecolor="grey", elinewidth=1, capsize=3)
    for row in data.itertuples():
        ax.scatter([row.x], [row.y], color=look[row.model].colour, marker=look[row.model].marker, s=60, zorder=3)
    best = front(data)
    ax.step(best.x, best.y, where="post", color="black", linewidth=1, linestyle="--")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    plain = FuncFormatter(lambda value, _: f"{value:g}")  # 256, 3072, 4.5: not 3 x 10^3
    for values, axis, scale in (
        (pd.concat([data.x_low, data.x_high]), ax.xaxis, ax.set_xscale),
        (pd.concat([data.y_low, data.y_high]), ax.yaxis, ax.set_yscale),
    ):
        if spans_decade(values):
            scale("log")
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(plain)
            axis.set_minor_formatter(NullFormatter())
