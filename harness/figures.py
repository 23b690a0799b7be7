"""The figure kit: the plots every suite's report draws, each drawn one way, so a suite's figure module states only
what is its own (which records, which labels, which reference lines).

- making a figure: ``panels`` (a grid of axes, always two-dimensional), ``panel_grid`` (n panels in rows of a given
  width, the spare ones blank), ``pyplot`` (matplotlib on the Agg backend);
- drawing: ``curves`` (a line per variant, mean over seeds with its 95% interval drawn by a seeded bootstrap, so a
  figure regenerates byte-identical from the same records; optionally each variant styled by family,
  harness/figure_styles.py), ``points`` (the same for points at categorical or native x), ``heatmap`` (a grid of
  cells with its colour bar's label), ``guide`` (a thin grey reference line), ``log_axes``;
- finishing: ``finish`` (the figure's title, its layout tightened, saved) and ``save_figure`` (written atomically,
  its folder made, closed).

Every drawing helper takes the axis labels, set after seaborn has drawn (seaborn names an unlabelled axis after its
column and hides an inner shared axis's label), so a figure's axes say what they show and in which unit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness import atomic
from harness.figure_styles import Style, styles

__all__ = [
    "SEEDED_INTERVAL",
    "Style",
    "curves",
    "finish",
    "guide",
    "heatmap",
    "log_axes",
    "panel_grid",
    "panels",
    "points",
    "present",
    "pyplot",
    "save_figure",
    "styles",
]

#: seaborn's interval of a curve or point: the 95% bootstrap interval of the mean over seeds, its resampling seeded
SEEDED_INTERVAL = {"errorbar": ("ci", 95), "seed": 0}


# --- a figure and its axes -----------------------------------------------------------------------------------------


def pyplot():
    """matplotlib.pyplot on the Agg backend (reports are written without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def panels(rows: int = 1, cols: int = 1, size: tuple[float, float] = (7, 4.2), **options: Any):
    """(figure, axes): a ``rows`` x ``cols`` grid of axes, indexed ``axes[row][col]`` however many there are.

    ``size`` is the whole figure's (width, height) in inches; ``options`` go to ``plt.subplots`` (``sharey=True``)."""
    return pyplot().subplots(rows, cols, figsize=size, squeeze=False, **options)


def panel_grid(n: int, cols: int, size: tuple[float, float]):
    """(figure, axes): ``n`` panels in rows of at most ``cols``, each ``size`` inches; the spare cells of the last row
    are left blank. ``axes`` is the flat list of every cell, the n panels first."""
    cols = min(cols, max(1, n))
    rows = max(1, -(-n // cols))
    fig, axes = panels(rows, cols, (size[0] * cols, size[1] * rows))
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.axis("off")
    return fig, flat


def finish(fig, path: Path, title: str | None = None, dpi: int = 110, tight: bool = True, **options: Any) -> Path:
    """Give ``fig`` its ``title`` (above every panel), tighten its layout and save it to ``path``; return the path."""
    if title is not None:
        fig.suptitle(title)
    if tight:
        fig.tight_layout()
    return save_figure(fig, path, dpi, **options)


def save_figure(fig, path: Path, dpi: int = 110, **options: Any) -> Path:
    """Save a figure (its folder made, written atomically; ``options`` go to savefig) and close it."""
    atomic.save_figure(fig, path, dpi=dpi, **options)
    pyplot().close(fig)
    return path


# --- drawing ---------------------------------------------------------------------------------------------------------


def present(order: Iterable[str], values: Iterable) -> list[str]:
    """The names of ``order`` that occur among ``values``, in ``order``'s order (a hue order for the data at hand)."""
    found = set(values)
    return [v for v in order if v in found]


def curves(
    ax,
    data,
    x: str,
    y: str,
    hue: str | None = "variant",
    order: Sequence[str] | None = None,
    *,
    look: Mapping[str, Style] | None = None,
    interval: bool = True,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    **options: Any,
) -> None:
    """One line per ``hue`` level of ``data`` (``y`` against ``x``), the mean over its rows (seeds) with their 95%
    interval (``SEEDED_INTERVAL``; ``interval=False`` draws the mean alone).

    ``order``: the hue levels in the suite's order, those absent from ``data`` dropped (``hue_order`` instead keeps
    them, so that each level has one colour across panels that lack some). ``look`` (from ``styles``):
    each level's family colour, marker and dash pattern, in place of seaborn's palette. ``options`` go to
    ``seaborn.lineplot`` (marker, style, palette, legend, ...); the labels and title are set after it draws."""
    import seaborn as sns

    kwargs: dict[str, Any] = dict(SEEDED_INTERVAL) if interval else {"errorbar": None}
    if hue is not None:
        kwargs["hue"] = hue
    if order is not None:
        kwargs["hue_order"] = present(order, data[hue])
    if look is not None:
        names = present(order if order is not None else look, data[hue])
        kwargs.update(
            hue_order=names,
            palette={v: look[v].colour for v in names},
            style=hue,
            style_order=names,
            markers={v: look[v].marker for v in names},
            dashes={v: look[v].dashes for v in names},
        )
    sns.lineplot(data=data, x=x, y=y, ax=ax, **{**kwargs, **options})
    labelled(ax, xlabel, ylabel, title)


def points(
    ax,
    data,
    x: str,
    y: str,
    hue: str,
    order: Sequence[str] | None = None,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    **options: Any,
) -> None:
    """One point per ``hue`` level and ``x``: the mean of ``y`` with its seeded 95% interval (``seaborn.pointplot``;
    ``options`` such as ``native_scale=True``, ``linestyle="none"`` go to it)."""
    import seaborn as sns

    kwargs: dict[str, Any] = {} if order is None else {"hue_order": list(order)}
    sns.pointplot(data=data, x=x, y=y, hue=hue, ax=ax, **kwargs, **SEEDED_INTERVAL, **options)
    labelled(ax, xlabel, ylabel, title)


def heatmap(
    ax,
    grid,
    colour: str | None = None,
    *,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    **options: Any,
) -> None:
    """``grid`` (a frame or array: rows down, columns across) as coloured cells; ``colour`` labels the colour bar
    (its quantity and unit). ``options`` go to ``seaborn.heatmap`` (``annot``, ``vmin``, ``cmap``, ``cbar=False``)."""
    import seaborn as sns

    if colour is not None:
        options["cbar_kws"] = {"label": colour, **options.get("cbar_kws", {})}
    sns.heatmap(grid, ax=ax, **options)
    labelled(ax, xlabel, ylabel, title)


def labelled(ax, xlabel: str | None = None, ylabel: str | None = None, title: str | None = None) -> None:
    """Set those of the axes' labels and title that are given."""
    given = {k: v for k, v in (("xlabel", xlabel), ("ylabel", ylabel), ("title", title)) if v is not None}
    if given:
        ax.set(**given)


def log_axes(ax, x: int | None = None, y: int | None = None) -> None:
    """Logarithmic axes: ``x`` and ``y`` are each axis's base (2 for lengths and widths in powers of two, 10), None
    leaves that axis as it is."""
    if x is not None:
        ax.set_xscale("log", base=x)
    if y is not None:
        ax.set_yscale("log", base=y)


def guide(
    ax, x: float | None = None, y: float | None = None, style: str = "--", label: str | None = None, width: float = 1
) -> None:
    """A thin grey reference line across the axes: vertical at ``x`` (a training length), horizontal at ``y`` (chance,
    parity); ``style`` its dash ('--', ':'), ``label`` its legend entry."""
    extra = {} if label is None else {"label": label}
    if x is not None:
        ax.axvline(x, color="grey", linestyle=style, linewidth=width, **extra)
    if y is not None:
        ax.axhline(y, color="grey", linestyle=style, linewidth=width, **extra)
