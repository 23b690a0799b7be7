"""Attention's share of a causal Transformer block's forward time by length (attention_share.py measures it): the
rows attention_minor_at_moderate_length judges and the report's table of them.

The share is a ratio of two medians, the core's and the block's, each over its own timing repeats: its log's
variance is pi/2 times each timing's relative variance over its repeats, summed (suites/common/timing_repeats.py),
tested on Student-t at the Welch-Satterthwaite degrees of freedom of the two. Records that keep each timing's spread
and repeats (from this version of attention_share.py on) give both; older ones keep only the two spreads in
quadrature (``relative_sd``), read with the profile's min_repeats as the count of each and n - 1 degrees of
freedom, the fewest the two could have (a conservative test).
"""

from __future__ import annotations

import math

import pandas as pd

from harness.report_kit import markdown_table
from harness.report_sections import Section, section
from suites.common.timing_repeats import Contrast, LogTiming, from_spread


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
        settings = getattr(r, "profile_settings", None)
        c = share_contrast(float(r.value), e, settings.get("min_repeats") if isinstance(settings, dict) else None)
        low, high = c.bounds() if c else (math.nan, math.nan)
        out.append(
            {
                "variant": variant,
                "length": int(r.x),
                "n / d": float(e["n_over_d"]),
                "time share": float(r.value),
                "low": low,
                "high": high,
                "contrast": c,
                "FLOP share": float(e["flops_share"]),
                "n / (12 d + n)": float(e["analytic_share"]),
            }
        )
    return pd.DataFrame(out)


def share_contrast(share: float, extra: dict, repeats_at_least: int | None) -> Contrast | None:
    """The log of attention's share with its standard error and degrees of freedom from the two timings' repeats
    (see the module docstring); None where the records give no count of repeats or no spread."""
    if not share > 0:
        return None
    if extra.get("core_repeats") and extra.get("block_repeats") and "core_sd" in extra and "block_sd" in extra:
        core = from_spread(math.log(share), float(extra["core_sd"]), int(extra["core_repeats"]))
        block = from_spread(0.0, float(extra["block_sd"]), int(extra["block_repeats"]))
        return Contrast.of([(1, core), (-1, block)])
    n, sd = repeats_at_least, extra.get("relative_sd")
    if not n or n < 2 or sd is None:
        return None
    both = from_spread(math.log(share), float(sd), int(n))
    return Contrast.of([(1, LogTiming(both.centre, both.var, both.df))])


def share_section(df: pd.DataFrame) -> Section | None:
    """The report's table of attention's share by length (None without the block's attention core timed)."""
    rows = share_rows(df)
    if not len(rows):
        return None
    shown = rows.drop(columns=["variant", "low", "high", "contrast"]).copy()
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
