"""The kv_cache figure: per-token latency with and without the cache, and the decode paths over a grouped cache."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import pyplot, save_figure


def latency_figure(df: pd.DataFrame, path: Path) -> Path:
    import seaborn as sns

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(14, 5))
    names = {"decode_latency": "cached", "decode_latency_kernel": "cached, kernel", "uncached_latency": "uncached"}
    lat = df[df.metric.isin(list(names)) & (df.status == "ok")].copy()
    lat["mode"] = lat.metric.map(names)
    if len(lat):
        sns.lineplot(data=lat, x="x", y="value", hue="variant", style="mode", marker="o", errorbar=None, ax=axes[0])
    axes[0].set(
        yscale="log",
        xlabel="context length (tokens)",
        ylabel="latency (ms/token)",
        title="Per-token latency with and without the KV cache",
    )
    paths = df[(df.metric == "decode_path_latency") & (df.status == "ok")].copy()
    if len(paths):
        paths["path"] = paths.extra.apply(lambda e: e["path"])
        paths["K/V"] = paths.grouping + paths.spec.apply(lambda s: f" {s['position']}")
        sns.lineplot(data=paths, x="x", y="value", hue="path", style="K/V", marker="o", errorbar=None, ax=axes[1])
    axes[1].set(
        yscale="log",
        xlabel="cached tokens",
        ylabel="latency (ms)",
        title="Decode-step attention: four ways to read shared K/V",
    )
    for ax in axes:
        ax.set_xscale("log", base=2)
        if ax.get_legend() is not None:
            sns.move_legend(ax, "upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    fig.tight_layout()
    return save_figure(fig, path)
