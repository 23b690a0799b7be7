"""Bahdanau et al.'s bottleneck, judged on the length interaction the claim states: attention's lead over the model
without it on the longest bucket minus on the shortest, paired over seeds, for every (attention, no attention) pair;
a main effect that does not grow with length is not the finding; models that did not learn leave the precondition
unmet; every verdict but agrees states its cause."""

import numpy as np
import pandas as pd
import pytest

from harness.paired import paired
from suites.translation.claims import attention_long_sentences as claim
from suites.translation.claims._shared import GAP, LengthEffect
from tests.unit.suites.translation.claims._records import LABELS, REVERSAL_SPECS, by_bucket, evidence, with_test_bleu

SPECS = {
    "rnn": {"family": "rnn_seq2seq", "scoring": "none", "cell": "rnn"},
    "lstm+bahdanau+additive": {"family": "rnn_seq2seq", "scoring": "additive", "decoder": "bahdanau", "cell": "lstm"},
}
VARIANTS = ["rnn", "lstm+bahdanau+additive"]


def _judge(ok, variants, specs, labels, flagged=None):
    return claim.judge(evidence(ok, specs, labels, variants, flagged))


def test_it_is_a_finding_judged_by_a_test_with_its_smallest_effect_and_precondition():
    c = claim.CLAIM
    assert c.kind == "finding" and "length interaction" in c.protocol
    assert c.smallest_effect == 2.0 and "this project's choice" in c.smallest_effect_source
    assert "learn" in c.precondition and not hasattr(claim, "HOLDS")  # the untested 80% rule is gone


def test_a_lead_that_grows_with_length_agrees_and_the_interaction_is_the_headline():
    ok = by_bucket({"rnn": [(20, 6), (21, 7), (19, 5)], "lstm+bahdanau+additive": [(22, 21), (23, 22), (21, 20)]})
    found = _judge(ok, VARIANTS, SPECS, LABELS)
    assert found.verdict == "agrees" and not found.cause
    head = found.headline
    assert "minus on" in head.label and head.value == 13.0  # lead 2 on short, 15 on long, every seed
    assert found.p is not None and found.p < 0.05


def test_a_main_effect_that_does_not_grow_with_length_disagrees():
    """Attention far ahead on every bucket, but no further ahead on long sources: no bottleneck removed (the old rule
    agreed on the long bucket's lead alone)."""
    ok = by_bucket({"rnn": [(20, 12), (21, 13), (19, 12)], "lstm+bahdanau+additive": [(99, 80), (98, 80), (99, 82)]})
    found = _judge(ok, VARIANTS, SPECS, LABELS)
    assert found.verdict == "disagrees" and "does not grow with length" in found.cause
    assert found.headline.value < 0 and found.estimates[1].value > 60  # the main effect, shown, not judged


def test_an_interaction_inside_the_seed_noise_is_inconclusive_with_its_cause():
    ok = by_bucket({"rnn": [(20, 6), (20, 12), (20, 5)], "lstm+bahdanau+additive": [(22, 10), (22, 9), (22, 9)]})
    found = _judge(ok, VARIANTS, SPECS, LABELS)
    assert found.verdict == "inconclusive" and "does not count" in found.cause


@pytest.mark.parametrize("flagged", [{"lstm+bahdanau+additive": "BLEU 1.0"}, {"rnn": "BLEU 1.0"}])
def test_a_model_that_did_not_learn_leaves_the_precondition_unmet(flagged):
    ok = by_bucket({"rnn": [(20, 6), (21, 7), (19, 5)], "lstm+bahdanau+additive": [(22, 21), (23, 22), (21, 20)]})
    found = _judge(ok, VARIANTS, SPECS, LABELS, flagged)
    assert found.verdict == "not testable here" and "did not learn" not in found.cause
    assert "learned the task with this budget" in found.cause and "BLEU 1.0" in found.cause


def test_not_run_without_two_buckets_or_a_model_without_attention():
    ok = by_bucket({"rnn": [(20, 6)], "lstm+bahdanau+additive": [(22, 21)]})
    assert _judge(ok, VARIANTS, SPECS, {}).verdict == "not run"  # no BLEU by length
    only = by_bucket({"lstm+bahdanau+additive": [(22, 21), (23, 22)]})
    assert _judge(only, ["lstm+bahdanau+additive"], SPECS, LABELS).verdict == "not run"  # no plain RNN


def test_bahdanau_ignores_reordered_encoders():
    ok = with_test_bleu(
        {"lstm+reversed": [(20, 19), (21, 20), (19, 18)], "lstm+bahdanau+additive": [(22, 21), (23, 22), (21, 20)]}
    )
    # a reversed encoder without attention is not Bahdanau et al.'s RNNencdec, so it is no "model without attention"
    found = _judge(ok, ["lstm+reversed", "lstm+bahdanau+additive"], REVERSAL_SPECS, LABELS)
    assert found.verdict == "not run"


FOUR_SPECS = {
    "lstm": {"family": "rnn_seq2seq", "scoring": "none", "cell": "lstm"},
    "rnn": {"family": "rnn_seq2seq", "scoring": "none", "cell": "rnn"},
    "lstm+dot": {"family": "rnn_seq2seq", "scoring": "dot", "cell": "lstm"},
    "lstm+additive": {"family": "rnn_seq2seq", "scoring": "additive", "cell": "lstm", "decoder": "bahdanau"},
}
FOUR_LABELS = {
    5.0: "1-4 words (n=0)",
    10.0: "5-10 words (n=9)",
    20.0: "11-20 words (n=9)",
    30.0: "21-30 words (n=9)",
    40.0: "31-40 words (n=9)",
}


def _by_length(curves):
    # three seeds a little apart; the shortest label has no sentences, so no records: the shortest shared bucket is used
    rows = [
        {"variant": v, "metric": "bleu_by_length", "x": float(x), "value": value + 0.1 * (seed - 1) ** 2, "seed": seed}
        for v, values in curves.items()
        for x, value in zip((10, 20, 30, 40), values)
        for seed in range(3)
    ]
    return pd.DataFrame(rows)


def test_every_attention_model_against_every_model_without_it_and_the_shortest_bucket_with_records():
    found = _judge(
        _by_length({"lstm": [40, 30, 20, 10], "rnn": [2, 3, 3, 3], "lstm+dot": [98, 97, 97, 95]}),
        ["rnn", "lstm", "lstm+dot"],
        FOUR_SPECS,
        FOUR_LABELS,
        {"rnn": "BLEU 3.0, not 5 above"},
    )
    assert found.verdict == "agrees"
    assert [e.label for e in found.estimates] == [
        "lstm+dot - lstm, BLEU on 31-40 words minus on 5-10 words",
        "BLEU on 31-40 words, lstm+dot - lstm",
    ]
    text = found.sentence
    assert "1 of the 3 RNN variants compared is left out" in text and "attention in general" in text
    # two attention models: one whose lead grows, one whose lead shrinks; a reversed pair refutes the conjunction
    mixed = _judge(
        _by_length({"lstm": [40, 30, 20, 10], "lstm+dot": [98, 97, 97, 95], "lstm+additive": [98, 80, 60, 30]}),
        ["lstm", "lstm+dot", "lstm+additive"],
        {**FOUR_SPECS, "lstm+additive": dict(FOUR_SPECS["lstm+dot"], scoring="general")},
        FOUR_LABELS,
    )
    assert mixed.verdict == "disagrees" and "lstm+additive` - `lstm`" in mixed.sentence
    assert mixed.headline.label.startswith("lstm+additive - lstm")


def test_the_verdict_compares_bahdanaus_model_when_the_run_has_it():
    curves = {"lstm": [40, 30, 20, 10], "lstm+additive": [98, 97, 97, 95], "lstm+dot": [90, 60, 40, 20]}
    text = _judge(_by_length(curves), ["lstm", "lstm+additive", "lstm+dot"], FOUR_SPECS, FOUR_LABELS).sentence
    assert "This run agrees" in text and "Bahdanau's attention (the bahdanau decoder" in text and "lstm+dot" not in text


def _length_drop(rng, seeds, seed_effect):
    """seed -> one arm's BLEU on the longest bucket minus on the shortest: 5 BLEU lost with length whatever the arm
    (no interaction), a seed effect shared by the arms, 2 BLEU of noise per bucket."""
    return dict(enumerate(-5.0 + seed_effect + rng.normal(0, 2, seeds) - rng.normal(0, 2, seeds)))


@pytest.mark.parametrize("pairs", [1, 2])
def test_the_interaction_rule_holds_its_size_under_the_null(pairs):
    """No interaction (attention's lead the same on short and long sources, both arms losing 5 BLEU with length),
    5 seeds; with two attention models against one model without, the pairs share that arm: "agrees" and
    "disagrees" each at most about 2.5% of the time (fails above 5.5% in all)."""
    rng = np.random.default_rng(pairs)
    draws, words = 1500, []
    for _ in range(draws):
        shared = rng.normal(0, 3, 5)
        plain = _length_drop(rng, 5, shared)
        effects = []
        for _ in range(pairs):
            inter = paired("i", _length_drop(rng, 5, shared), plain, "BLEU", bounds=GAP)
            effects.append(LengthEffect(inter, inter, inter, "short", "long"))
        words.append(claim.rule(effects))
    agree, disagree = words.count("agrees") / draws, words.count("disagrees") / draws
    assert agree + disagree <= 0.055 and disagree <= 0.035 and agree <= 0.035, (agree, disagree)
