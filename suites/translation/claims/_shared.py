"""What translation's claims read: the finished records, each variant's spec in the report's order, the length
buckets and the variants that did not learn; and the published finding the report states with the first claim.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from harness.paired import Difference, paired
from suites.translation.tables import BLEU, _order, flag_unlearned, length_labels, per_seed, specs_of

#: the bounds of one arm of a length interaction: a difference of two BLEUs
GAP = (-100.0, 100.0)

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


@dataclass(frozen=True)
class LengthEffect:
    """The effect of one model over another (a - b, BLEU) on the shortest and the longest source-length bucket, and
    the length interaction the length claims are judged on: per seed, (a - b) on the longest bucket minus (a - b)
    on the shortest, paired over seeds (positive: the effect grows with length)."""

    short: Difference
    long: Difference
    interaction: Difference
    #: the buckets' labels without their sizes ('1-10 words', '31-40 words')
    short_bucket: str
    long_bucket: str

    def told(self) -> str:
        """'+9.9 BLEU on 1-10 words, +3.2 on 31-40 words: the interaction (longest - shortest) -6.6 BLEU [-10.4,
        -2.8] over 5 seeds (its 95% interval excludes 0)'."""
        i = self.interaction
        return (
            f"{self.short.mean:+.1f} BLEU on {self.short_bucket}, {self.long.mean:+.1f} on {self.long_bucket}: the "
            f"length interaction (longest - shortest bucket) {i.mean:+.1f} BLEU "
            f"[{i.estimate.low:.1f}, {i.estimate.high:.1f}] over {i.seeds} seeds ({i.why()})"
            if i.estimate.low is not None
            else f"{self.short.mean:+.1f} BLEU on {self.short_bucket}, {self.long.mean:+.1f} on {self.long_bucket}: "
            f"the length interaction (longest - shortest bucket) {i.mean:+.1f} BLEU over {i.seeds} seed(s) ({i.why()})"
        )


def shared_buckets(ok: pd.DataFrame, labels: dict[float, str], variants: list[str]) -> list[float]:
    """The buckets of ``labels`` every one of ``variants`` has BLEU on (a bucket too short for any test sentence of
    a corpus has none), in order."""
    rows = ok[ok.metric == "bleu_by_length"]
    return [x for x in sorted(labels) if all(((rows.variant == v) & (rows.x == x)).any() for v in variants)]


def length_effect(ok: pd.DataFrame, labels: dict[float, str], a: str, b: str) -> LengthEffect:
    """``a`` - ``b`` on the shortest and the longest bucket both have BLEU on (``shared_buckets``: at least two), and
    their difference per seed."""
    buckets = shared_buckets(ok, labels, [a, b])
    short, long = buckets[0], buckets[-1]
    names = {x: labels[x].split(" (")[0] for x in (short, long)}

    def at(v, x):
        return per_seed(ok, v, "bleu_by_length", x)

    a_short, a_long, b_short, b_long = at(a, short), at(a, long), at(b, short), at(b, long)
    seeds = sorted(set(a_short) & set(a_long) & set(b_short) & set(b_long))
    gain_short = paired(f"BLEU on {names[short]}, {a} - {b}", a_short, b_short, "BLEU", bounds=BLEU)
    gain_long = paired(f"BLEU on {names[long]}, {a} - {b}", a_long, b_long, "BLEU", bounds=BLEU)
    interaction = paired(
        f"{a} - {b}, BLEU on {names[long]} minus on {names[short]}",
        {s: a_long[s] - a_short[s] for s in seeds},
        {s: b_long[s] - b_short[s] for s in seeds},
        "BLEU",
        bounds=GAP,
    )
    return LengthEffect(gain_short, gain_long, interaction, names[short], names[long])
