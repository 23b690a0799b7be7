"""Some heads specialise in delimiters (Clark et al. 2019, section 3.2): stated per position encoding, a family has
such heads when its count exceeds that of the same heads with the key positions shuffled, paired over seeds; the
claim agrees when some family has them, the families held together (``_shared``)."""

from __future__ import annotations

from harness.claims import declared
from harness.findings import Finding
from suites.attention_heads.claims._shared import Evidence, specialist_finding

CLAIM = declared(__file__)


def judge(ev: Evidence) -> Finding:
    """Agrees when some family's count of heads whose delimiter share is at least half and twice what even attention
    would put there exceeds the shuffled-position null's (Holm over the families); disagrees when every family's
    strongest delimiter head stays below that bar; inconclusive in between."""
    return specialist_finding(CLAIM, ev, "delimiter", "max_delimiter_share", "delimiter")
