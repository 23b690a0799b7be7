"""The translation figure: BLEU against source-sentence length, one line per variant."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.report_kit import pyplot, save_figure

FIGURE = "translation_bleu_by_length.png"


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
