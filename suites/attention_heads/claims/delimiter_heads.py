"""Some heads specialise in delimiters (Clark et al. 2019, section 3.2): stated per position encoding, a family has
such heads when every seed's model has one."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding
from suites.attention_heads.claims._shared import HAVE, LACK, SOME, Evidence, specialist_finding

CLAIM = declared(__file__)
#: the verdict of each outcome of the per-family count (the rule suite.yaml declares as untested: a count above a
#: bar, at least one such head in every seed's model; what makes a head one: tables.SPECIALIST and
#: DELIMITER_FACTOR)
VERDICT = {HAVE: "agrees", LACK: "disagrees", SOME: "inconclusive"}


def judge(ev: Evidence) -> Finding:
    """Agrees when some family's every seed has a head whose delimiter share is at least half and twice what even
    attention would put there; disagrees when no model of any family has one; inconclusive in between."""
    return specialist_finding(CLAIM, ev, VERDICT, "delimiter", "max_delimiter_share", "delimiter")
