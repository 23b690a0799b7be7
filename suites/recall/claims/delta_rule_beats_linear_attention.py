"""The delta rule recalls more than additive linear attention (Yang et al. 2024, DeltaNet): MQAR token accuracy at
the most pairs, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding
from suites.recall.claims._shared import Evidence, pairs_finding

CLAIM = declared(__file__)
#: the published order, as (better, worse) pairs of variants
PAIRS = (("deltanet", "linear_attention"),)


def judge(ev: Evidence) -> Finding:
    return pairs_finding(CLAIM, ev, PAIRS)
