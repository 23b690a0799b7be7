"""The recall figures: MQAR accuracy against key-value pairs (the recall curve) and accuracy against length per task."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from harness.figures import Style, curves, finish, guide, panels, present, styles

#: the unit of a task's size where its name does not say it (an addition's size is its digits per operand)
UNITS = {"copy": "symbols; ", "reverse": "symbols; "}


def figures(df: pd.DataFrame, variants: list[str], folder: Path, tokens: int = 0) -> list[Path]:
    """The figures from the ok token-accuracy records (with their task columns); the paths written. ``tokens``: MQAR's
    longest sequence, at which the recall-memory figure counts each model's state."""
    ok = df[(df.status == "ok") & (df.metric == "token_accuracy")]
    variants = present(variants, ok.variant)
    look = styles(variants)  # a family (the Transformers, the recurrences) by hue, its members by marker and dash
    made = []
    mqar = ok[ok.task == "mqar"]
    if len(mqar):
        made.append(_mqar_figure(mqar, variants, look, folder / "recall_mqar.png"))
    lengths = ok[ok.task.isin(["copy", "reverse", "addition"])]
    if len(lengths):
        made.append(_lengths_figure(lengths, variants, look, folder / "recall_lengths.png"))
    if tokens and len(mqar):
        made += _recall_memory(mqar, variants, look, tokens, folder)
    return made


def _mqar_figure(mqar: pd.DataFrame, variants: list[str], look: dict[str, Style], path: Path) -> Path:
    """MQAR token accuracy against the key-value pairs in context, beside chance and a guess among the values."""
    fig, axes = panels(size=(7, 4.2))
    ax = axes[0][0]
    curves(ax, mqar, "x", "value", order=variants, look=look)
    guide(ax, y=float(mqar.chance_token.iloc[0]), style=":", label="chance")
    counts = sorted(mqar.x.unique())
    ax.plot(
        counts,
        [1 / c for c in counts],
        color="grey",
        linestyle="--",
        linewidth=1,
        label="1/N: a guess among the values in context",
    )
    ax.set_xscale("log", base=2)
    ax.set(
        xlabel="key-value pairs in context",
        ylabel="MQAR token accuracy",
        ylim=(0, 1.05),
        title="Associative recall against the number of key-value pairs",
    )
    ax.legend(fontsize=8)
    return finish(fig, path)


def _lengths_figure(lengths: pd.DataFrame, variants: list[str], look: dict[str, Style], path: Path) -> Path:
    """Token accuracy against length, a panel per task: trained up to the dashed line, scored past it."""
    tasks = [t for t in ("copy", "reverse", "addition") if t in set(lengths.task)]
    fig, axes = panels(1, len(tasks), (5.2 * len(tasks), 4.2), sharey=True)
    for ax, task in zip(axes[0], tasks):
        part = lengths[lengths.task == task]
        curves(ax, part, "x", "value", order=variants, look=look, legend=task == tasks[-1])
        guide(ax, x=float(part.train_max.iloc[0]))
        guide(ax, y=float(part.chance_token.iloc[0]), style=":")
        ax.set(
            xlabel=f"{part.x_name.iloc[0]} ({UNITS.get(task, '')}dashed: longest trained)",
            ylabel="token accuracy",
            ylim=(0, 1.05),
            title=task,
        )
    if len(tasks):
        axes[0][-1].legend(fontsize=8)
    return finish(fig, path, "Length generalisation: trained up to n, scored past it")


def _recall_memory(
    mqar: pd.DataFrame, variants: list[str], look: dict[str, Style], tokens: int, folder: Path
) -> list[Path]:
    """MQAR accuracy at the most pairs against the bytes each trained model keeps per sequence (Arora et al. 2024,
    Based, Figure 2): one point per variant, its mean over seeds with a 95% interval."""
    points = memory_points(mqar, variants, tokens)
    if len(points) < 2:
        return []
    fig, axes = panels(size=(7, 4.6))
    draw_memory_points(axes[0][0], points, tokens, int(mqar.x.max()), look)
    return [finish(fig, folder / "recall_memory.png")]


def memory_points(mqar: pd.DataFrame, variants: list[str], tokens: int) -> list:
    """(variant, float32 bytes kept per sequence after ``tokens`` tokens, its accuracy's spread over seeds at the most
    pairs) per variant with a spec in its records."""
    from harness.intervals import spread
    from suites.recall.models import spec_from_record, state_numbers

    most = mqar.x.max()
    points = []
    for v in [v for v in variants if v in set(mqar.variant)]:
        part = mqar[(mqar.variant == v) & (mqar.x == most)]
        if not isinstance(part.spec.iloc[0], dict):
            continue
        stats = spread(list(part.value), kind="bounded", bounds=(0.0, 1.0))
        points.append((v, 4 * state_numbers(spec_from_record(part.spec.iloc[0]), tokens), stats))
    return points


def draw_memory_points(ax, points: list, tokens: int, most: int, look: dict[str, Style] | None = None) -> None:
    """One labelled point per model with its 95% interval, bytes on a log axis; ``look`` (harness/figure_styles.py)
    colours and marks each model by family."""
    from matplotlib.ticker import NullFormatter

    for v, size, st in points:
        low = st.mean - st.low if st.low is not None and not math.isnan(st.low) else 0.0
        high = st.high - st.mean if st.high is not None and not math.isnan(st.high) else 0.0
        style = {"color": look[v].colour, "marker": look[v].marker} if look and v in look else {"marker": "o"}
        ax.errorbar(
            [size], [st.mean], yerr=[[max(low, 0.0)], [max(high, 0.0)]], linestyle="none", capsize=3, label=v, **style
        )
        ax.annotate(v, (size, st.mean), textcoords="offset points", xytext=(5, 4), fontsize=7)
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())  # decades only: minor labels overlap on a short range
    ax.set(
        xlabel=f"bytes kept per sequence to decode after {tokens} tokens (float32, log scale)",
        ylabel=f"MQAR token accuracy at {most} pairs",
        ylim=(0, 1.05),
        title="Recall against the memory each model keeps (mean over seeds, 95% interval)",
    )
