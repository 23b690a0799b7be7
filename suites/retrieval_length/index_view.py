"""The index's retrieval view: each arm's effective length (RULER's definition adapted) from the group the index covers."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from harness.report_kit import in_order, markdown_table
from suites.retrieval_length.effective import THRESHOLD
from suites.retrieval_length.tables import ORDER, arms, effective_cell


def effective_lengths(frames: Mapping[str, pd.DataFrame], reports_dir: Path) -> list[str]:
    """The index's section "Effective length by passkey retrieval", as Markdown lines: one row per arm; [] without
    retrieval records (the index, bench/index/page.py, lays out lines, not a suite's Report)."""
    df = frames.get("retrieval_length")
    if df is None or not len(df):
        return []
    settings = df.iloc[0].profile_settings
    train_len = int(settings["train_len"])
    rows = [
        {"arm": label, f"effective length, characters (>= {THRESHOLD:g})": effective_cell(df, v, metric, train_len)}
        for label, v, metric in arms(df, in_order(df.variant.unique(), ORDER), settings)
    ]
    if not rows:
        return []
    return [
        "## Effective length by passkey retrieval",
        "",
        f"The longest length up to which a model trained at L = {train_len} characters keeps passkey accuracy at or "
        f"above {THRESHOLD:g} at every tested length, mean over seeds with each seed's "
        "([retrieval_length](retrieval_length.md) has accuracy by length and depth, and the verdicts).",
        "",
        markdown_table(pd.DataFrame(rows)),
        "",
    ]
