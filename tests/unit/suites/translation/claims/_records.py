"""Made-up translation records for its claims' tests."""

import pandas as pd

from suites.translation.claims._shared import Evidence

#: two buckets of source length, as the claims' tests label them
LABELS = {10.0: "1-10 words (n=50)", 30.0: "11-30 words (n=50)"}
#: LSTMs without attention that read the source forward, reversed and both ways, and Bahdanau et al.'s RNNsearch
REVERSAL_SPECS = {
    "lstm": {"family": "rnn_seq2seq", "scoring": "none", "cell": "lstm"},
    "lstm+reversed": {"family": "rnn_seq2seq", "scoring": "none", "cell": "lstm", "reverse_source": True},
    "lstm+bidirectional": {"family": "rnn_seq2seq", "scoring": "none", "cell": "lstm", "bidirectional": True},
    "lstm+bahdanau+additive": {"family": "rnn_seq2seq", "scoring": "additive", "decoder": "bahdanau", "cell": "lstm"},
}


def evidence(ok, specs, labels, variants=None, flagged=None) -> Evidence:
    """The claims' evidence from records ``ok`` (``variants``: by default every variant of ``specs``)."""
    return Evidence(ok, dict(specs), list(specs if variants is None else variants), dict(labels), dict(flagged or {}))


def by_bucket(per_seed):
    """BLEU by length: variant -> [(short bucket BLEU, long bucket BLEU) per seed]."""
    return pd.DataFrame(
        [
            {"variant": v, "metric": "bleu_by_length", "x": x, "value": bleu, "seed": seed, "status": "ok"}
            for v, seeds in per_seed.items()
            for seed, pair in enumerate(seeds)
            for x, bleu in zip((10.0, 30.0), pair)
        ]
    )


def with_test_bleu(per_seed):
    """``by_bucket`` records with each job's test BLEU (the mean of its two buckets)."""
    ok = by_bucket(per_seed)
    overall = ok.groupby(["variant", "seed"], as_index=False).value.mean().assign(metric="bleu", status="ok", x=0.0)
    return pd.concat([ok, overall], ignore_index=True)
