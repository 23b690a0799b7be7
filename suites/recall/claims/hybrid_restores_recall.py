"""A few attention blocks restore recall to a recurrent stack (Waleffe et al. 2024): the Mamba-2 hybrid against pure
Mamba-2 on MQAR at the most pairs, paired over seeds."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding
from suites.recall.claims._shared import Evidence, pairs_finding

CLAIM = declared(__file__)
#: the published order, as (better, worse) pairs of variants: the hybrid above its pure recurrent stack
PAIRS = (("mamba2+hybrid2", "mamba2"),)


def judge(ev: Evidence) -> Finding:
    return pairs_finding(CLAIM, ev, PAIRS)
