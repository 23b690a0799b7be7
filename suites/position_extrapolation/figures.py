"""The position_extrapolation figure: held-out perplexity against evaluation length."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, guide, panels, present, styles


def perplexity_figure(ok: pd.DataFrame, variants: list[str], train_len: int, path: Path) -> Path:
    """Held-out perplexity against evaluation length, log-log, a variant's family by hue, its members by marker and dash."""
    import matplotlib.ticker

    length = "evaluation length (characters)"
    data = ok[ok.metric == "perplexity"].rename(columns={"x": length, "value": "perplexity"})
    variants = present(variants, data.variant)
    fig, axes = panels(size=(8.5, 4.5))
    ax = axes[0][0]
    # a family (RoPE and its scalings) by hue, its members by marker and dash
    curves(ax, data, length, "perplexity", order=variants, look=styles(variants))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    lengths = sorted(data[length].unique())
    ax.set_xticks(lengths, [str(int(x)) for x in lengths])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    guide(ax, x=train_len, label=f"training length L = {train_len}")
    ax.set_ylabel("perplexity per character (log scale)")
    ax.legend(title="variant", bbox_to_anchor=(1.02, 1), loc="upper left")
    ax.set_title("Held-out perplexity against evaluation length")
    return finish(fig, path, dpi=120)
