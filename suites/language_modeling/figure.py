"""The language_modeling figure: held-out perplexity against parameter count, by variant family."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import finish, guide, panels, points


def _label_points(ax, points, gap: float = 0.045) -> None:
    """Name each point; labels of points close on the x axis are stacked upwards so they do not overlap."""
    to_axes = ax.transAxes.inverted()
    placed: list[tuple[float, float]] = []
    for x, y, name in sorted(points, key=lambda p: p[1]):
        fx, fy = to_axes.transform(ax.transData.transform((x, y)))
        label_y = fy
        for px, py in placed:
            if abs(px - fx) < 0.2 and label_y - py < gap:
                label_y = py + gap
        placed.append((fx, label_y))
        ax.annotate(
            name,
            xy=(x, y),
            xytext=(fx + 0.03, label_y),
            textcoords="axes fraction",
            fontsize=8,
            va="center",
            arrowprops=dict(arrowstyle="-", color="grey", linewidth=0.5),
        )


def perplexity_figure(s, path: Path, family_order: tuple[str, ...], tolerance: float) -> Path:
    """Held-out perplexity against parameter count, one point per variant coloured by family.

    ``s`` is the report's Summary; dotted lines mark the baseline's parameter count +- ``tolerance``.
    """
    import matplotlib.ticker

    path.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for v, seeds in s.ppl.items():
        if s.params.get(v) is None:
            continue
        for ppl in seeds.values():
            rows.append({"variant": v, "family": s.group(v), "parameters": s.params[v], "perplexity": ppl})
    data = pd.DataFrame(rows, columns=["variant", "family", "parameters", "perplexity"])
    fig, axes = panels(size=(7.5, 4.8))
    ax = axes[0][0]
    if len(data):
        # the families of the baseline's arm first, then each other position's arm ('scoring, sinusoidal positions')
        groups = set(data.family)
        order = (
            ["baseline"]
            + [f for f in family_order if f in groups]
            + sorted(g for g in groups if g not in family_order and g != "baseline")
        )
        points(ax, data, "parameters", "perplexity", "family", order, native_scale=True, linestyle="none", markers="o")
        if s.baseline in s.params and s.params[s.baseline]:
            for side in (1 - tolerance, 1 + tolerance):
                guide(ax, x=s.params[s.baseline] * side, style=":")
        ax.set_yscale("log")
        plain = matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
        _label_points(ax, [(g.parameters.iloc[0], g.perplexity.mean(), v) for v, g in data.groupby("variant")])
    ax.set_xlabel(f"parameters (dotted: baseline ± {tolerance:.0%})")
    ax.set_ylabel("held-out perplexity per character")
    ax.set_title("Perplexity against parameter count, by variant family")
    return finish(fig, path, dpi=120)
