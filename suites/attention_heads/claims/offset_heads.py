"""Some heads specialise in a fixed offset, the previous token (Clark et al. 2019, section 3.1): stated per
position encoding, a family has such heads when every seed's model has one."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding
from suites.attention_heads.claims._shared import HAVE, LACK, SOME, Evidence, specialist_finding

CLAIM = declared(__file__)
#: the verdict of each outcome of the per-family count (the rule suite.yaml declares as untested: a count above a
#: bar, at least one such head in every seed's model; what makes a head one: tables.SPECIALIST and MIN_OFFSET)
VERDICT = {HAVE: "agrees", LACK: "disagrees", SOME: "inconclusive"}


def judge(ev: Evidence) -> Finding:
    """Agrees when some family's every seed has a head with at least half its attention on one offset d >= 1;
    disagrees when no model of any family has one; inconclusive in between."""
    return specialist_finding(CLAIM, ev, VERDICT, "offset", "max_offset_share", "fixed-offset")
