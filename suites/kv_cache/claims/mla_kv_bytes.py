"""A check: multi-head latent attention caches (d_c + d_h^R) values per token and layer, GQA's cache with 2.25
groups (DeepSeek-V2, arXiv 2405.04434), read from the measured cache bytes."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from suites.kv_cache.claims._shared import Evidence, attention_of, cache_rows

CLAIM = declared(__file__)
#: DeepSeek-V2's latent cache in GQA groups: (d_c + d_h^R) / (2 d_h) with d_c = 4 d_h, d_h^R = d_h / 2 (section
#: 2.1.4 and table 1: "equal to GQA with only 2.25 groups")
GQA_GROUPS = (4 + 0.5) / 2


def judge(ev: Evidence) -> Finding:
    """Measured MLA cache bytes equal layers x (d_c + d_h^R) x tokens x batch x bytes, and the cache is GQA's with
    2.25 groups: 2.25 x (2 x layers x head_dim x tokens x batch x bytes), checked against a GQA-2 run when present."""
    df = ev.df
    mla = cache_rows(df, df.spec.apply(attention_of) == "mla")
    if not len(mla):
        return not_run(CLAIM)
    equal = int((mla.measured == mla.analytic).sum())
    e = mla.iloc[0]
    per_group = 2 * e["layers"] * e["head_dim"] * e["bytes_per_element"] * e["batch"]  # one GQA group per token
    groups = sorted({m / (per_group * x) for m, x in zip(mla.measured, mla.x)})
    grouped = cache_rows(
        df,
        (df.spec.apply(attention_of) == "grouped")
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
        CLAIM,
        verdict,
        " ".join(parts),
        estimates,
        0,
        cause=cause,
        over_seeds=False,
        headline=0,
        boundary=GQA_GROUPS,
    )
