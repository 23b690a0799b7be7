"""Zoology's learning-rate sweep on MQAR: the rate each variant keeps, chosen on validation sequences, never the scored.

Arora et al. (2023, Zoology, arXiv 2312.04927) train every model at four learning rates and report each model's best.
Here a profile with ``mqar_learning_rates`` trains MQAR's model once per rate from the same initial weights; every
record of it carries its rate (extra.lr, the ``lr`` column of tables.with_task). A variant keeps one rate for all its
seeds: the rate whose models score the highest mean token accuracy, over seeds, on held-out validation sequences at
the most pairs trained on (``validation_token_accuracy``; a diverged training counts 0; a tie keeps the smaller rate).
The verdicts, tables and figures then read the kept rate's records, scored on other held-out sequences, so the choice
does not select on the numbers it is judged by.
"""

from __future__ import annotations

import pandas as pd

from harness.report_kit import table_section
from harness.report_sections import Section

#: the metric a rate is chosen by
CHOOSES = "validation_token_accuracy"


def swept(df: pd.DataFrame) -> bool:
    """Whether these records (with tables.with_task's columns) hold MQAR trained at more than one rate."""
    return "lr" in df and df[df.task == "mqar"].lr.dropna().nunique() > 1


def validation_means(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (variant, lr): the mean over seeds of validation token accuracy at the most pairs, and its seeds."""
    rows = df[(df.metric == CHOOSES) & (df.task == "mqar") & df.lr.notna()]
    rows = rows.assign(value=rows.value.where(rows.status == "ok", 0.0))
    return (
        rows.groupby(["variant", "lr"])
        .agg(accuracy=("value", "mean"), seeds=("seed", "nunique"))
        .reset_index()
        .sort_values(["variant", "lr"])
    )


def chosen_rates(df: pd.DataFrame) -> dict[str, float]:
    """variant -> the learning rate it keeps on MQAR (only variants trained at more than one rate)."""
    if "lr" not in df:
        return {}
    means = validation_means(df)
    out = {}
    for variant, part in means.groupby("variant"):
        if len(part) > 1:  # the first of the highest: rows are sorted by rate, so a tie keeps the smaller
            out[str(variant)] = float(part.lr.iloc[int(part.accuracy.values.argmax())])
    return out


def keep_chosen(df: pd.DataFrame) -> pd.DataFrame:
    """The records with each swept variant's MQAR records at any rate other than its chosen one left out."""
    rates = chosen_rates(df)
    if not rates:
        return df
    chosen = df.variant.map(rates)
    other = (df.task == "mqar") & chosen.notna() & df.lr.notna() & (df.lr != chosen)
    return df[~other]


def sweep_table(df: pd.DataFrame, variants: list[str]) -> Section | None:
    """One row per variant, one column per rate: validation token accuracy at the most pairs, the kept rate starred
    (None without a sweep)."""
    if not swept(df):
        return None
    means, rates = validation_means(df), chosen_rates(df)
    columns = sorted(means.lr.unique())
    most = int(df[(df.metric == CHOOSES) & (df.task == "mqar")].x.max())
    rows = []
    for v in variants:
        part = means[means.variant == v]
        if not len(part):
            continue
        row = {"variant": v}
        for lr in columns:
            cell = part[part.lr == lr]
            row[f"lr {lr:g}"] = (
                f"{float(cell.accuracy.iloc[0]):.2f}" + (" *" if rates.get(v) == lr else "") if len(cell) else "-"
            )
        rows.append(row)
    seeds = int(means.seeds.max())
    return table_section(
        "MQAR learning-rate sweep: validation token accuracy at the most pairs",
        f"Mean over {seeds} seeds at {most} pairs on held-out validation sequences (not the scored ones); * marks the "
        "rate each variant keeps, the highest (a tie keeps the smaller). Every table, figure and verdict on MQAR below "
        "reads the kept rate's models, as Zoology reports each model at its best learning rate.",
        rows,
        "No sweep.",
    )
