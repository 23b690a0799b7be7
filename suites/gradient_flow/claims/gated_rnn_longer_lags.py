"""Gated RNNs (LSTM, GRU) bridge longer lags than tanh RNNs (Hochreiter & Schmidhuber 1997; Pascanu et al. 2013):
the longest contiguous lag learned per seed, each gated cell against the tanh RNN, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, not_run
from harness.paired import all_hold
from suites.gradient_flow.claims._shared import Evidence, lags_finding, longer_lags, per_seed, says

CLAIM = declared(__file__)
#: the gated cells compared with the tanh RNN, each on its own
GATED = ("lstm", "gru")


def judge(ev: Evidence) -> Finding:
    """Each gated RNN (LSTM, GRU) learns a longer contiguous run of lags than the tanh RNN, paired over seeds."""
    longest = ev.longest
    if not longest:
        return not_run(CLAIM)
    parts = per_seed(longest)
    gated = [v for v in GATED if v in longest]
    if "rnn" not in longest or not gated:
        return not_run(
            CLAIM, f"Longest lag learned per seed: {parts}. This run lacks a tanh RNN or a gated RNN to compare."
        )
    diffs, verdicts, causes = longer_lags(longest, {g: "rnn" for g in gated}, ev.sweep_max)
    # every gated cell must beat the tanh RNN: one reversed cell refutes the claim
    verdict = all_hold(list(verdicts.values()))
    said = "; ".join(
        f"{g} - rnn {d.mean:+.0f} steps over {d.seeds} seed(s), {verdicts[g]} ({d.why()})" for g, d in diffs.items()
    )
    text = (
        f"Longest lag learned (every shorter lag learned too) per seed: {parts}. Paired: {said}. This run "
        f"{says(verdict)} gated RNNs bridging longer lags than the tanh RNN."
    )
    return lags_finding(CLAIM, verdict, text, diffs, verdicts, longest, ("rnn", *gated), causes)
