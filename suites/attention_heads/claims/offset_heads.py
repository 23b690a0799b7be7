"""Some heads specialise in a fixed offset, the previous token (Clark et al. 2019, section 3.1): stated per position
encoding, a family has such heads when its count exceeds that of the same heads with the key positions shuffled,
paired over seeds; the claim agrees when some family has them, the families held together (``_shared``)."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding
from suites.attention_heads.claims._shared import Evidence, specialist_finding

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """Agrees when some family's count of heads with at least half their attention on one offset d >= 1 exceeds the
    shuffled-position null's (Holm over the families); disagrees when every family's strongest such head stays below
    half; inconclusive in between; not testable where too few queries were scored for the null to stay below half."""
    return specialist_finding(CLAIM, ev, "offset", "max_offset_share", "fixed-offset")
