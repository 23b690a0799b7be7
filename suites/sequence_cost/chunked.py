"""A chunked recurrence against the same recurrence token by token in training: the chunkwise-parallel speed-up.

Yang et al. 2023 (GLA, arXiv 2312.06635, section 3.3 and Figure 4) and Yang et al. 2024 (DeltaNet, arXiv 2406.06484,
section 3.3) train a linear recurrence chunk by chunk: matrix products inside each chunk, the state passed between
chunks, so a training step's sequential depth is T / C chunks instead of T tokens, and its work runs as matrix
multiplies. The claim: the chunked form trains faster than the recurrent form, more so as sequences grow. On a GPU it
is judged like minGRU's scan (suites/sequence_cost/scan.py): the recurrent form's fwd+bwd latency over the chunked
form's, above the timing margin at the longest length both were timed and larger there than at the shortest.

The growth half rests on depth: T / C sequential chunks against T tokens pays only where a device has parallel lanes
to spare for a chunk's matrix products. On a CPU of a few cores both forms are bound by their work, which grows as T
for both, so the ratio has no reason to grow with T whatever the run shows: there the claim is not testable (the
claim's precondition), with the measured speed-up shown; a chunked form slower than the loop still disagrees.
"""

from __future__ import annotations

from harness.findings import Estimate, Finding, finding, not_run, unmet
from harness.suite_file import SuiteFile
from suites.sequence_cost.scan import NOISE, speedup, speedup_verdict

(CHUNKED_CLAIM,) = SuiteFile.of(__file__).claims("chunked_form_speedup")
#: the recurrence whose two forms are compared: the chunked training form and the same layer token by token
CHUNKED, RECURRENT = "gated_deltanet", "gated_deltanet+loop"


def chunked_finding(df) -> Finding:
    """Agrees (on a GPU) when the recurrent form's latency over the chunked form's exceeds NOISE at the longest common
    length and is larger there than at the shortest; disagrees when the chunked form is slower beyond NOISE there; on
    a CPU otherwise not testable here (see the module docstring)."""
    pass_, ratios = speedup(df, RECURRENT, CHUNKED)
    if not ratios:
        return not_run(CHUNKED_CLAIM, f"These records lack `{CHUNKED}` and `{RECURRENT}` timed at a common length.")
    short, long = min(ratios), max(ratios)
    verdict = speedup_verdict(ratios)
    device = str(df.iloc[0].device).split(":")[0]
    text = (
        f"Training-step time ({pass_}) of Gated DeltaNet token by token (`{RECURRENT}`) over its chunked form "
        f"(`{CHUNKED}`) on this {device}: "
        + ", ".join(f"{x:g} tokens {r:.2f}x" for x, r in ratios.items())
        + f". This run {verdict} (faster beyond {NOISE:g}x at {long:g} tokens and by more than at {short:g})."
    )
    cause = {
        "agrees": "",
        "disagrees": f"the chunked form is slower than the recurrent form at {long:g} tokens on this {device}.",
        "inconclusive": f"the ratio at {long:g} tokens is within {NOISE:g}x of 1 or does not grow with length.",
    }[verdict]
    estimates = [Estimate(f"{RECURRENT} / {CHUNKED} latency at {x:g} tokens", r, unit="x") for x, r in ratios.items()]
    if device == "cpu" and verdict != "disagrees":
        measured = (
            f"this is a {device}, where both forms are bound by their work (O(T) for each); measured "
            + ", ".join(f"{r:.2f}x at {x:g} tokens" for x, r in ratios.items())
            + f" ({'faster beyond' if ratios[long] > NOISE else 'within'} the {NOISE:g}x timing margin at "
            f"{long:g} tokens)"
        )
        return unmet(
            CHUNKED_CLAIM,
            measured,
            f"`bench run suite=sequence_cost profile=large device=cuda "
            f"variants=[{CHUNKED},{RECURRENT}]` on a GPU, lengths to 4096 tokens",
            estimates[::-1],
            headline=0,
            boundary=NOISE,
        )
    return finding(
        CHUNKED_CLAIM, verdict, text, estimates[::-1], cause=cause, over_seeds=False, headline=0, boundary=NOISE
    )


def speedup_section(df) -> list[str]:
    """'## Chunked form against the loop': for every recurrence timed in both forms (``v`` and ``v+loop``), the loop's
    latency over the chunked form's at each length both were timed (the claim above is judged on Gated DeltaNet)."""
    import pandas as pd

    from harness.report import markdown_table

    loops = sorted(v[: -len("+loop")] for v in df.variant.unique() if v.endswith("+loop"))
    rows, pass_ = [], "fwd"
    for chunked in loops:
        pass_, ratios = speedup(df, f"{chunked}+loop", chunked)
        if ratios:
            rows.append({"recurrence": f"`{chunked}`", **{f"{x:g} tokens": f"{r:.2f}x" for x, r in ratios.items()}})
    if not rows:
        return []
    table = pd.DataFrame(rows).fillna("-")
    return [
        "## Each recurrence's training form against its token-by-token loop",
        "",
        f"Training-step time ({pass_}) of each recurrence token by token (`+loop`) over its default form (chunked for "
        "the linear recurrences, a parallel scan for minGRU, the fused library kernel for LSTM and GRU), mean over "
        "seeds of the median latency; above 1 the default form is faster. Timings marked contended in the tables "
        "above apply here too.",
        "",
        markdown_table(table.iloc[:, :8]),
        "",
    ]
