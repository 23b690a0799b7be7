"""A check: KV-cache bytes = 2 x layers x kv_heads x head_dim x tokens x batch x bytes (Llama 2's published sizes,
and every cache this suite measured)."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding
from suites.kv_cache.claims._shared import Evidence
from suites.kv_cache.tables import PUBLISHED_BYTES, calculator_table
from variants.decode.cache_size import PUBLISHED, kv_cache_bytes

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """A check (true by construction): the calculator gives the published Llama-2 sizes, and measured cache bytes
    equal the formula."""
    df = ev.df
    calc = calculator_table()
    agree = bool((calc[calc.published != ""].agrees == "yes").all())
    parts = [
        "The calculator gives exactly the Llama-2 cache sizes from the models' shapes (Touvron et al. 2023: 7B "
        "2 GiB, 13B 3,355,443,200 B, 70B 1,342,177,280 B at 4096 fp16 tokens; 10 GiB if 70B were MHA)."
        if agree
        else "The calculator disagrees with the Llama-2 sizes computed from the models' shapes."
    ]
    cache = df[df.metric == "cache_bytes"]
    equal = int((cache.status == "ok").sum())
    llama = PUBLISHED["Llama-2-7B"]
    estimates = [
        Estimate(
            "Llama-2-7B at 4096 tokens, fp16",
            kv_cache_bytes(llama.layers, llama.kv_heads, llama.head_dim, 4096, 1, 2),
            unit="B",
            seeds=0,
        )
    ]
    if len(cache):
        parts.append(f"Measured cache bytes equal the formula in {equal} of {len(cache)} cases.")
        estimates.append(Estimate("measured = formula", equal, unit=f"of {len(cache)} cases", seeds=0))
    verdict = "agrees" if agree and equal == len(cache) else "disagrees"
    cause = (
        ""
        if verdict == "agrees"
        else (
            "a measured cache size differs from the formula."
            if agree
            else "the calculator misses a published Llama-2 size."
        )
    )
    # the headline, Llama-2-7B's cache from the formula, must equal its published size exactly
    return finding(
        CLAIM,
        verdict,
        " ".join(parts),
        estimates,
        int(df.seed.nunique()),
        cause=cause,
        over_seeds=False,
        headline=0,
        boundary=float(PUBLISHED_BYTES["Llama-2-7B"]),
    )
