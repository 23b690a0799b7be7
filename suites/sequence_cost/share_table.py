"""Attention's share of a causal Transformer block's forward time by length (attention_share.py measures it): the
rows attention_minor_at_moderate_length judges and the report's table of them."""

from __future__ import annotations

import pandas as pd

from harness.paired import MARGIN_SDS
from harness.report_kit import markdown_table
from harness.report_sections import Section, section


def share_rows(df: pd.DataFrame) -> pd.DataFrame:
    """One row per length of the first Transformer variant: time share, its bounds, FLOP and analytic shares."""
    rows = df[(df.metric == "attention_share") & (df.status == "ok")]
    if not len(rows):
        return pd.DataFrame()
    variant = sorted(rows.variant.unique())[0]
    rows = rows[rows.variant == variant].sort_values("x")
    out = []
    for r in rows.itertuples():
        e = r.extra
        spread = MARGIN_SDS * float(e.get("relative_sd", 0.0))
        out.append(
            {
                "variant": variant,
                "length": int(r.x),
                "n / d": float(e["n_over_d"]),
                "time share": float(r.value),
                "low": float(r.value) / (1 + spread),
                "high": float(r.value) * (1 + spread),
                "FLOP share": float(e["flops_share"]),
                "n / (12 d + n)": float(e["analytic_share"]),
            }
        )
    return pd.DataFrame(out)


def share_section(df: pd.DataFrame) -> Section | None:
    """The report's table of attention's share by length (None without the block's attention core timed)."""
    rows = share_rows(df)
    if not len(rows):
        return None
    shown = rows.drop(columns=["variant", "low", "high"]).copy()
    for col in ("time share", "FLOP share", "n / (12 d + n)"):
        shown[col] = shown[col].map(lambda x: f"{x:.1%}")
    return section(
        "How much of a layer's compute is attention",
        [
            f"The causal attention core of `{rows.variant.iloc[0]}` (softmax(q k^T) v, the block's own kernel and "
            "shapes) timed alone, as a share of the whole block's forward time, beside its share of the block's FLOPs "
            "(flop_counter, the causal half of the scores) and Kaplan et al.'s count n / (12 d + n).",
            "",
            markdown_table(shown),
            "",
        ],
    )
