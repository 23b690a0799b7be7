"""The recall tables and the per-seed summaries its verdicts read: accuracy by size per task, learned in distribution."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from harness.report_kit import most_seeds, over_seeds, share_cell, table_section
from harness.report_sections import BODY, Section
from suites.recall.learning_rates import keep_chosen

#: the order variants are listed in: the Transformer's position arms, then the fixed-state models
ORDER = (
    "none",
    "t5_bias",
    "alibi",
    "rope",
    "mamba2+hybrid2",
    "gated_deltanet",
    "deltanet",
    "gla",
    "mamba2",
    "mamba2+state16",
    "linear_attention",
    "mingru",
    "lstm",
)
#: the Transformer arms the position-encoding claim ranks; the model that stands for attention in the recall claims
POSITIONS = ("none", "t5_bias", "alibi", "rope")
ATTENTION = "rope"
#: the fixed-state models (a state whose size does not grow with the context)
FIXED_STATE = ("lstm", "mingru", "linear_attention")


def with_task(df: pd.DataFrame, every_rate: bool = False) -> pd.DataFrame:
    """The records with the task, training n, in-distribution flag and MQAR's learning rate out of ``extra`` as
    columns; of a learning-rate sweep only each variant's chosen rate (learning_rates.keep_chosen), unless
    ``every_rate``."""
    out = df.copy()
    for key in (
        "task",
        "train_max",
        "in_distribution",
        "chance_token",
        "chance_sequence",
        "parameters",
        "tokens",
        "lr",
    ):
        out[key] = out.extra.apply(lambda e, k=key: e.get(k) if isinstance(e, dict) else None)
    out["lr"] = pd.to_numeric(out.lr, errors="coerce")
    return out if every_rate else keep_chosen(out)


def per_seed(df: pd.DataFrame, variant: str, task: str, metric: str, size: float) -> dict[int, float]:
    """seed -> the metric of ``variant`` on ``task`` at ``size`` (ok records only)."""
    rows = df[
        (df.metric == metric) & (df.variant == variant) & (df.task == task) & (df.x == size) & (df.status == "ok")
    ]
    return {int(s): float(v) for s, v in zip(rows.seed, rows.value)}


def out_of_distribution_mean(
    df: pd.DataFrame, variant: str, task: str, metric: str = "token_accuracy"
) -> dict[int, float]:
    """seed -> mean of the metric over the sizes past the training n (a diverged task's sizes count as 0)."""
    rows = df[(df.metric == metric) & (df.variant == variant) & (df.task == task) & (df.in_distribution == False)]  # noqa: E712
    rows = rows.assign(value=rows.value.where(rows.status == "ok", 0.0))
    return {int(s): float(part.value.mean()) for s, part in rows.groupby("seed")}


def learned(df: pd.DataFrame, variant: str, task: str, threshold: float) -> bool | None:
    """Whether ``variant`` learned ``task`` in distribution: mean token accuracy over seeds at the largest training
    size at least ``threshold`` (None without records)."""
    rows = df[(df.metric == "token_accuracy") & (df.variant == variant) & (df.task == task)]
    if not len(rows):
        return None
    n = float(rows.train_max.iloc[0])
    at = rows[rows.x == n]
    values = at.value.where(at.status == "ok", 0.0)
    return bool(len(values) and values.mean() >= threshold)


def accuracy_table(
    df: pd.DataFrame,
    variants: list[str],
    task: str,
    metric: str,
    heading: str,
    note: str,
    guess: Callable[[int], float] | None = None,
) -> Section | None:
    """One row per variant, one column per size: the mean over seeds with its interval kept to [0, 1] (none with one
    seed; the note starts by saying which); the chance row first, then ``guess``'s (size -> accuracy) if given. None
    without records of the task."""
    part = df[(df.metric == metric) & (df.task == task)]
    if not len(part):
        return None
    sizes = sorted(part.x.dropna().unique())
    n = float(part.train_max.iloc[0])
    chance_key = "chance_token" if metric == "token_accuracy" else "chance_sequence"
    label = lambda s: f"{int(s)}" + (" (n)" if s == n else "")  # noqa: E731
    rows = [{"variant": "chance", **{label(s): _chance(part[part.x == s], chance_key) for s in sizes}}]
    if guess is not None:
        rows.append({"variant": "guess without keys", **{label(s): f"{guess(int(s)):.2f}" for s in sizes}})
    for v in variants:
        cells = part[part.variant == v]
        if not len(cells):
            continue
        row = {"variant": v}
        for s in sizes:
            row[label(s)] = share_cell(cells[cells.x == s])
        rows.append(row)
    caption = over_seeds(most_seeds(part[part.variant.isin(variants)]))
    return table_section(
        heading, f"{caption[0].upper()}{caption[1:]}." + (f" {note}" if note else ""), rows, "No records."
    )


def _chance(rows: pd.DataFrame, key: str) -> str:
    values = rows[key].dropna()
    if not len(values):
        return "-"
    v = float(values.iloc[0])
    return f"{v:.2f}" if v >= 0.01 else f"{v:.1e}"


def budget_table(df: pd.DataFrame, variants: list[str], kind: str = BODY) -> Section:
    """Per variant: the width, parameters per task, and the steps and training tokens every task's model had."""
    loss = df[(df.metric == "train_loss") & (df.status == "ok")]
    rows = []
    for v in variants:
        part = loss[loss.variant == v]
        if not len(part):
            continue
        first = part.iloc[0]
        row = {"variant": v, "family": _family(first.spec), "width": int(first.get("width") or 0)}
        # one column for every task's count (they differ only by the embedding), so the table stays within 8 columns
        row["parameters per task"] = ", ".join(
            f"{task} {int(rows_t.parameters.iloc[0]):,}" for task, rows_t in part.groupby("task", sort=False)
        )
        row["steps x batch"] = f"{int(first.profile_settings['steps'])} x {int(first.profile_settings['batch_size'])}"
        row["training tokens per task"] = f"{int(part.tokens.mean()):,}"
        rows.append(row)
    return table_section(
        "Models and budgets",
        "Every model of a variant trains the same steps of the same batch size per "
        "task; widths are matched to the Transformer's parameter count at the task with the largest "
        "vocabulary (MQAR), and each task's count differs only by its embedding.",
        rows,
        "No trainings.",
        kind,
    )


def _family(spec) -> str:
    family = spec.get("family") if isinstance(spec, dict) else None
    if family == "recurrent":
        return f"{spec['cell'].upper()} x {spec['n_layers']}"
    if family == "mixer":
        every = spec.get("attention_every") or 0
        window = f", window {spec['window']}" if spec.get("window") else ""
        return f"{spec['mixer']} x {spec['n_layers']} blocks" + (f", attention every {every}{window}" if every else "")
    return f"Transformer x {spec['n_layers']}, {spec['position']}" if isinstance(spec, dict) else "?"


def memory_table(df: pd.DataFrame, variants: list[str], tokens: int) -> Section:
    """Per variant: the numbers and float32 bytes it keeps per sequence to decode after ``tokens`` tokens (MQAR's
    longest sequence), from the spec of its records (models.state_numbers)."""
    from suites.recall.models import spec_from_record, state_numbers

    rows = []
    for v in variants:
        part = df[(df.variant == v) & (df.task == "mqar")]
        if not len(part) or not isinstance(part.spec.iloc[0], dict):
            continue
        spec = spec_from_record(part.spec.iloc[0])
        numbers = state_numbers(spec, tokens)
        rows.append(
            {
                "variant": v,
                "family": _family(part.spec.iloc[0]),
                "kept per sequence": f"{numbers:,}",
                "bytes (float32)": f"{4 * numbers:,}",
                "grows with the context": "yes" if state_numbers(spec, 2 * tokens) > numbers else "no",
            }
        )
    return table_section(
        "Memory per sequence",
        f"What each trained model keeps to decode the next token after {tokens} "
        "tokens (MQAR at the most pairs): a Transformer's keys and values of every token and layer, an "
        "LSTM's h and c, a recurrence's fixed state (with its short convolution's window where it has "
        "one), a hybrid's state and its attention blocks' cache. Counted from each model's spec.",
        rows,
        "No models.",
    )
