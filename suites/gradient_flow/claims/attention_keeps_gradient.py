"""A check: attention's direct paths keep gradient over distances where a tanh RNN's vanishes (Vaswani et al. 2017,
Table 1): log10 gradient ratios at initialisation, the Transformer against the tanh RNN, paired over seeds."""

from __future__ import annotations

import math

from harness.claims import declared
from harness.findings import Finding, finding, not_run
from harness.paired import directional, paired
from harness.report_kit import in_order
from suites.gradient_flow.claims._shared import Evidence, log_ratios, says
from suites.gradient_flow.tables import ORDER

CLAIM = declared(__file__)
#: the distance from the loss's step at which the two are compared (this project's choice, suite.yaml's protocol:
#: beyond the tanh RNN's ~10-20 step reach; a shorter probe is compared at its longest distance)
DISTANCE = 20


def judge(ev: Evidence) -> Finding:
    """Attention's direct paths keep gradient over distances where a tanh RNN's vanishes (at initialisation)."""
    flow = ev.flow
    if not len(flow):
        return not_run(CLAIM)
    d = int(min(DISTANCE, flow.x.max()))
    cell = flow[(flow.phase == "init") & (flow.x == d)]
    if not len(cell):
        return not_run(CLAIM)
    logs = {v: log_ratios(cell[cell.variant == v]) for v in in_order(cell.variant.unique(), ORDER)}
    parts = ", ".join(f"{v} {_mean(x):+.1f}" for v, x in logs.items())
    if "rnn" not in logs or "transformer" not in logs:
        return not_run(CLAIM, f"At initialisation log10 of the gradient ratio at distance {d} is {parts}.")
    diff = paired(
        f"log10 gradient ratio at distance {d}, transformer - rnn", logs["transformer"], logs["rnn"], "decades"
    )
    verdict = directional(diff, +1)
    text = (
        f"At initialisation log10 of the gradient ratio at distance {d} is {parts} (mean over seeds); the "
        f"Transformer keeps {diff.mean:+.1f} decades more than the tanh RNN, paired over {diff.seeds} seed(s) "
        f"({diff.why()}): this run {says(verdict)} attention's direct paths keeping the gradient."
    )
    cause = (
        ""
        if verdict == "agrees"
        else (
            f"The Transformer's gradient at distance {d} is not above the tanh RNN's on the paired test ({diff.why()})."
            if verdict == "inconclusive"
            else f"The tanh RNN keeps more gradient at distance {d} than the Transformer."
        )
    )
    return finding(CLAIM, verdict, text, [diff.estimate], cause=cause, headline=0, boundary=0.0)


def _mean(values: dict[int, float]) -> float:
    vals = list(values.values())
    return sum(vals) / len(vals) if vals else math.nan
