"""The kv_cache verdicts: the published Llama-2 cache sizes, Ainslie et al. 2023's faster decoding with fewer K/V heads,
and Pope et al. 2022's memory-bound decode step."""

from __future__ import annotations

from typing import List

import pandas as pd

from harness.suite_file import SuiteFile
from harness.findings import Estimate, Finding, finding, not_run
from suites.kv_cache.tables import _grouping, calculator_table
from variants.kv_cache import PUBLISHED, kv_cache_bytes

#: the published findings this suite tests, in the order its report states them (suite.yaml)
KV_BYTES, DECODE, MEMORY_BOUND = CLAIMS = SuiteFile.of(__file__).claims(
    "kv_cache_bytes", "fewer_kv_heads_faster_decode", "decode_is_memory_bound")
POPE = ("Pope et al. 2022 (arXiv 2211.05102) model a generation step at small batch as memory-bound: its time is the "
        "time to read the weights and the KV cache, so it grows with the cached tokens no faster than those bytes.")
#: step times differ only beyond this factor (their repeat-to-repeat noise): MHA must beat MQA by it, and latency
#: may outgrow the bytes read by it
NOISE = 1.10
AINSLIE = ("Ainslie et al. 2023 (arXiv 2305.13245) report T5-XXL inference at 1.51 s per sample with MHA, 0.28 s with "
           "GQA-8 and 0.24 s with MQA: with fewer key/value heads the memory-bound decode step reads a smaller cache.")


def findings(df: pd.DataFrame) -> List[Finding]:
    """This suite's verdicts on the published cache sizes and on Ainslie et al.'s decode speed-up."""
    df = df.copy()
    df["grouping"] = df.spec.apply(_grouping)
    return [_bytes_finding(df), _decode_finding(df), _memory_bound_finding(df)]


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
        # faster beyond timing noise (True), not faster (False), or within the noise (None)
        faster.append(True if mha > NOISE * mqa else (False if mha <= mqa else None))
        cells = step[(step.x == x) & (step.spec.apply(lambda s: s["position"]) == position)]
        per_seed = {g: cells[cells.grouping == g].groupby("seed").value.mean() for g in ("MHA", "MQA")}
        ratios = (per_seed["MHA"] / per_seed["MQA"]).dropna()  # paired by seed
        estimates.append(Estimate.of(f"MHA / MQA step time, {position}, {int(x)} tokens", ratios))
        parts.append(f"With {position} at {int(x)} cached tokens a cached step takes {mha:.2f} ms with MHA and "
                     f"{mqa:.2f} ms with MQA ({mha / mqa:.2f}x); " + {
                         True: "like Ainslie et al., fewer K/V heads make decoding faster.",
                         None: f"MQA is faster by less than the {NOISE - 1:.0%} allowed for timing noise.",
                         False: "unlike Ainslie et al., MQA is not faster here: in this small model the cache read is "
                                "not what limits a step."}[faster[-1]])
    if not faster:
        return not_run(DECODE)
    verdict = ("agrees" if all(f is True for f in faster) else
               "disagrees" if all(f is False for f in faster) else "inconclusive")
    return finding(DECODE, verdict, " ".join(parts), estimates)


def _memory_bound_finding(df: pd.DataFrame) -> Finding:
    """From the shortest to the longest context, each variant's cached step slows by at most the growth of the
    bytes it reads (weights + K/V), within NOISE: a step that copied its cache, or did work per cached token
    beyond reading it, would grow faster."""
    growth = growth_table(df)
    if not len(growth):
        return not_run(MEMORY_BOUND)
    within = growth["latency growth"] <= NOISE * growth["bytes growth"]
    worst = growth.loc[(growth["latency growth"] / growth["bytes growth"]).idxmax()]
    short, long = int(growth.iloc[0]["from"]), int(growth.iloc[0]["to"])
    sentence = (f"From {short} to {long} cached tokens the bytes a step reads grow {growth['bytes growth'].min():.2f}-"
                f"{growth['bytes growth'].max():.2f}x and its latency {growth['latency growth'].min():.2f}-"
                f"{growth['latency growth'].max():.2f}x; {int(within.sum())} of {len(growth)} variants stay within "
                f"{NOISE:.2f} x the bytes' growth (the furthest: {worst.variant}, {worst['latency growth']:.2f}x for "
                f"{worst['bytes growth']:.2f}x the bytes).")
    verdict = "agrees" if within.all() else ("disagrees" if not within.any() else "inconclusive")
    estimates = [Estimate.of(f"latency growth / bytes growth, {r.variant}", r.per_seed) for r in growth.itertuples()]
    return finding(MEMORY_BOUND, verdict, sentence, estimates)


def growth_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per variant, from the shortest to the longest context with a timed cached step: the growth of the bytes it
    reads and of its latency (means over seeds), and the per-seed ratio of the two."""
    rates = df[(df.metric == "decode_bandwidth") & (df.status == "ok")]
    rows = []
    for variant, sel in rates.groupby("variant", sort=False):
        short, long = sel.x.min(), sel.x.max()
        if short == long:
            continue
        read = {x: sel[sel.x == x].extra.apply(lambda e: e["weight_bytes"] + e["cache_bytes_read"]).iloc[0] for x in (short, long)}
        ms = {x: sel[sel.x == x].set_index("seed").extra.apply(lambda e: e["step_ms"]) for x in (short, long)}
        per_seed = (ms[long] / ms[short]).dropna() / (read[long] / read[short])
        rows.append({"variant": variant, "from": short, "to": long, "bytes growth": read[long] / read[short],
                     "latency growth": float((ms[long] / ms[short]).mean()), "per_seed": list(per_seed)})
    return pd.DataFrame(rows)
