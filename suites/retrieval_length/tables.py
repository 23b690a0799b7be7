"""The report's tables: accuracy by length with each arm's effective length, by depth, and the loss beside it."""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import fmt_mean_ci, table_section
from harness.report_sections import HEADLINE, Section
from suites.retrieval_length.effective import THRESHOLD, effective_length, effective_text
from suites.retrieval_length.records import SHARE, curves, ok_records

#: the order variants are shown in (others after, alphabetically)
ORDER = (
    "none",
    "sinusoidal",
    "learned",
    "rope",
    "alibi",
    "rope+window32",
    "rope+pi",
    "rope+ntk",
    "rope+yarn",
)
#: accuracy metrics by arm: (metric, the profile field holding the arm's fine-tuning steps or None)
ARMS = (
    ("accuracy", None),
    ("short_finetuned_accuracy", "short_finetune_steps"),
    ("finetuned_accuracy", "finetune_steps"),
)


def arms(df: pd.DataFrame, variants: list[str], settings: dict) -> list[tuple[str, str, str]]:
    """(label, variant, metric) of every arm the records hold: each variant unscaled or scaled, then its fine-tuned
    arms ('rope+pi, 48 steps at 128')."""
    have = set(zip(df.variant, df.metric))
    out = []
    for metric, field in ARMS:
        for v in variants:
            if (v, metric) in have:
                label = v if field is None else f"{v}, {settings.get(field)} steps at {settings.get('finetune_len')}"
                out.append((label, v, metric))
    return out


def lengths_of(df: pd.DataFrame) -> list[float]:
    ok = ok_records(df)
    return sorted(ok[ok.metric == "accuracy"].x.dropna().unique())


def _cell(df: pd.DataFrame, variant: str, metric: str, x: float) -> str:
    rows = df[(df.variant == variant) & (df.metric == metric) & (df.x == x)]
    ok = rows[rows.status == "ok"]
    if len(ok):
        return fmt_mean_ci(ok.value, 2, "bounded", SHARE)
    return str(rows.status.iloc[0]) if len(rows) else "-"


def effective_cell(df: pd.DataFrame, variant: str, metric: str, train_len: int) -> str:
    """The mean over seeds of each seed's effective length, with the per-seed values."""
    per_seed = {seed: effective_length(c) for seed, c in sorted(curves(df, variant, metric).items())}
    if not per_seed:
        return "-"
    mean = sum(per_seed.values()) / len(per_seed)
    if len(per_seed) == 1:
        return effective_text(mean, train_len)
    return f"{mean:.0f} (seeds: {', '.join(f'{v:.0f}' for v in per_seed.values())})"


def accuracy_section(df: pd.DataFrame, variants: list[str], settings: dict, seeds: int) -> Section:
    """Accuracy at every length per arm, with its effective length (the headline)."""
    train_len = int(settings["train_len"])
    lengths = lengths_of(df)
    rows = []
    for label, v, metric in arms(df, variants, settings):
        row = {"arm": label}
        for x in lengths:
            row[f"{x / train_len:g}L ({x:.0f})"] = _cell(df, v, metric, x)
        row[f"effective length (>= {THRESHOLD:g})"] = effective_cell(df, v, metric, train_len)
        rows.append(row)
    how = "one seed: no interval" if seeds < 2 else "mean [95% interval kept within 0-1] over seeds"
    depths = ", ".join(f"{d:g}" for d in settings["needle_depths"])
    note = (
        f"Exact match of the 5 key digits, mean over needle depths {depths} x {settings['eval_draws']} held-out "
        f"sequences each ({how}). Effective length: the longest length up to which every tested length keeps "
        f"accuracy at or above {THRESHOLD:g} (RULER's definition adapted: suites/retrieval_length/effective.py), "
        "the mean over seeds of each seed's. 'unsupported': the model cannot encode that length (its reason below)."
    )
    return table_section("Retrieval accuracy by length", note, rows, "No accuracy records.", HEADLINE)


def depth_section(df: pd.DataFrame, variants: list[str], settings: dict) -> Section | None:
    """Accuracy by needle depth at the fine-tuning length (s x L), mean over seeds (None without records there)."""
    length = float(settings.get("finetune_len", 0))
    ok = ok_records(df)
    rows = []
    depths = [float(d) for d in settings.get("needle_depths", ())]
    for label, v, metric in arms(df, variants, settings):
        recs = ok[(ok.variant == v) & (ok.metric == metric) & (ok.x == length)]
        if not len(recs):
            continue
        row = {"arm": label}
        for i, d in enumerate(depths):
            vals = [float(e["by_depth"][i]) for e in recs.extra if isinstance(e, dict) and "by_depth" in e]
            row[f"depth {d:g}"] = f"{sum(vals) / len(vals):.2f}" if vals else "-"
        rows.append(row)
    if not rows:
        return None
    note = (
        f"At the fine-tuning length {length:.0f}, mean over seeds; depth 0 puts the needle first, 1 right before the "
        "question."
    )
    return table_section(f"Accuracy by needle depth at {length:.0f}", note, rows, "")


def loss_section(df: pd.DataFrame, variants: list[str], settings: dict) -> Section | None:
    """Perplexity on the filler characters of the scored sequences (without fine-tuning), by length (None without
    text-loss records)."""
    train_len = int(settings["train_len"])
    ok = ok_records(df)
    rows = []
    for v in variants:
        recs = ok[(ok.variant == v) & (ok.metric == "text_loss")]
        if not len(recs):
            continue
        row = {"variant": v}
        for x in lengths_of(df):
            vals = [math.exp(float(val)) for val in recs[recs.x == x].value]
            row[f"{x / train_len:g}L"] = fmt_mean_ci(vals, 2, "log") if vals else "unsupported"
        rows.append(row)
    if not rows:
        return None
    note = (
        "Per character, on the filler characters of the scored sequences (held-out text; needle, question and key "
        "left out), without fine-tuning: the perplexity Press et al. read, beside the retrieval it does not show."
    )
    return table_section("Perplexity on the filler", note, rows, "")
