"""The recall figures: MQAR accuracy against key-value pairs (the recall curve) and accuracy against length per task."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pandas as pd

from harness.report_kit import pyplot, save_figure


def figures(df: pd.DataFrame, variants: List[str], folder: Path) -> List[Path]:
    """Both figures from the ok token-accuracy records (with their task columns); the paths written."""
    plt = pyplot()
    import seaborn as sns

    ok = df[(df.status == "ok") & (df.metric == "token_accuracy")]
    made = []
    mqar = ok[ok.task == "mqar"]
    if len(mqar):
        fig, ax = plt.subplots(figsize=(7, 4.2))
        sns.lineplot(data=mqar, x="x", y="value", hue="variant", marker="o", errorbar=("ci", 95), ax=ax,
                     hue_order=[v for v in variants if v in set(mqar.variant)])
        ax.axhline(float(mqar.chance_token.iloc[0]), color="grey", linestyle=":", linewidth=1, label="chance")
        counts = sorted(mqar.x.unique())
        ax.plot(counts, [1 / c for c in counts], color="grey", linestyle="--", linewidth=1,
                label="1/N: a guess among the values in context")
        ax.set_xscale("log", base=2)
        ax.set(xlabel="key-value pairs in context", ylabel="MQAR token accuracy", ylim=(0, 1.05),
               title="Associative recall against the number of key-value pairs")
        ax.legend(fontsize=8)
        fig.tight_layout()
        made.append(save_figure(fig, folder / "recall_mqar.png"))
    lengths = ok[ok.task.isin(["copy", "reverse", "addition"])]
    if len(lengths):
        tasks = [t for t in ("copy", "reverse", "addition") if t in set(lengths.task)]
        fig, axes = plt.subplots(1, len(tasks), figsize=(5.2 * len(tasks), 4.2), sharey=True, squeeze=False)
        for ax, task in zip(axes[0], tasks):
            part = lengths[lengths.task == task]
            sns.lineplot(data=part, x="x", y="value", hue="variant", marker="o", errorbar=("ci", 95), ax=ax,
                         hue_order=[v for v in variants if v in set(part.variant)], legend=task == tasks[-1])
            ax.axvline(float(part.train_max.iloc[0]), color="grey", linestyle="--", linewidth=1)
            ax.axhline(float(part.chance_token.iloc[0]), color="grey", linestyle=":", linewidth=1)
            ax.set(xlabel=f"{part.x_name.iloc[0]} (dashed: longest trained)", ylabel="token accuracy", ylim=(0, 1.05),
                   title=task)
        if len(tasks):
            axes[0][-1].legend(fontsize=8)
        fig.suptitle("Length generalisation: trained up to n, scored past it")
        fig.tight_layout()
        made.append(save_figure(fig, folder / "recall_lengths.png"))
    return made
