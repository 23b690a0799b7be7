"""The translation figures: BLEU against source-sentence length, and BLEU against training FLOPs, one line per
variant."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.figures import curves, finish, panels

FIGURE = "translation_bleu_by_length.png"
COMPUTE_FIGURE = "translation_bleu_by_compute.png"


def bleu_by_length_figure(ok: pd.DataFrame, variants: list[str], labels: dict[float, str], path: Path) -> Path:
    """Test BLEU of each source-length bucket, a line per variant; ``labels`` names each bucket's tick."""
    bucket = "source length (words, bucket upper bound)"
    data = ok[ok.metric == "bleu_by_length"].rename(columns={"x": bucket, "value": "BLEU"})
    fig, axes = panels(size=(7.5, 4.5))
    ax = axes[0][0]
    curves(
        ax,
        data,
        bucket,
        "BLEU",
        order=variants,
        marker="o",
        xlabel="source sentence length (words)",
        ylabel="test BLEU of the bucket",
        title="BLEU against source sentence length (cf. Bahdanau et al. 2014, Fig. 2)",
    )
    ax.set_xticks(sorted(labels))
    ax.set_xticklabels([labels[x].split(" words")[0] for x in sorted(labels)])
    ax.set_ylim(bottom=0)
    return finish(fig, path, dpi=120)


def bleu_compute_figure(ok: pd.DataFrame, variants: list[str], path: Path) -> Path | None:
    """BLEU during training against training FLOPs (the job's FLOPs per step x steps), or None without points."""
    points = ok[ok.metric == "bleu_during_training"]
    per_step = {
        (r.variant, r.seed): r.extra.get("flops_per_step")
        for r in ok[ok.metric == "train_flops"].itertuples()
        if isinstance(r.extra, dict)
    }
    rows = [
        {"variant": r.variant, "training FLOPs": per_step[(r.variant, r.seed)] * r.x, "BLEU": r.value}
        for r in points.itertuples()
        if per_step.get((r.variant, r.seed))
    ]
    if not rows:
        return None
    fig, axes = panels(size=(7.5, 4.5))
    ax = axes[0][0]
    curves(
        ax,
        pd.DataFrame(rows),
        "training FLOPs",
        "BLEU",
        order=variants,
        units=None,
        marker="o",
        xlabel="training compute (FLOPs, forward and backward matrix products)",
        ylabel="greedy BLEU of the scored test sentences",
        title="BLEU against training compute (cf. Vaswani et al. 2017, Table 2)",
    )
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    return finish(fig, path, dpi=120)
