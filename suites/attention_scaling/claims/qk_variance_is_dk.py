"""A check: q.k of unit-variance vectors has variance d_k (Vaswani et al. 2017, footnote 4) within TOLERANCE."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Estimate, Finding, finding, not_run
from harness.report_kit import mean_ci
from suites.attention_scaling.claims._shared import Evidence
from suites.attention_scaling.tables import _per_seed

CLAIM = declared(__file__)
#: the probe's variance may depart from d_k by this relative error (this project's choice: its sampling error over
#: n_queries x n_keys pairs is a few %)
TOLERANCE = 0.1


def judge(ev: Evidence) -> Finding:
    """Agrees when var(q.k) is within TOLERANCE of d_k at every d_k probed (a check: true by construction)."""
    ok, d_ks = ev.ok, ev.d_ks
    if not d_ks:
        return not_run(CLAIM)
    var = {d: mean_ci(ok[(ok.metric == "qk_variance") & (ok.x == d)].value)[0] for d in d_ks}
    agrees = all(abs(var[d] / d - 1) <= TOLERANCE for d in d_ks)
    hi = d_ks[-1]
    estimate = Estimate.of(
        f"var(q.k) / d_k at d_k {int(hi)}", [v / hi for v in _per_seed(ok, None, "qk_variance", hi)], kind="log"
    )
    text = (
        "var(q.k) against d_k: "
        + ", ".join(f"{var[d]:.1f} at {int(d)}" for d in d_ks)
        + "; this run "
        + ("agrees with the theory (within 10% of d_k)." if agrees else "departs from d_k by more than 10%.")
    )
    worst = max(d_ks, key=lambda d: abs(var[d] / d - 1))
    return finding(
        CLAIM,
        "agrees" if agrees else "disagrees",
        text,
        [estimate],
        cause="" if agrees else f"var(q.k) is {var[worst]:.1f} at d_k {int(worst)}, over 10% from d_k.",
    )
