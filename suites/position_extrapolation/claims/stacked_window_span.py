"""A check: stacked sliding windows of W keys reach layers x (W - 1) positions back (Jiang et al. 2023, Mistral 7B),
measured by the gradient of the last position's logits on every trained window model."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from suites.position_extrapolation.claims._shared import Evidence
from suites.position_extrapolation.window_span import METRIC

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """Agrees when every window model's measured span equals layers x (W - 1) on every seed (a check: true by
    construction of the window mask)."""
    df = ev.records
    rows = df[(df.metric == METRIC) & (df.status == "ok")] if "metric" in df else df
    if not len(rows):
        return not_run(CLAIM, "This run has no sliding-window variant (`rope+window16`, ...) to measure.")
    parts, equal, estimates = [], True, []
    for variant, part in rows.groupby("variant", sort=False):
        extra = part.extra.iloc[0]
        spans = sorted({int(v) for v in part.value})
        same = spans == [int(extra["expected"])]
        equal &= same
        parts.append(
            f"`{variant}` (W = {extra['window']}, {extra['layers']} layers): measured {', '.join(map(str, spans))} "
            f"positions back over {part.seed.nunique()} seed(s), layers x (W - 1) = {extra['expected']}"
        )
        estimates.append(
            Estimate(f"{variant} span / (layers x (W - 1))", spans[-1] / int(extra["expected"]), unit="x", seeds=0)
        )
    verdict = "agrees" if equal else "disagrees"
    text = (
        "Mistral 7B: stacked windows reach layers x W tokens back. Here the farthest input position whose "
        "gradient reaches the last position's logits: " + "; ".join(parts) + "."
    )
    cause = (
        "" if equal else "a measured span differs from layers x (W - 1): the window mask does not cut where it should."
    )
    return finding(CLAIM, verdict, text, estimates, cause=cause, over_seeds=False)
