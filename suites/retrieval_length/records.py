"""Reading the suite's records: accuracy by seed at one length, the arms a run has, the settings it ran with."""

from __future__ import annotations

import pandas as pd

#: the three scores of a RoPE job: unscaled/scaled without fine-tuning, and after each fine-tuning budget
METRIC_OF_ARM = {"": "accuracy", "short": "short_finetuned_accuracy", "long": "finetuned_accuracy"}
#: each accuracy lies in [0, 1]: the bounds its differences' intervals keep to (harness/paired.py)
SHARE = (0.0, 1.0)


def ok_records(df: pd.DataFrame) -> pd.DataFrame:
    return df[df.status == "ok"] if "status" in df else df


def by_seed(df: pd.DataFrame, variant: str, metric: str, x: float) -> dict[int, float]:
    """seed -> value of ``metric`` at ``x`` (an evaluation length) for ``variant``, from the records that ran."""
    ok = ok_records(df)
    rows = ok[(ok.variant == variant) & (ok.metric == metric) & (ok.x == float(x))]
    return {int(r.seed): float(r.value) for r in rows.itertuples() if r.value is not None}


def curves(df: pd.DataFrame, variant: str, metric: str) -> dict[int, dict[float, float]]:
    """seed -> {length: value} of ``metric`` for ``variant``."""
    ok = ok_records(df)
    rows = ok[(ok.variant == variant) & (ok.metric == metric)]
    out: dict[int, dict[float, float]] = {}
    for r in rows.itertuples():
        out.setdefault(int(r.seed), {})[float(r.x)] = float(r.value)
    return out


def settings(df: pd.DataFrame) -> dict:
    """The profile settings of a group (every record of it has the same)."""
    s = df.iloc[0].profile_settings if len(df) else {}
    return s if isinstance(s, dict) else {}


def has(df: pd.DataFrame, variant: str, metric: str) -> bool:
    ok = ok_records(df)
    return bool(((ok.variant == variant) & (ok.metric == metric)).any())


def spec_of(df: pd.DataFrame, variant: str) -> dict:
    rows = df[df.variant == variant]
    spec = rows.iloc[0].spec if len(rows) else {}
    return spec if isinstance(spec, dict) else {}
