"""The kv_cache answer in one table: per variant its cache bytes per token, the whole model's cached decode step and
one layer's decode-step attention at the longest context, and how much faster that attention is with fewer K/V heads."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from harness.report_kit import table_section
from harness.report_sections import HEADLINE, Section
from suites.kv_cache.steps import DOMINANT


def _mean(steps: pd.DataFrame, variant: str, x: float) -> float:
    sel = steps[(steps.variant == variant) & (steps.x == x)]
    return float(sel.ms.mean()) if len(sel) else float("nan")


def rows(df: pd.DataFrame, steps: pd.DataFrame, variants: Sequence[str]) -> list[dict]:
    """One row per variant: grouping, KV-cache KiB per token, the model's cached step (ms/token) and one layer's
    decode-step attention (grouped queries, ms) at their longest contexts, MHA's attention time over this variant's
    (same position encoding), and whether the attention step's bytes dominate it."""
    model, attention = steps[steps.kind == "model"], steps[steps.kind == "attention"]
    xm = model.x.max() if len(model) else None
    xa = attention.x.max() if len(attention) else None
    cache = df[(df.metric == "cache_bytes") & (df.status == "ok")]
    out = []
    for v in variants:
        sel = df[df.variant == v]
        if not len(sel):
            continue
        spec = sel.spec.iloc[0]
        mine = cache[cache.variant == v]
        row = {
            "variant": v,
            "grouping": sel.grouping.iloc[0],
            "KV cache (KiB/token)": f"{(mine.value / mine.x).mean() / 1024:.3g}" if len(mine) else "-",
        }
        if xm is not None:
            ms = _mean(model, v, xm)
            row[f"decode step (ms/token, {int(xm)} cached)"] = "-" if ms != ms else f"{ms:.3g}"
        if xa is not None:
            ms = _mean(attention, v, xa)
            mha = attention[(attention.position == spec["position"]) & (attention.grouping == "MHA")]
            ref = _mean(mha, mha.variant.iloc[0], xa) if len(mha) else float("nan")
            at = attention[(attention.variant == v) & (attention.x == xa)]
            row[f"attention, 1 layer (ms, {int(xa)} cached)"] = "-" if ms != ms else f"{ms:.3g}"
            row["MHA / this"] = "-" if ms != ms or ref != ref else f"{ref / ms:.2f}x"
            row["its bytes dominate"] = "-" if not len(at) else "yes" if at.dominated.all() else "no"
        out.append(row)
    return out


def section(df: pd.DataFrame, steps: pd.DataFrame, variants: Sequence[str]) -> Section:
    """The report's headline table: what the decode verdicts read, one row per variant."""
    note = (
        "Means over seeds. The decode step is the whole model's cached step of one token; the attention is one "
        "layer's decode-step attention by grouped queries over a cache of the variant's K/V heads; MHA / this is "
        "MHA's attention time over this variant's, same position encoding (the fewer-K/V-heads verdict reads it where "
        f"MHA's bytes dominate its step: reading them at the copy bandwidth takes at least {DOMINANT:.0%} of its time)."
    )
    return table_section(
        "Decode latency per variant", note, rows(df, steps, variants), "No decode step was timed.", HEADLINE
    )
