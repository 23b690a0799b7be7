"""The translation figures: BLEU against source-sentence length, and BLEU against training FLOPs, one line per
variant."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import pyplot, save_figure

FIGURE = "translation_bleu_by_length.png"
COMPUTE_FIGURE = "translation_bleu_by_compute.png"


def bleu_by_length_figure(ok: pd.DataFrame, variants: list[str], labels: dict[float, str], path: Path) -> Path:
    import seaborn as sns

    plt = pyplot()
    data = ok[ok.metric == "bleu_by_length"].rename(
        columns={"x": "source length (words, bucket upper bound)", "value": "BLEU"}
    )
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    sns.lineplot(
        data=data,
        x="source length (words, bucket upper bound)",
        y="BLEU",
        hue="variant",
        hue_order=[v for v in variants if v in set(data.variant)],
        marker="o",
        errorbar=("ci", 95),
        seed=0,
        ax=ax,
    )
    ax.set_xticks(sorted(labels))
    ax.set_xticklabels([labels[x].split(" words")[0] for x in sorted(labels)])
    ax.set_xlabel("source sentence length (words)")
    ax.set_ylabel("test BLEU of the bucket")
    ax.set_ylim(bottom=0)
    ax.set_title("BLEU against source sentence length (cf. Bahdanau et al. 2014, Fig. 2)")
    fig.tight_layout()
    return save_figure(fig, path, dpi=120)


def bleu_compute_figure(ok: pd.DataFrame, variants: list[str], path: Path) -> Path | None:
    """BLEU during training against training FLOPs (the job's FLOPs per step x steps), or None without points."""
    import seaborn as sns

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
    data = pd.DataFrame(rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    sns.lineplot(
        data=data,
        x="training FLOPs",
        y="BLEU",
        hue="variant",
        hue_order=[v for v in variants if v in set(data.variant)],
        units=None,
        marker="o",
        errorbar=("ci", 95),
        seed=0,
        ax=ax,
    )
    ax.set_xscale("log")
    ax.set_xlabel("training compute (FLOPs, forward and backward matrix products)")
    ax.set_ylabel("greedy BLEU of the scored test sentences")
    ax.set_ylim(bottom=0)
    ax.set_title("BLEU against training compute (cf. Vaswani et al. 2017, Table 2)")
    fig.tight_layout()
    return save_figure(fig, path, dpi=120)
