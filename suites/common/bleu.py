"""Corpus BLEU and chrF with sacrebleu (Post 2018), and the source-length buckets BLEU is split into.

BLEU is sacrebleu's corpus BLEU with its defaults: tokenizer 13a, exponential smoothing and no
effective order. A bucket is scored as one corpus of all its sentences, so its n-gram counts pool over
many segments and short sentences are not scored zero for lacking 4-grams of their own; a bucket with
too few sentences gets no score. 13a keeps intra-word hyphens (French "quatre-vingt-dix"), so chrF
(character n-grams, beta 2) is reported beside BLEU.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

BLEU_PROTOCOL = (
    "sacrebleu corpus BLEU (tokenizer 13a, exponential smoothing, no effective order) on detokenised text; "
    "per bucket, the bucket's sentences form one corpus"
)


@dataclass(frozen=True)
class Scores:
    bleu: float
    chrf: float
    bleu_signature: str
    chrf_signature: str


def corpus_scores(hypotheses: Sequence[str], references: Sequence[str]) -> Scores:
    """Corpus BLEU and chrF of hypotheses against one reference each, with sacrebleu's signatures."""
    from sacrebleu.metrics import BLEU, CHRF

    bleu, chrf = BLEU(), CHRF()
    b = bleu.corpus_score(list(hypotheses), [list(references)])
    c = chrf.corpus_score(list(hypotheses), [list(references)])
    return Scores(b.score, c.score, str(bleu.get_signature()), str(chrf.get_signature()))


def bucket_bounds(edges: Sequence[int], longest: int) -> list[tuple[int, int]]:
    """Inclusive (low, high) word counts of each bucket: 1..e1, e1+1..e2, ..., last edge + 1..longest."""
    bounds, low = [], 1
    for edge in edges:
        bounds.append((low, edge))
        low = edge + 1
    if longest >= low:
        bounds.append((low, longest))
    return bounds


def bucket_label(low: int, high: int, edges: Sequence[int]) -> str:
    return f"{low}-{high}"


def sample_indices(lengths: Sequence[int], edges: Sequence[int]) -> list[int]:
    """Test sentences to show: the first of the shortest, a middle and the longest bucket."""
    bounds = bucket_bounds(edges, max(lengths))
    picks = []
    for low, high in (bounds[0], bounds[len(bounds) // 2], bounds[-1]):
        found = next((i for i, n in enumerate(lengths) if low <= n <= high and i not in picks), None)
        if found is not None:
            picks.append(found)
    return picks
