"""The kv_cache verdicts: the published Llama-2 cache sizes and Ainslie et al. 2023's faster decoding with fewer K/V heads."""

from __future__ import annotations

from typing import List

import pandas as pd

from harness.suite_file import SuiteFile
from harness.findings import Estimate, Finding, finding, not_run
from suites.kv_cache.tables import _grouping, calculator_table
from variants.kv_cache import PUBLISHED, kv_cache_bytes

#: the published findings this suite tests, in the order its report states them (suite.yaml)
KV_BYTES, DECODE = CLAIMS = SuiteFile.of(__file__).claims("kv_cache_bytes", "fewer_kv_heads_faster_decode")
AINSLIE = ("Ainslie et al. 2023 (arXiv 2305.13245) report T5-XXL inference at 1.51 s per sample with MHA, 0.28 s with "
           "GQA-8 and 0.24 s with MQA: with fewer key/value heads the memory-bound decode step reads a smaller cache.")


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on the published cache sizes and on Ainslie et al.'s decode speed-up."""
    df = df.copy()
    df["grouping"] = df.spec.apply(_grouping)
    return [_bytes_finding(df), _decode_finding(df)]


def _bytes_finding(df: pd.DataFrame) -> Finding:
    """The calculator gives the published Llama-2 sizes, and measured cache bytes equal the formula."""
    calc = calculator_table()
    agree = bool((calc[calc.published != ""].agrees == "yes").all())
    parts = ["The calculator gives exactly the Llama-2 cache sizes of REFERENCES.md (7B 2 GiB, 13B 3,355,443,200 B, "
             "70B 1,342,177,280 B; 10 GiB if 70B were MHA)." if agree else "The calculator disagrees with the published Llama-2 sizes."]
    cache = df[df.metric == "cache_bytes"]
    equal = int((cache.status == "ok").sum())
    llama = PUBLISHED["Llama-2-7B"]
    estimates = [Estimate("Llama-2-7B at 4096 tokens, fp16", kv_cache_bytes(llama.layers, llama.kv_heads, llama.head_dim,
                                                                             4096, 1, 2), unit="B", seeds=0)]
    if len(cache):
        parts.append(f"Measured cache bytes equal the formula in {equal} of {len(cache)} cases.")
        estimates.append(Estimate("measured = formula", equal, unit=f"of {len(cache)} cases", seeds=0))
    verdict = "agrees" if agree and equal == len(cache) else "disagrees"
    return finding(KV_BYTES, verdict, " ".join(parts), estimates, int(df.seed.nunique()))


def _decode_finding(df: pd.DataFrame) -> Finding:
    """A cached decode step is faster with MQA than with MHA at the longest context (per position encoding)."""
    step = df[(df.metric == "decode_latency") & (df.status == "ok")]
    if not len(step):
        return not_run(DECODE)
    x = step.x.max()
    at = step[step.x == x].groupby(["grouping", step.spec.apply(lambda s: s["position"])]).value.mean()
    parts, faster, estimates = [], [], []
    for position in sorted({p for _, p in at.index}):
        mha, mqa = at.get(("MHA", position)), at.get(("MQA", position))
        if mha is None or mqa is None:
            continue
        faster.append(mha > mqa)
        cells = step[(step.x == x) & (step.spec.apply(lambda s: s["position"]) == position)]
        per_seed = {g: cells[cells.grouping == g].groupby("seed").value.mean() for g in ("MHA", "MQA")}
        ratios = (per_seed["MHA"] / per_seed["MQA"]).dropna()  # paired by seed
        estimates.append(Estimate.of(f"MHA / MQA step time, {position}, {int(x)} tokens", ratios))
        parts.append(f"With {position} at {int(x)} cached tokens a cached step takes {mha:.2f} ms with MHA and "
                     f"{mqa:.2f} ms with MQA ({mha / mqa:.2f}x); " + (
                         "like Ainslie et al., fewer K/V heads make decoding faster." if mha > mqa else
                         "unlike Ainslie et al., MQA is not faster here: in this small model the cache read is not "
                         "what limits a step."))
    if not faster:
        return not_run(DECODE)
    verdict = "agrees" if all(faster) else ("disagrees" if not any(faster) else "inconclusive")
    return finding(DECODE, verdict, " ".join(parts), estimates)
