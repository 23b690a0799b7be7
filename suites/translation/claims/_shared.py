"""What translation's claims read: the finished records, each variant's spec in the report's order, the length
buckets and the variants that did not learn; and the published finding the report states with the first claim.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from suites.translation.tables import _order, flag_unlearned, length_labels, specs_of

PUBLISHED = (
    "Bahdanau, Cho & Bengio 2014 (arXiv 1409.0473, WMT'14 English-French) report test BLEU 13.93 for the "
    "encoder-decoder without attention (RNNencdec-30) against 21.50 with attention (RNNsearch-30), and 17.82 "
    "against 26.75 for the models trained on sentences of up to 50 words; in their Figure 2 the models without "
    "attention lose BLEU steeply once sources pass about 20 words, while RNNsearch-50 stays flat to 50 words and more."
)


@dataclass(frozen=True)
class Evidence:
    """One group of records as the claims read it."""

    #: the records of finished jobs
    ok: pd.DataFrame
    #: variant -> its stored spec
    specs: dict[str, dict]
    #: the variants, in the report's order (RNNs without attention, RNNs with it, Transformers)
    variants: list[str]
    #: each source-length bucket's x -> its label ('31-40 words (n=258)'); empty without BLEU by length
    labels: dict[float, str]
    #: variant -> why it did not learn (BLEU not clearly above the better baseline)
    flagged: dict[str, str] = field(default_factory=dict)


def prepare(df: pd.DataFrame) -> Evidence:
    ok = df[df.status == "ok"]
    specs = specs_of(df)
    variants = _order(list(specs), specs)
    return Evidence(ok, specs, variants, length_labels(df), flag_unlearned(ok, variants))
