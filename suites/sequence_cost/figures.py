"""The sequence_cost figure: latency and share of the measured torch.mm peak against length."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, guide, panels
from suites.sequence_cost.claims._shared import QUOTED_ATTENTION, QUOTED_RECURRENT


def cost_figure(ok: pd.DataFrame, variants: list[str], path: Path) -> Path | None:
    """Latency and share of the measured torch.mm peak against length, log-log: a column per pass, a line per layer."""
    data = ok[ok.metric.isin(["latency", "peak_fraction"])]
    if not len(data):
        return None
    passes = [p for p in ("fwd", "fwd+bwd") if p in set(data["pass"])]
    fig, axes = panels(2, len(passes), (6.2 * len(passes), 8.0))
    for j, pass_ in enumerate(passes):
        for i, (metric, label) in enumerate(
            (("latency", "latency (ms, log)"), ("peak_fraction", "FLOP/s as % of the measured torch.mm peak"))
        ):
            ax = axes[i][j]
            part = data[(data.metric == metric) & (data["pass"] == pass_)]
            curves(
                ax,
                part,
                "x",
                "value",
                hue_order=variants,
                interval=False,
                marker="o",
                legend=(i == 0 and j == len(passes) - 1),
            )
            ax.set_xscale("log", base=2)
            lengths = sorted(data.x.unique())
            ax.set_xticks(lengths, [str(int(x)) for x in lengths])
            if metric == "latency":
                ax.set_yscale("log")
            else:
                guide(ax, y=QUOTED_RECURRENT, style=":")
                guide(ax, y=QUOTED_ATTENTION)
                ax.set_ylim(bottom=0)
            ax.set(xlabel="sequence length (tokens)", ylabel=label, title=f"{pass_}: {label.split(' (')[0]}")
    if axes[0][-1].get_legend() is not None:
        axes[0][-1].legend(title="layer", bbox_to_anchor=(1.02, 1), loc="upper left")
    return finish(
        fig,
        path,
        "One layer of the same width: latency and device utilisation against length "
        f"(dotted {QUOTED_RECURRENT:.0f}%, dashed {QUOTED_ATTENTION:.0f}%: the figures quoted for GPUs)",
    )
