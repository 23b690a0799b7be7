"""Trivial translations a model must clearly beat: the source copied, and the most frequent training target.

A BLEU number alone does not say whether a model learned anything: copying the source scores well when
the languages share words (names, numbers, punctuation), and emitting one fixed sentence scores its
n-grams that every reference shares. Both are scored on the same test split with the same sacrebleu
settings as the models; a variant whose mean BLEU is not at least ``LEARNED_MARGIN`` above the better of
the two is flagged "did not learn", and the report's verdict leaves it out.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from suites.common.bleu import corpus_scores

#: name -> what the baseline emits for every test sentence
BASELINES = {
    "copy_source": "the source sentence, copied",
    "most_frequent_target": "the most frequent target sentence of the training split",
}
#: a variant learned when its BLEU is at least this many points above the better baseline
LEARNED_MARGIN = 5.0


def baseline_scores(train_targets: Sequence[str], test_pairs: Sequence[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """Corpus BLEU and chrF of each baseline on the test pairs (source, reference)."""
    sources, refs = [s for s, _ in test_pairs], [t for _, t in test_pairs]
    # ties go to the sentence seen first in the training split (Counter keeps insertion order)
    sentence, count = Counter(train_targets).most_common(1)[0]
    out: dict[str, dict[str, Any]] = {}
    for name, hyps in (("copy_source", sources), ("most_frequent_target", [sentence] * len(refs))):
        scores = corpus_scores(hyps, refs)
        out[name] = {"bleu": scores.bleu, "chrf": scores.chrf}
    out["most_frequent_target"].update(sentence=sentence, count=count)
    return out


def best_baseline(baselines: Mapping[str, Mapping[str, Any]]) -> tuple[str, float]:
    """(name, BLEU) of the baseline with the higher BLEU."""
    name = max(baselines, key=lambda k: baselines[k]["bleu"])
    return name, float(baselines[name]["bleu"])


def did_not_learn(bleu: float, baselines: Mapping[str, Mapping[str, Any]], margin: float = LEARNED_MARGIN) -> bool:
    """Whether a BLEU is not clearly above the better baseline (a missing or NaN BLEU did not learn)."""
    return bleu is None or math.isnan(bleu) or bleu < best_baseline(baselines)[1] + margin


def unlearned(
    bleu_means: Mapping[str, float], baselines: Mapping[str, Mapping[str, Any]], margin: float = LEARNED_MARGIN
) -> dict[str, str]:
    """The variants (of variant -> mean BLEU over seeds) that did not learn, each with its reason."""
    best = best_baseline(baselines)[1]
    return {
        v: f"BLEU {b:.1f} against the better baseline's {best:.1f}"
        for v, b in bleu_means.items()
        if did_not_learn(b, baselines, margin)
    }
