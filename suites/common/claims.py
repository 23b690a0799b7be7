"""A claim made of several parts that must all hold (GQA keeps quality *and* MQA loses; Post-LN's gradients grow
*and* Pre-LN's are flatter): its verdict from the parts' verdicts.

harness/paired.py's ``combine_verdicts`` folds comparisons of one statement made in several settings (a
disagreement outvoted by an agreement is inconclusive); a conjunction is false as soon as one part is.
"""

from __future__ import annotations

from typing import Sequence


def all_hold(verdicts: Sequence[str]) -> str:
    """agrees when every part agrees, disagrees when any part disagrees, otherwise inconclusive ('not run': none)."""
    verdicts = [v for v in verdicts if v != "not run"]
    if not verdicts:
        return "not run"
    if "disagrees" in verdicts:
        return "disagrees"
    return "agrees" if all(v == "agrees" for v in verdicts) else "inconclusive"
