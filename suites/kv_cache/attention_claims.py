"""The kv_cache checks of the attention layers past grouped heads: multi-head latent attention's cache size
(DeepSeek-V2, arXiv 2405.04434: GQA's with 2.25 groups) and a sliding window's rolling cache that stops at W
tokens (Mistral 7B, arXiv 2310.06825), both read from the measured cache bytes."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.suite_file import SuiteFile

MLA_BYTES, WINDOW_FLAT = ATTENTION_CLAIMS = SuiteFile.of(__file__).claims("mla_kv_bytes", "window_cache_flat")
#: DeepSeek-V2's latent cache in GQA groups: (d_c + d_h^R) / (2 d_h) with d_c = 4 d_h, d_h^R = d_h / 2
GQA_GROUPS = (4 + 0.5) / 2


def _bytes(df: pd.DataFrame, rows) -> pd.DataFrame:
    """One row per (variant, context): measured and analytic bytes and the layer's facts."""
    cache = df[(df.metric == "cache_bytes") & rows]
    analytic = df[(df.metric == "cache_bytes_analytic") & rows].set_index(["variant", "x"]).value
    out = [
        {
            "variant": r.variant,
            "x": int(r.x),
            "measured": float(r.value),
            "analytic": float(analytic.get((r.variant, r.x))),
            "ok": r.status == "ok",
            **r.extra,
        }
        for r in cache.itertuples()
    ]
    return pd.DataFrame(out)


def _attention(spec) -> str:
    return spec.get("attention", "grouped")


def mla_finding(df: pd.DataFrame) -> Finding:
    """Measured MLA cache bytes equal layers x (d_c + d_h^R) x tokens x batch x bytes, and the cache is GQA's with
    2.25 groups: 2.25 x (2 x layers x head_dim x tokens x batch x bytes), checked against a GQA-2 run when present."""
    mla = _bytes(df, df.spec.apply(_attention) == "mla")
    if not len(mla):
        return not_run(MLA_BYTES)
    equal = int((mla.measured == mla.analytic).sum())
    e = mla.iloc[0]
    per_group = 2 * e["layers"] * e["head_dim"] * e["bytes_per_element"] * e["batch"]  # one GQA group per token
    groups = sorted({m / (per_group * x) for m, x in zip(mla.measured, mla.x)})
    grouped = _bytes(
        df,
        (df.spec.apply(_attention) == "grouped")
        & df.spec.apply(lambda s: s.get("window") is None and s.get("n_kv_heads") == 2),
    )
    parts = [
        f"Measured MLA cache bytes equal layers x (d_c + d_h^R) x tokens x batch x bytes in {equal} of {len(mla)} "
        f"contexts: {e['values_per_token_layer']:g} values per token and layer at d_h = {e['head_dim']}, "
        f"{', '.join(f'{g:g}' for g in groups)} GQA groups' worth (DeepSeek-V2: 2.25)."
    ]
    estimates = [
        Estimate("MLA cache in GQA groups", groups[0], unit="groups", seeds=0),
        Estimate("MLA measured = formula", equal, unit=f"of {len(mla)} contexts", seeds=0),
    ]
    ratio_ok = True
    if len(grouped):
        joined = mla.merge(grouped, on="x", suffixes=("", "_gqa"))
        ratios = sorted({round(r, 6) for r in joined.measured / joined.measured_gqa})
        ratio_ok = ratios == [1.125]
        parts.append(
            f"Against the measured GQA-2 cache of the same model (`{joined.variant_gqa.iloc[0]}`): "
            f"{', '.join(f'{r:g}x' for r in ratios)} (2.25 / 2 = 1.125 expected)."
        )
        estimates.append(Estimate("MLA / GQA-2 measured bytes", ratios[0], unit="x", seeds=0))
    verdict = "agrees" if equal == len(mla) and groups == [GQA_GROUPS] and ratio_ok else "disagrees"
    cause = "" if verdict == "agrees" else "a measured latent cache differs from (d_c + d_h^R) per token and layer."
    return finding(
        MLA_BYTES,
        verdict,
        " ".join(parts),
        estimates,
        0,
        cause=cause,
        over_seeds=False,
        headline=0,
        boundary=GQA_GROUPS,
    )


def window_finding(df: pd.DataFrame) -> Finding:
    """Measured bytes of each windowed variant equal the formula at min(tokens, W) and are the same at every context
    past W, against the full cache's growth over the same contexts."""
    windowed = _bytes(df, df.spec.apply(lambda s: s.get("window") is not None))
    if not len(windowed):
        return not_run(WINDOW_FLAT)
    parts, estimates, flat = [], [], True
    for variant, sel in windowed.groupby("variant", sort=True):
        window = int(sel.window.iloc[0])
        past = sel[sel.x >= window].sort_values("x")
        equal = int((sel.measured == sel.analytic).sum())
        growth = float(past.measured.iloc[-1] / past.measured.iloc[0]) if len(past) else float("nan")
        flat = flat and equal == len(sel) and len(past) >= 2 and growth == 1.0
        parts.append(
            f"`{variant}` (W = {window}): measured = formula at min(tokens, W) in {equal} of {len(sel)} contexts; "
            f"{int(past.measured.iloc[0]):,} B at {int(past.x.iloc[0])} tokens and {int(past.measured.iloc[-1]):,} B "
            f"at {int(past.x.iloc[-1])} ({growth:g}x)."
            if len(past)
            else f"`{variant}` (W = {window}): no context reaches W."
        )
        estimates.append(Estimate(f"{variant} bytes, longest / shortest context past W", growth, unit="x", seeds=0))
        spec = df[df.variant == variant].spec.iloc[0]
        twin = df.spec.apply(
            lambda t: (
                t.get("window") is None
                and _attention(t) == "grouped"
                and t["position"] == spec["position"]
                and t.get("n_kv_heads") == spec.get("n_kv_heads")
            )
        )
        full = _bytes(df, twin)
        full = full[full.x.isin(past.x)] if len(full) else full
        if len(full) and full.x.nunique() >= 2:
            grows = float(full[full.x == full.x.max()].measured.iloc[0] / full[full.x == full.x.min()].measured.iloc[0])
            parts.append(f"The full cache of `{full.variant.iloc[0]}` grows {grows:g}x over the same contexts.")
    verdict = "agrees" if flat else "disagrees"
    cause = "" if flat else "a windowed cache's measured bytes grow past W or differ from the formula."
    # the headline: the first windowed variant's growth past W, which must be exactly 1
    return finding(
        WINDOW_FLAT, verdict, " ".join(parts), estimates, 0, cause=cause, over_seeds=False, headline=0, boundary=1.0
    )


def extend(claims: tuple, findings: Callable[[pd.DataFrame], list[Finding]]):
    """The suite's claims and findings function with these two checks after its own."""

    def all_findings(df: pd.DataFrame) -> list[Finding]:
        from suites.kv_cache.state_section import attention_rows

        attention = attention_rows(df)  # a recurrent LM's state has its own table, no attention claim
        return list(findings(df)) + [mla_finding(attention), window_finding(attention)]

    all_findings.__doc__ = findings.__doc__
    return tuple(claims) + ATTENTION_CLAIMS, all_findings
