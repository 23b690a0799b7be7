"""GQA keeps MHA's quality at every rung (Ainslie et al. 2023): held-out loss within the language-modelling margin,
paired over seeds, the largest rung deciding."""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Finding
from harness.paired import equivalent
from suites.common.char_margin import TOLERANCE_NATS, derivation
from suites.scaling.claims._shared import along_ladder

CLAIM = declared(__file__)


def judge(df: pd.DataFrame) -> Finding:
    """Equivalence within TOLERANCE_NATS (the source's units, suites/common/char_margin.py) at each rung; the
    verdict at the largest rung both arms reached."""
    return along_ladder(
        df,
        CLAIM,
        "gqa2",
        lambda d: equivalent(d, TOLERANCE_NATS),
        TOLERANCE_NATS,
        {
            "agrees": f"the whole interval lies within {derivation()}: this run agrees.",
            "disagrees": f"the whole interval lies beyond {derivation()}: this run disagrees.",
            "inconclusive": f"the interval reaches past {derivation()}: inconclusive.",
        },
    )
