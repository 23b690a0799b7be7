"""translation's verdict on Bahdanau et al.'s bottleneck is paired over seeds: a lead inside the seed noise is
inconclusive, and every verdict but agrees states its cause."""

import pandas as pd

from suites.translation import encoder_verdict
from suites.translation import verdicts as translation

SPECS = {
    "rnn": {"family": "rnn_seq2seq", "scoring": "none", "cell": "rnn"},
    "lstm+bahdanau+additive": {"family": "rnn_seq2seq", "scoring": "additive", "decoder": "bahdanau", "cell": "lstm"},
}
LABELS = {10.0: "1-10 words (n=50)", 30.0: "11-30 words (n=50)"}
VARIANTS = ["rnn", "lstm+bahdanau+additive"]


def _frame(per_seed):
    """variant -> [(short bucket BLEU, long bucket BLEU) per seed]."""
    return pd.DataFrame(
        [
            {"variant": v, "metric": "bleu_by_length", "x": x, "value": bleu, "seed": seed, "status": "ok"}
            for v, seeds in per_seed.items()
            for seed, pair in enumerate(seeds)
            for x, bleu in zip((10.0, 30.0), pair)
        ]
    )


def test_a_lead_inside_the_seed_noise_is_inconclusive_with_its_cause():
    # the means favour attention (9.3 against 7.7 on long sources) but seed 1 reverses the order
    ok = _frame({"rnn": [(20, 6), (20, 12), (20, 5)], "lstm+bahdanau+additive": [(11, 10), (11, 9), (11, 9)]})
    found = translation._verdict(ok, VARIANTS, SPECS, LABELS)
    assert found.verdict == "inconclusive" and "does not count" in found.cause


def test_a_consistent_lead_agrees_and_the_paired_gap_is_an_estimate():
    ok = _frame({"rnn": [(20, 6), (21, 7), (19, 5)], "lstm+bahdanau+additive": [(22, 21), (23, 22), (21, 20)]})
    found = translation._verdict(ok, VARIANTS, SPECS, LABELS)
    assert found.verdict == "agrees" and not found.cause
    gap = found.estimates[-1]
    assert gap.label.endswith("attention - no attention") and gap.value == 15.0


def test_a_disagreement_says_which_part_of_the_finding_failed():
    ok = _frame({"rnn": [(20, 19), (21, 20), (19, 18)], "lstm+bahdanau+additive": [(22, 21), (23, 22), (21, 20)]})
    found = translation._verdict(ok, VARIANTS, SPECS, LABELS)
    assert found.verdict == "disagrees" and "keeps its BLEU on long sources" in found.cause


REVERSAL_SPECS = {
    "lstm": {"family": "rnn_seq2seq", "scoring": "none", "cell": "lstm"},
    "lstm+reversed": {"family": "rnn_seq2seq", "scoring": "none", "cell": "lstm", "reverse_source": True},
    "lstm+bidirectional": {"family": "rnn_seq2seq", "scoring": "none", "cell": "lstm", "bidirectional": True},
    "lstm+bahdanau+additive": {"family": "rnn_seq2seq", "scoring": "additive", "decoder": "bahdanau", "cell": "lstm"},
}


def _with_test_bleu(per_seed):
    ok = _frame(per_seed)
    overall = ok.groupby(["variant", "seed"], as_index=False).value.mean().assign(metric="bleu", status="ok", x=0.0)
    return pd.concat([ok, overall], ignore_index=True)


def test_a_reversed_source_that_leads_on_long_sentences_agrees():
    ok = _with_test_bleu(
        {
            "lstm": [(20, 6), (21, 7), (19, 5)],
            "lstm+reversed": [(25, 12), (24, 14), (26, 11)],
            "lstm+bidirectional": [(22, 8), (22, 9), (21, 8)],
            "lstm+bahdanau+additive": [(30, 29), (31, 30), (29, 28)],
        }
    )
    found = encoder_verdict.reversal_finding(ok, REVERSAL_SPECS, LABELS, {})
    assert found.verdict == "agrees" and abs(found.estimates[0].value - 19 / 3) < 1e-9
    section = "\n".join(encoder_verdict.encoder_table(ok, REVERSAL_SPECS, LABELS))
    assert "| lstm+reversed " in section and "28%" in section  # (12.33 - 6) / (29 - 6)


def test_a_reversed_source_inside_the_seed_noise_is_inconclusive_and_one_that_trails_disagrees():
    noisy = _with_test_bleu({"lstm": [(20, 6), (21, 12), (19, 5)], "lstm+reversed": [(20, 9), (21, 7), (19, 8)]})
    assert encoder_verdict.reversal_finding(noisy, REVERSAL_SPECS, LABELS, {}).verdict == "inconclusive"
    worse = _with_test_bleu({"lstm": [(20, 9), (21, 10), (19, 8)], "lstm+reversed": [(20, 6), (21, 7), (19, 5)]})
    found = encoder_verdict.reversal_finding(worse, REVERSAL_SPECS, LABELS, {})
    assert found.verdict == "disagrees" and "forward source" in found.cause


def test_without_both_source_orders_the_reversal_claim_is_not_run_and_bahdanau_ignores_reordered_encoders():
    ok = _with_test_bleu(
        {"lstm+reversed": [(20, 19), (21, 20), (19, 18)], "lstm+bahdanau+additive": [(22, 21), (23, 22), (21, 20)]}
    )
    assert encoder_verdict.reversal_finding(ok, REVERSAL_SPECS, LABELS, {}).verdict == "not run"
    # a reversed encoder without attention is not Bahdanau et al.'s RNNencdec, so it is no "model without attention"
    found = translation._verdict(ok, ["lstm+reversed", "lstm+bahdanau+additive"], REVERSAL_SPECS, LABELS)
    assert found.verdict == "not run"
