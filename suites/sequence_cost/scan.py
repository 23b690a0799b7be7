"""minGRU's parallel scan against a sequential GRU in training, and the decode-step table: fixed states against a KV cache.

Feng et al. 2024 (arXiv 2410.01201, Figure 1) time a training step of minGRU (parallel scan) against a GRU run
step by step on a T4 GPU: 175x faster at length 512, the gap growing with length, since the scan's depth is
O(log T) where the GRU's chain is T steps. On a CPU with a few cores the scan's work, not its depth, sets its time,
so the ratio measured here is a CPU ratio and says nothing of the GPU's 175x.
"""

from __future__ import annotations

import pandas as pd

from harness.findings import Estimate, Finding, finding, not_run
from harness.report_kit import table_section
from harness.suite_file import SuiteFile

(SCAN,) = SuiteFile.of(__file__).claims("parallel_scan_speedup")
#: the sequential GRU the scan is compared with, and the library's fused GRU shown beside it
SEQUENTIAL, FUSED, SCANNED = "gru+loop", "gru", "mingru"
#: a timing margin, not a seed margin: a ratio within this factor of 1 is timing noise on a shared machine (the
#: verdict rests on one seed's timing repeats)
NOISE = 1.1


def latencies(df: pd.DataFrame, variant: str, pass_: str) -> dict[float, float]:
    """length -> the mean over seeds of one variant's median latency in one pass (ok records)."""
    rows = df[(df.metric == "latency") & (df.status == "ok") & (df.variant == variant) & (df["pass"] == pass_)]
    return {float(x): float(part.value.mean()) for x, part in rows.groupby("x")}


def speedup(df: pd.DataFrame, slow: str, fast: str) -> tuple[str, dict[float, float]]:
    """(the pass compared, length -> ``slow``'s latency over ``fast``'s at the lengths both were timed)."""
    pass_ = "fwd+bwd" if (df["pass"] == "fwd+bwd").any() else "fwd"
    a, b = latencies(df, slow, pass_), latencies(df, fast, pass_)
    return pass_, {x: a[x] / b[x] for x in sorted(set(a) & set(b))}


def speedup_verdict(ratios: dict[float, float]) -> str:
    """Agrees when the ratio at the longest length exceeds NOISE and is larger there than at the shortest (or only one
    length was timed); disagrees when it is below 1 / NOISE there; else inconclusive."""
    common = sorted(ratios)
    short, long = common[0], common[-1]
    if ratios[long] > NOISE and (ratios[long] > ratios[short] or len(common) == 1):
        return "agrees"
    return "disagrees" if ratios[long] < 1 / NOISE else "inconclusive"


def scan_finding(df: pd.DataFrame) -> Finding:
    """Agrees when the sequential GRU's fwd+bwd latency over minGRU's exceeds NOISE at the longest length both were timed
    and is larger there than at the shortest; disagrees when minGRU is slower beyond NOISE there; else inconclusive."""
    pass_, ratios = speedup(df, SEQUENTIAL, SCANNED)
    if not ratios:
        return not_run(SCAN, f"These records lack `{SEQUENTIAL}` and `{SCANNED}` timed at a common length.")
    common = sorted(ratios)
    scan, fused = latencies(df, SCANNED, pass_), latencies(df, FUSED, pass_)
    short, long = common[0], common[-1]
    verdict = speedup_verdict(ratios)
    device = str(df.iloc[0].device).split(":")[0]
    text = (
        f"Training-step time ({pass_}) of the sequential GRU (`{SEQUENTIAL}`) over minGRU's parallel scan (`{SCANNED}`) "
        f"on this {device}: "
        + ", ".join(f"{x:g} tokens {r:.2f}x" for x, r in ratios.items())
        + (
            f"; the fused GRU (`{FUSED}`) over minGRU: "
            + ", ".join(f"{x:g} {fused[x] / scan[x]:.2f}x" for x in common if x in fused)
            if fused
            else ""
        )
        + f". Feng et al.'s 175x at 512 tokens is a GPU figure; this is the {device} ratio. This run {verdict} "
        f"(faster beyond {NOISE:g}x at {long:g} tokens and by more than at {short:g})."
    )
    cause = {
        "agrees": "",
        "disagrees": f"minGRU's scan is slower than the sequential GRU at {long:g} tokens on this {device}.",
        "inconclusive": f"the ratio at {long:g} tokens is within {NOISE:g}x of 1 or does not grow with length.",
    }[verdict]
    estimates = [Estimate(f"{SEQUENTIAL} / {SCANNED} latency at {x:g} tokens", r, unit="x") for x, r in ratios.items()]
    # the longest length decides (estimates reversed: it comes first), against the timing margin NOISE
    return finding(SCAN, verdict, text, estimates[::-1], cause=cause, over_seeds=False, headline=0, boundary=NOISE)


def decode_table(df: pd.DataFrame, variants: list[str]) -> list[str]:
    """Per layer and context: one decoding step's latency and the state it reads per sequence."""
    lat = df[(df.metric == "decode_latency") & (df.status == "ok")]
    size = df[(df.metric == "decode_state_bytes") & (df.status == "ok")]
    if not len(lat):
        return []
    contexts = sorted(lat.x.unique())
    rows = []
    for v in [v for v in variants if v in set(lat.variant)]:
        row = {"layer": f"`{v}`"}
        for x in contexts:
            t = lat[(lat.variant == v) & (lat.x == x)].value
            b = size[(size.variant == v) & (size.x == x)].value
            row[f"{int(x)} tokens"] = (f"{t.mean():.3g} ms" if len(t) else "-") + (
                f", {b.mean() / 1024:.3g} KiB" if len(b) else ""
            )
        rows.append(row)
    return table_section(
        "Decoding: one step against the context length",
        "Median time of one decoding step of one layer "
        "(batch as above, one new token per sequence) after the context, and the state it reads per "
        "sequence: a recurrent or mixer state stays the same size, the Transformer's KV cache grows by "
        "2 d values per token.",
        rows,
        "No decode steps timed.",
    )
