"""Gated DeltaNet recalls more in context than Mamba-2 and DeltaNet (Yang, Kautz & Hatamizadeh 2025): MQAR token
accuracy at the most pairs, paired over seeds; both pairs must hold."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding
from suites.recall.claims._shared import Evidence, pairs_finding

CLAIM = declared(__file__)
#: the published order, as (better, worse) pairs of variants: Gated DeltaNet above each of the two it combines
PAIRS = (("gated_deltanet", "mamba2"), ("gated_deltanet", "deltanet"))


def judge(ev: Evidence) -> Finding:
    return pairs_finding(CLAIM, ev, PAIRS)
