"""Identity (IRNN, Le, Jaitly & Hinton 2015) or orthogonal (Saxe et al. 2014) recurrent initialisation lets an Elman
RNN bridge longer lags: each against the same cell at PyTorch's default, paired over seeds, a conjunction."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding, not_run
from harness.paired import all_hold, paired
from harness.report_kit import in_order
from suites.gradient_flow.claims._shared import Evidence, lag_bounds, lags_finding, longer_lags, per_seed, says
from suites.gradient_flow.tables import ORDER

CLAIM = declared(__file__)
#: each Elman RNN with an initialisation of its own -> the same cell at PyTorch's default, the arm it is paired with
INITIALISED = {"irnn": "rnn_relu", "rnn_orthogonal": "rnn"}


def judge(ev: Evidence) -> Finding:
    """Each Elman RNN started at the identity (IRNN) or an orthogonal matrix learns a longer contiguous run of lags
    than the same cell at PyTorch's default, paired over seeds (a conjunction); the LSTM is stated beside it."""
    longest, sweep_max = ev.longest, ev.sweep_max
    arms = {a: b for a, b in INITIALISED.items() if a in longest and b in longest}
    if not arms:
        shown = f"Longest lag learned per seed: {per_seed(longest)}. " if longest else ""
        return not_run(
            CLAIM,
            f"{shown}This run lacks a pair to compare: irnn with rnn_relu, or rnn_orthogonal with rnn (the same cell "
            "at PyTorch's default initialisation).",
        )
    diffs, verdicts, causes = longer_lags(longest, arms, sweep_max)
    # each initialisation must beat its default-initialised cell: one reversed arm refutes the claim
    verdict = all_hold(list(verdicts.values()))
    said = "; ".join(
        f"{a} - {arms[a]} {d.mean:+.0f} steps over {d.seeds} seed(s), {verdicts[a]} ({d.why()})"
        for a, d in diffs.items()
    )
    shown = in_order({*arms, *arms.values(), *(v for v in ("lstm",) if v in longest)}, ORDER)
    missing = [a for a in INITIALISED if a not in arms]
    text = (
        f"Longest lag learned (every shorter lag learned too) per seed: {per_seed({v: longest[v] for v in shown})}. "
        f"Paired: {said}."
    )
    if missing:
        text += (
            f" {' and '.join(f'{a} or {INITIALISED[a]}' for a in missing)} did not run: the verdict rests on "
            f"{' and '.join(arms)} alone."
        )
    if "lstm" in longest:
        against = {
            a: paired(
                f"longest lag learned, {a} - lstm", longest[a], longest["lstm"], "steps", bounds=lag_bounds(sweep_max)
            )
            for a in arms
        }
        text += (
            " Against the LSTM (not judged): "
            + "; ".join(f"{a} - lstm {d.mean:+.0f} steps ({d.why()})" for a, d in against.items())
            + "."
        )
    text += f" This run {says(verdict)} identity and orthogonal initialisation letting an Elman RNN bridge longer lags."
    return lags_finding(CLAIM, verdict, text, diffs, verdicts, longest, shown, causes)
