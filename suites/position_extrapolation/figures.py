"""The position_extrapolation figure: held-out perplexity against evaluation length."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figure_styles import styles
from harness.report_kit import pyplot, save_figure


def perplexity_figure(ok: pd.DataFrame, variants: list[str], train_len: int, path: Path) -> Path:
    plt = pyplot()
    import matplotlib.ticker
    import seaborn as sns

    data = ok[ok.metric == "perplexity"].rename(columns={"x": "evaluation length (characters)", "value": "perplexity"})
    variants = [v for v in variants if v in set(data.variant)]
    look = styles(variants)  # a family (RoPE and its scalings) by hue, its members by marker and dash
    fig, ax = plt.subplots(figsize=(8.5, 4.5))
    sns.lineplot(
        data=data,
        x="evaluation length (characters)",
        y="perplexity",
        hue="variant",
        hue_order=variants,
        palette={v: look[v].colour for v in variants},
        style="variant",
        style_order=variants,
        markers={v: look[v].marker for v in variants},
        dashes={v: look[v].dashes for v in variants},
        errorbar=("ci", 95),
        seed=0,
        ax=ax,
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    lengths = sorted(data["evaluation length (characters)"].unique())
    ax.set_xticks(lengths, [str(int(x)) for x in lengths])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.axvline(train_len, color="grey", linestyle="--", linewidth=1, label=f"training length L = {train_len}")
    ax.set_ylabel("perplexity per character (log scale)")
    ax.legend(title="variant", bbox_to_anchor=(1.02, 1), loc="upper left")
    ax.set_title("Held-out perplexity against evaluation length")
    fig.tight_layout()
    return save_figure(fig, path, dpi=120)
