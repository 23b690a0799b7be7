"""The roofline figure of a cost suite: each kernel's achieved FLOP/s against its arithmetic intensity (FLOPs per byte
moved), log-log, under the device's ceilings: a compute peak is a flat roof, a memory bandwidth a slope (FLOP/s =
bandwidth x intensity), measured ones drawn solid and nominal ones (harness/ceilings.py) dashed.

A point under the slope left of where it meets the roof is bounded by memory, one under the roof right of it by
compute (Williams, Waterman & Patterson 2009, "Roofline", CACM 52(4)).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from harness.figures import finish, panels
from suites.common.ceiling_notes import bandwidths, device_names, nominal_compute

#: the columns a point of the figure needs: its intensity (FLOP/byte), its rate (FLOP/s), its colour and marker
POINT_COLUMNS = ("intensity", "flops_per_s", "kernel", "kind")


@dataclass(frozen=True)
class Ceiling:
    """One ceiling: a compute peak (FLOP/s) or a memory bandwidth (byte/s), measured or nominal."""

    label: str
    value: float
    memory: bool
    nominal: bool = False


def roofline_figure(points: pd.DataFrame, ceilings: list[Ceiling], path: Path, title: str) -> Path:
    """Write the roofline of ``points`` (``POINT_COLUMNS``) under ``ceilings`` to ``path``; return it.

    Each memory ceiling is drawn as its slope up to the highest compute ceiling of the same kind (measured or
    nominal) and each compute ceiling flat from where that slope meets it; a kind with no compute ceiling draws its
    slopes across the figure.
    """
    import seaborn as sns

    missing = [c for c in POINT_COLUMNS if c not in points]
    if missing:
        raise ValueError(
            f"roofline points lack the columns {', '.join(missing)}; each needs {', '.join(POINT_COLUMNS)}."
        )
    fig, axes = panels(size=(9, 5.5))
    ax = axes[0][0]
    shown = points[(points.intensity > 0) & (points.flops_per_s > 0)]
    ridges = [
        c.value / m.value for c in ceilings for m in ceilings if not c.memory and m.memory and c.nominal == m.nominal
    ]
    xs = list(shown.intensity) + ridges
    lo, hi = (min(xs) / 4, max(xs) * 4) if xs else (0.1, 100.0)
    grid = np.geomspace(lo, hi, 200)  # (200,) intensities the ceilings are drawn at
    for nominal_kind in (False, True):
        roofs = [c for c in ceilings if c.nominal == nominal_kind and not c.memory]
        slopes = [c for c in ceilings if c.nominal == nominal_kind and c.memory]
        top = max((c.value for c in roofs), default=np.inf)
        colour, style = ("0.55", "--") if nominal_kind else ("0.1", "-")
        for i, m in enumerate(slopes):
            ax.plot(grid, np.minimum(m.value * grid, top), style, color=colour, lw=1.4 - 0.4 * i,
                    label=f"{m.label} ({m.value / 1e9:.4g} GB/s)")  # fmt: skip
        for c in roofs:
            ridge = min((c.value / m.value for m in slopes), default=lo)  # where the fastest slope meets this roof
            ax.hlines(c.value, max(ridge, lo), hi, colors=colour, linestyles=style, lw=1.0,
                      label=f"{c.label} ({c.value / 1e12:.4g} TFLOP/s)")  # fmt: skip
    ys = list(shown.flops_per_s) + [c.value for c in ceilings if not c.memory]
    if ys:
        ax.set_ylim(min(ys) / 3, max(ys) * 3)
    if len(shown):
        sns.scatterplot(data=shown, x="intensity", y="flops_per_s", hue="kernel", style="kind", s=36, ax=ax)
    ax.set(
        xscale="log",
        yscale="log",
        xlim=(lo, hi),
        xlabel="arithmetic intensity (FLOP per byte moved, log)",
        ylabel="achieved FLOP/s (log)",
        title=title,
    )
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7, frameon=False)
    return finish(fig, path)


#: bytes per element of the dtypes the cost suites run in
ELEMENT_BYTES = {"float64": 8, "float32": 4, "bfloat16": 2, "float16": 2}


def element_bytes(dtype) -> int:
    """Bytes of one element of ``dtype`` (a record's dtype name); 4 for a name not listed."""
    return ELEMENT_BYTES.get(str(dtype), 4)


def ceilings(df: pd.DataFrame) -> list[Ceiling]:
    """The group's ceilings for the figure: the measured matmul peak (mean over jobs) and copy and read bandwidths
    (medians) where recorded, and for a group of one device in harness/ceilings.py its nominal compute peak (for the
    group's dtype) and memory bandwidth."""
    out = []
    peaks = df[(df.metric == "matmul_peak") & (df.status == "ok")].value
    if len(peaks):
        out.append(Ceiling("measured torch.mm peak", float(peaks.mean()) * 1e9, memory=False))  # GFLOP/s -> FLOP/s
    found = bandwidths(df)
    if found["read_bandwidth"]:
        out.append(Ceiling("measured read bandwidth (sum)", found["read_bandwidth"] * 1e9, memory=True))
    if found["copy_bandwidth"]:
        out.append(Ceiling("measured copy bandwidth (read + written)", found["copy_bandwidth"] * 1e9, memory=True))
    names = device_names(df)
    known = nominal_compute(df, names[0]) if len(names) == 1 else None
    if known:
        entry, flops, which = known
        out.append(Ceiling(f"nominal {which}", flops, memory=False, nominal=True))
        out.append(Ceiling("nominal memory bandwidth", entry.bandwidth_tbs * 1e12, memory=True, nominal=True))
    return out
