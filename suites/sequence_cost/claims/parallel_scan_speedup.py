"""minGRU's parallel scan trains faster than a sequential GRU, more so as sequences grow (Feng et al. 2024): the
sequential GRU's fwd+bwd latency over minGRU's, tested on the timing repeats, on a GPU.

Feng et al. 2024 (arXiv 2410.01201, Figure 1) time a training step of minGRU (parallel scan) against a GRU run
step by step on a T4 GPU: 175x faster at length 512, the gap growing with length, since the scan's depth is
O(log T) where the GRU's chain is T steps, and their abstract says why: the traditional models "were slow due to
requiring to backpropagate through time", the minimal ones "can be efficiently trained in parallel". That is a claim
about a device with parallel lanes to spare. On a CPU of a few cores the scan's total work, not its depth, sets its
time, and the ratio measures a Python loop's dispatch against one vectorised call: the claim's precondition (a GPU,
claims/_shared.py, the same for the chunked form's claim and the utilisation claim) is not met there, whatever the
ratio. A CPU group is judged on the project's reference GPU records where they hold both forms, else not testable
here with the CPU's ratios shown.
"""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Finding
from suites.sequence_cost.claims import _shared as shared
from suites.sequence_cost.speedups import latencies, pass_of

CLAIM = declared(__file__)
#: the sequential GRU the scan is compared with, and the library's fused GRU shown beside it
SEQUENTIAL, FUSED, SCANNED = "gru+loop", "gru", "mingru"
#: what would test the claim where the records are not a GPU's
WOULD_TEST = (
    f"`bench run suite=sequence_cost profile=large device=cuda variants=[{SCANNED},{SEQUENTIAL},{FUSED}]` on a GPU, "
    "lengths to 4096 tokens"
)


def judge(ev: shared.Evidence) -> Finding:
    """On a GPU: agrees when the sequential GRU's fwd+bwd latency over minGRU's is above FASTER at the longest length
    both were timed and grows from the shortest (each part's 95% interval over the timing repeats wholly on its
    side); disagrees when a part's interval lies wholly on the other side (the parts held at 2.5% together); else
    inconclusive. On another device judged on the reference GPU records, else not testable here."""
    return shared.speedup_on_a_gpu(
        CLAIM,
        ev,
        _judge,
        SEQUENTIAL,
        SCANNED,
        "where a scan's total work, not its depth, sets its time",
        WOULD_TEST,
        f"These records lack `{SEQUENTIAL}` and `{SCANNED}` timed at a common length.",
        _fused_on_gpu,
    )


def _fused_on_gpu(gpu: pd.DataFrame) -> str:
    """What GPU records without the sequential GRU show: the fused GRU (cuDNN) over minGRU, not judged."""
    pass_ = pass_of(gpu)
    scan, fused = latencies(gpu, SCANNED, pass_), latencies(gpu, FUSED, pass_)
    common = sorted(set(scan) & set(fused))
    if not common:
        return f"no `{SEQUENTIAL}`"
    return (
        f"no `{SEQUENTIAL}`; they show the fused GRU (`{FUSED}`, one library kernel that still runs T steps) over "
        f"minGRU, {pass_}: "
        + ", ".join(f"{fused[x] / scan[x]:.2f}x at {x:g} tokens" for x in common)
        + ", shown, not judged: the claim's sequential GRU is the step loop"
    )


def _judge(df: pd.DataFrame, lead: str = "") -> shared.Judged | None:
    """The claim judged on one group of records as on a GPU (``lead``: how the sentence names them); None where they
    lack the two forms at a common length."""
    s = shared.speedup(df, SEQUENTIAL, SCANNED)
    if s is None:
        return None
    device, named = shared.device_of(df), shared.device_name(df)
    scan, fused = latencies(df, SCANNED, s.pass_), latencies(df, FUSED, s.pass_)
    shown_fused = [x for x in s.ratios if x in fused]
    sentence = (
        f"{lead or 'On this ' + device}: training-step time ({s.pass_}) of the sequential GRU (`{SEQUENTIAL}`) over "
        f"minGRU's parallel scan (`{SCANNED}`) on {named}: "
        + s.listed()
        + (
            f"; the fused GRU (`{FUSED}`) over minGRU: "
            + ", ".join(f"{x:g} {fused[x] / scan[x]:.2f}x" for x in shown_fused)
            if shown_fused
            else ""
        )
        + f". Feng et al.'s 175x at 512 tokens is a T4 figure. {s.said()}"
    )
    on = f" on {named}" if lead else ""
    slower = f"minGRU's scan is slower than the sequential GRU at {s.long:g} tokens on {named}."
    return shared.Judged(s.verdict, sentence, s.estimates(on), s.cause(slower), shared.p_of(s.verdict))
