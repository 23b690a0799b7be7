"""What retrieval_length's claims share: how a comparison reads in a sentence, a mean over seeds, and the command
that runs what a claim needs. Every judge reads the group's records themselves (records.py reads them).

Every comparison pairs the accuracies of one training seed's models on the same scored sequences
(harness/paired.py, bounded in [0, 1]); one seed gives no verdict (no calibrated margin yet).
"""

from __future__ import annotations

import math

from harness.paired import Difference


def run(variants: str) -> str:
    """The command that runs ``variants`` at the standard profile."""
    return f"bench run suite=retrieval_length profile=standard variants=[{variants}]"


def said(diff: Difference) -> str:
    """'+0.62 [+0.51, +0.73] over 3 seed(s), its 95% interval excludes 0' for a sentence."""
    e = diff.estimate
    interval = "" if e.low is None or diff.seeds < 2 else f" [{e.low:+.2f}, {e.high:+.2f}]"
    return f"{e.value:+.2f}{interval} over {diff.seeds} seed(s), {diff.why()}"


def mean(values: dict[int, float]) -> float:
    """The mean over seeds (NaN without one)."""
    return sum(values.values()) / len(values) if values else math.nan


def sentence_of(causes: list[str]) -> str:
    """One cause sentence from its parts ('' without one)."""
    cause = "; ".join(causes)
    return cause[:1].upper() + cause[1:] + "." if cause else ""
