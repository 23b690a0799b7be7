"""The attention a model gives its cache's first slot: where an attention sink forms (StreamingLLM, Xiao et al. 2023,
figure 2), read from the sinks policy's ``first_slot_share`` records, one value per layer and model."""

from __future__ import annotations

import math

import pandas as pd

from harness.findings import Estimate


def first_slot(df: pd.DataFrame):
    """(the largest layer's share of attention on the sinks policy's first slot per model, as an estimate over
    models; the largest of any model; even attention's share, 1 / cache size), or None without the records."""
    rows = df[
        (df.metric == "first_slot_share") & (df.status == "ok") & (df.extra.apply(lambda e: e.get("policy")) == "sinks")
    ]
    if not len(rows):
        return None
    even = float(rows.extra.iloc[0].get("uniform", math.nan))
    if math.isnan(even):
        return None
    largest = rows.groupby("seed").value.max()  # per model: its largest layer's share
    # shown with its range over models, not an interval: the precondition reads each model, not their mean
    estimate = Estimate.of("first slot's attention share, largest layer", list(largest.values), kind="count")
    return estimate, float(largest.max()), even
