"""What attention_scaling's claims read: the finished records, the scorings in report order, the d_k probed, and
which trained scorings learned; and the source's section they all test.

The kinds of estimate (harness/intervals.py): var(q.k) / d_k, a softmax entropy and a held-out loss are positive
("log"); the paired held-out loss difference is unbounded ("t").
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from harness.report_kit import in_order
from suites.attention_scaling.tables import ORDER
from suites.common.learning import LearningCheck, learning_checks

PUBLISHED = (
    "Vaswani et al. 2017 (arXiv 1706.03762, section 3.2.1): for q and k with independent unit-variance components, "
    "q.k has variance d_k; unscaled, large d_k pushes the softmax toward one-hot weights with extremely small gradients, "
    "which 1/sqrt(d_k) prevents; additive attention outperforms unscaled dot-product attention at large d_k."
)


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the records of finished jobs
    ok: pd.DataFrame
    #: the scorings, in the report's order
    variants: list[str]
    #: the d_k of the initialisation probe, ascending
    d_ks: list[float]
    #: scoring -> whether its trained model learned and did not memorise
    checks: dict[str, LearningCheck]


def prepare(df: pd.DataFrame) -> Evidence:
    ok = df[df.status == "ok"]
    return Evidence(
        ok,
        in_order(df.variant.unique(), ORDER),
        sorted(ok[ok.metric == "qk_variance"].x.dropna().unique()),
        learning_checks(df, "heldout_loss", None, "train_loss"),
    )
