"""The kv_cache report's section on recurrent LMs: the state each keeps in place of a cache, and its decode step.

The rest of the report and the verdicts read the Transformer rows (``attention_rows``); the mixer rows
(state_steps.py) get one table: bytes kept per sequence at each context (measured = the model's count, or the
difference), and the decode step's latency beside the MHA Transformer's at the same context.
"""

from __future__ import annotations

import pandas as pd

from harness.report_kit import table_section
from harness.report_sections import Section


def _is_mixer(spec) -> bool:
    return isinstance(spec, dict) and spec.get("family") == "mixer"


def split(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the Transformer rows, the recurrent LM rows); records without specs are all the Transformer's."""
    if "spec" not in df or not len(df):
        return df, df.iloc[0:0]
    mixer = df.spec.apply(_is_mixer).astype(bool)
    return df[~mixer], df[mixer]


def attention_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The Transformer rows, which every other table and verdict of the suite reads."""
    return split(df)[0]


def _mean(rows: pd.DataFrame, metric: str, x: float) -> float:
    part = rows[(rows.metric == metric) & (rows.x == x) & (rows.status == "ok")].value
    return float(part.mean()) if len(part) else float("nan")


def state_section(df: pd.DataFrame) -> Section | None:
    """The table of the recurrent LMs' state bytes and decode step against the context (None without such rows)."""
    attention, mixers = split(df)
    if not len(mixers):
        return None
    contexts = sorted(mixers[mixers.metric == "cache_bytes"].x.dropna().unique())
    mha = [
        v
        for v in attention.variant.unique()
        if "+" not in v
        and attention[attention.variant == v].spec.iloc[0].get("n_kv_heads") is None
        and attention[attention.variant == v].spec.iloc[0].get("attention", "grouped") == "grouped"
    ]
    rows = []
    for v in sorted(mixers.variant.unique()):
        mine = mixers[mixers.variant == v]
        row = {"variant": f"`{v}`"}
        for x in contexts:
            got = mine[(mine.metric == "cache_bytes") & (mine.x == x)]
            size = (
                "-"
                if not len(got)
                else (f"{got.value.mean() / 1024:.3g} KiB" if (got.status == "ok").all() else str(got.status.iloc[0]))
            )
            ms = _mean(mine, "decode_latency", x)
            row[f"{int(x)} tokens"] = f"{size}, {ms:.3g} ms" if ms == ms else size
        rows.append(row)
    for v in mha[:1]:
        mine = attention[attention.variant == v]
        rows.append(
            {
                "variant": f"`{v}` (KV cache)",
                **{
                    f"{int(x)} tokens": f"{_mean(mine, 'cache_bytes', x) / 1024:.3g} KiB, {_mean(mine, 'decode_latency', x):.3g} ms"
                    for x in contexts
                },
            }
        )
    return table_section(
        "Recurrent state in place of a cache",
        "Bytes a recurrent LM keeps (the live state tensors after the context fed token by token, batch "
        "included; each equals the model's own count, or the cell names the difference) and one decode "
        "step's median latency, beside the MHA Transformer's KV cache and cached step at the same width "
        "and depth. A recurrence keeps the same bytes at every context; a hybrid's attention blocks add "
        "their keys and values.",
        rows,
        "No recurrent LM was measured.",
    )
