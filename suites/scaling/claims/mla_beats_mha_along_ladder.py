"""MLA is stronger than MHA at every rung (DeepSeek-V2, appendix D.2): held-out loss, paired over seeds, the largest
rung deciding."""

from __future__ import annotations

import pandas as pd

from harness.claims import declared
from harness.findings import Finding
from harness.paired import directional
from suites.scaling.claims._shared import along_ladder

CLAIM = declared(__file__)


def judge(df: pd.DataFrame) -> Finding:
    """Directional at each rung (MLA's loss lower); the verdict at the largest rung both arms reached."""
    return along_ladder(
        df,
        CLAIM,
        "mla",
        lambda d: directional(d, -1),
        0.0,
        {
            "agrees": "MLA's loss is lower: this run agrees.",
            "disagrees": "MLA's loss is higher: this run disagrees.",
            "inconclusive": "the difference does not count over these seeds: inconclusive.",
        },
    )
