"""minGRU's parallel scan trains faster than a sequential GRU, more so as sequences grow (Feng et al. 2024): the
sequential GRU's fwd+bwd latency over minGRU's, a CPU ratio.

Feng et al. 2024 (arXiv 2410.01201, Figure 1) time a training step of minGRU (parallel scan) against a GRU run
step by step on a T4 GPU: 175x faster at length 512, the gap growing with length, since the scan's depth is
O(log T) where the GRU's chain is T steps. On a CPU with a few cores the scan's work, not its depth, sets its time,
so the ratio measured here is a CPU ratio and says nothing of the GPU's 175x.
"""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from suites.sequence_cost.claims import _shared as shared
from suites.sequence_cost.speedups import latencies, speedup

CLAIM = declared(__file__)
#: the sequential GRU the scan is compared with, and the library's fused GRU shown beside it
SEQUENTIAL, FUSED, SCANNED = "gru+loop", "gru", "mingru"
#: the verdict each reading of the ratios gives (claims/_shared.py ``speedup_reading``, against NOISE)
VERDICTS = {"faster and growing": "agrees", "slower": "disagrees", "neither": "inconclusive"}


def judge(ev: shared.Evidence) -> Finding:
    """Agrees when the sequential GRU's fwd+bwd latency over minGRU's exceeds NOISE at the longest length both were timed
    and is larger there than at the shortest; disagrees when minGRU is slower beyond NOISE there; else inconclusive."""
    df = ev.df
    pass_, ratios = speedup(df, SEQUENTIAL, SCANNED)
    if not ratios:
        return not_run(CLAIM, f"These records lack `{SEQUENTIAL}` and `{SCANNED}` timed at a common length.")
    common = sorted(ratios)
    scan, fused = latencies(df, SCANNED, pass_), latencies(df, FUSED, pass_)
    verdict = VERDICTS[shared.speedup_reading(ratios)]
    device = str(df.iloc[0].device).split(":")[0]
    listed, said = shared.ratios_text(ratios, verdict)
    text = (
        f"Training-step time ({pass_}) of the sequential GRU (`{SEQUENTIAL}`) over minGRU's parallel scan (`{SCANNED}`) "
        f"on this {device}: "
        + listed
        + (
            f"; the fused GRU (`{FUSED}`) over minGRU: "
            + ", ".join(f"{x:g} {fused[x] / scan[x]:.2f}x" for x in common if x in fused)
            if fused
            else ""
        )
        + f". Feng et al.'s 175x at 512 tokens is a GPU figure; this is the {device} ratio. {said}"
    )
    slower = f"minGRU's scan is slower than the sequential GRU at {common[-1]:g} tokens on this {device}."
    cause = shared.ratio_cause(verdict, ratios, slower)
    # the longest length decides (it comes first), against the timing margin NOISE
    estimates = shared.ratio_estimates(ratios, SEQUENTIAL, SCANNED)
    return finding(CLAIM, verdict, text, estimates, cause=cause, over_seeds=False, headline=0, boundary=shared.NOISE)
