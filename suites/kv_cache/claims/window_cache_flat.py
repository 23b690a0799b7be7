"""A check: a sliding window's rolling cache stops growing at W tokens (Mistral 7B, arXiv 2310.06825), read from
the measured cache bytes."""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from suites.kv_cache.claims._shared import Evidence, attention_of, cache_rows

CLAIM = declared(__file__)
#: past W tokens the longest context's cache over the shortest's must be exactly this (Mistral's "fixed size of W")
FLAT = 1.0


def judge(ev: Evidence) -> Finding:
    """Measured bytes of each windowed variant equal the formula at min(tokens, W) and are the same at every context
    past W, against the full cache's growth over the same contexts."""
    df = ev.df
    windowed = cache_rows(df, df.spec.apply(lambda s: s.get("window") is not None))
    if not len(windowed):
        return not_run(CLAIM)
    parts, estimates, flat = [], [], True
    for variant, sel in windowed.groupby("variant", sort=True):
        window = int(sel.window.iloc[0])
        past = sel[sel.x >= window].sort_values("x")
        equal = int((sel.measured == sel.analytic).sum())
        growth = float(past.measured.iloc[-1] / past.measured.iloc[0]) if len(past) else float("nan")
        flat = flat and equal == len(sel) and len(past) >= 2 and growth == FLAT
        parts.append(
            f"`{variant}` (W = {window}): measured = formula at min(tokens, W) in {equal} of {len(sel)} contexts; "
            f"{int(past.measured.iloc[0]):,} B at {int(past.x.iloc[0])} tokens and {int(past.measured.iloc[-1]):,} B "
            f"at {int(past.x.iloc[-1])} ({growth:g}x)."
            if len(past)
            else f"`{variant}` (W = {window}): no context reaches W."
        )
        estimates.append(Estimate(f"{variant} bytes, longest / shortest context past W", growth, unit="x", seeds=0))
        parts += _full_growth(df, variant, past)
    verdict = "agrees" if flat else "disagrees"
    cause = "" if flat else "a windowed cache's measured bytes grow past W or differ from the formula."
    # the headline: the first windowed variant's growth past W, which must be exactly 1
    return finding(
        CLAIM, verdict, " ".join(parts), estimates, 0, cause=cause, over_seeds=False, headline=0, boundary=FLAT
    )


def _full_growth(df: pd.DataFrame, variant: str, past: pd.DataFrame) -> list[str]:
    """The sentence on the growth of the full cache of ``variant``'s twin without a window over the contexts past W
    (none without such a twin at two of them)."""
    spec = df[df.variant == variant].spec.iloc[0]
    twin = df.spec.apply(
        lambda t: (
            t.get("window") is None
            and attention_of(t) == "grouped"
            and t["position"] == spec["position"]
            and t.get("n_kv_heads") == spec.get("n_kv_heads")
        )
    )
    full = cache_rows(df, twin)
    full = full[full.x.isin(past.x)] if len(full) else full
    if not (len(full) and full.x.nunique() >= 2):
        return []
    grows = float(full[full.x == full.x.max()].measured.iloc[0] / full[full.x == full.x.min()].measured.iloc[0])
    return [f"The full cache of `{full.variant.iloc[0]}` grows {grows:g}x over the same contexts."]
