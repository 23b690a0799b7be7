"""A chunked linear recurrence trains faster than its token-by-token form, more so as sequences grow (Yang et al.
2023, 2024): Gated DeltaNet's loop over its chunked form, fwd+bwd.

Yang et al. 2023 (GLA, arXiv 2312.06635, section 3.3 and Figure 4) and Yang et al. 2024 (DeltaNet, arXiv 2406.06484,
section 3.3) train a linear recurrence chunk by chunk: matrix products inside each chunk, the state passed between
chunks, so a training step's sequential depth is T / C chunks instead of T tokens, and its work runs as matrix
multiplies. On a GPU it is judged like minGRU's scan (parallel_scan_speedup.py): the recurrent form's fwd+bwd latency
over the chunked form's, above the timing margin at the longest length both were timed and larger there than at the
shortest.

The growth half rests on depth: T / C sequential chunks against T tokens pays only where a device has parallel lanes
to spare for a chunk's matrix products. On a CPU of a few cores both forms are bound by their work, which grows as T
for both, so the ratio has no reason to grow with T whatever the run shows: there the claim is not testable (the
claim's precondition), with the measured speed-up shown; a chunked form slower than the loop still disagrees.
"""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, finding, not_run, unmet
from suites.sequence_cost.claims import _shared as shared
from suites.sequence_cost.speedups import speedup

CLAIM = declared(__file__)
#: the recurrence whose two forms are compared: the chunked training form and the same layer token by token
CHUNKED, RECURRENT = "gated_deltanet", "gated_deltanet+loop"
#: the verdict each reading of the ratios gives (claims/_shared.py ``speedup_reading``, against NOISE)
VERDICTS = {"faster and growing": "agrees", "slower": "disagrees", "neither": "inconclusive"}


def judge(ev: shared.Evidence) -> Finding:
    """Agrees (on a GPU) when the recurrent form's latency over the chunked form's exceeds NOISE at the longest common
    length and is larger there than at the shortest; disagrees when the chunked form is slower beyond NOISE there; on
    a CPU otherwise not testable here (see the module docstring)."""
    df = ev.df
    pass_, ratios = speedup(df, RECURRENT, CHUNKED)
    if not ratios:
        return not_run(CLAIM, f"These records lack `{CHUNKED}` and `{RECURRENT}` timed at a common length.")
    long = max(ratios)
    verdict = VERDICTS[shared.speedup_reading(ratios)]
    device = str(df.iloc[0].device).split(":")[0]
    listed, said = shared.ratios_text(ratios, verdict)
    text = (
        f"Training-step time ({pass_}) of Gated DeltaNet token by token (`{RECURRENT}`) over its chunked form "
        f"(`{CHUNKED}`) on this {device}: " + listed + f". {said}"
    )
    slower = f"the chunked form is slower than the recurrent form at {long:g} tokens on this {device}."
    cause = shared.ratio_cause(verdict, ratios, slower)
    estimates = shared.ratio_estimates(ratios, RECURRENT, CHUNKED)
    if device == "cpu" and verdict != "disagrees":
        measured = (
            f"this is a {device}, where both forms are bound by their work (O(T) for each); measured "
            + ", ".join(f"{r:.2f}x at {x:g} tokens" for x, r in ratios.items())
            + f" ({'faster beyond' if ratios[long] > shared.NOISE else 'within'} the {shared.NOISE:g}x timing margin at "
            f"{long:g} tokens)"
        )
        return unmet(
            CLAIM,
            measured,
            f"`bench run suite=sequence_cost profile=large device=cuda "
            f"variants=[{CHUNKED},{RECURRENT}]` on a GPU, lengths to 4096 tokens",
            estimates,
            headline=0,
            boundary=shared.NOISE,
        )
    return finding(CLAIM, verdict, text, estimates, cause=cause, over_seeds=False, headline=0, boundary=shared.NOISE)
