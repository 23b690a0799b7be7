"""A chunked linear recurrence trains faster than its token-by-token form, more so as sequences grow (Yang et al.
2023, 2024): Gated DeltaNet's recurrent form's fwd+bwd latency over its chunked form's, tested on the timing repeats
like minGRU's scan (parallel_scan_speedup.py), on a GPU.

Yang et al. time their Triton kernels of the chunkwise form against the recurrent form on an H100: the chunked form's
work is matrix products and its sequential depth T / C chunks against the loop's T tokens, which pays only where a
device has parallel lanes to spare for a chunk's products. On a CPU of a few cores both forms are bound by their
work, O(T) for each, so the ratio measured there says nothing of the claim's mechanism in either direction: the
claim's precondition (a GPU, claims/_shared.py, the same for the scan's claim and the utilisation claim) is not met
there, whether the chunked form is faster or slower. A CPU group is judged on the project's reference GPU records
where they hold both forms, else not testable here with the CPU's ratios shown.
"""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Finding
from suites.sequence_cost.claims import _shared as shared

CLAIM = declared(__file__)
#: the recurrence whose two forms are compared: the chunked training form and the same layer token by token
CHUNKED, RECURRENT = "gated_deltanet", "gated_deltanet+loop"
#: what would test the claim where the records are not a GPU's
WOULD_TEST = (
    f"`bench run suite=sequence_cost profile=large device=cuda variants=[{CHUNKED},{RECURRENT}]` on a GPU, lengths "
    "to 4096 tokens"
)
MISSING = f"These records lack `{CHUNKED}` and `{RECURRENT}` timed at a common length."


def judge(ev: shared.Evidence) -> Finding:
    """On a GPU: agrees when the recurrent form's latency over the chunked form's is above FASTER at the longest
    common length and grows from the shortest (each part's 95% interval over the timing repeats wholly on its side);
    disagrees when a part's interval lies wholly on the other side (the parts held at 2.5% together); else
    inconclusive. On another device judged on the reference GPU records, else not testable here (see the module
    docstring)."""
    return shared.speedup_on_a_gpu(
        CLAIM,
        ev,
        _judge,
        RECURRENT,
        CHUNKED,
        "where both forms are bound by their work (O(T) for each)",
        WOULD_TEST,
        MISSING,
    )


def _judge(df: pd.DataFrame, lead: str = "") -> shared.Judged | None:
    """The claim judged on one group of records as on a GPU (``lead``: how the sentence names them); None where they
    lack the two forms at a common length."""
    s = shared.speedup(df, RECURRENT, CHUNKED)
    if s is None:
        return None
    device, named = shared.device_of(df), shared.device_name(df)
    sentence = (
        f"{lead or 'On this ' + device}: training-step time ({s.pass_}) of Gated DeltaNet token by token "
        f"(`{RECURRENT}`) over its chunked form (`{CHUNKED}`) on {named}: {s.listed()}. {s.said()}"
    )
    on = f" on {named}" if lead else ""
    slower = f"the chunked form is slower than the recurrent form at {s.long:g} tokens on {named}."
    return shared.Judged(s.verdict, sentence, s.estimates(on), s.cause(slower), shared.p_of(s.verdict))
