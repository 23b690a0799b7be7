"""Attention against fixed-state models on MQAR: every attention arm must have learned it; the fixed-state models'
recall above guessing without keys must fall as the pairs grow; each variant is read at its chosen learning rate."""

from suites.recall.claims import attention_solves_mqar as claim
from tests.unit.suites.recall.claims._records import RATES, frame, judged, mqar, rate_records, rows

LEARNED = [
    ("none", (1.0, 1.0, 0.97)),
    ("t5_bias", (1.0, 1.0, 0.98)),
    ("alibi", (1.0, 1.0, 0.96)),
    ("rope", (1.0, 1.0, 0.99)),
]


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_mqar_agrees_when_every_attention_arm_solves_it_and_fixed_states_fall_from_recall_above_guessing():
    # guessing without keys scores about 0.75 at 2 pairs and 0.36 at 8: both models recall above it at 2, not at 8
    found = judged(claim, mqar(*LEARNED, ("lstm", (1.0, 0.95, 0.3)), ("mingru", (1.0, 0.9, 0.2))))
    assert found.verdict == "agrees" and found.boundary == 0.0 and found.seeds == 3
    assert (
        found.headline.label == "lstm above guessing, 2 - 8 pairs"
    )  # the part nearest 0 decides an agreeing conjunction


def test_a_fall_of_mqar_accuracy_must_beat_guessing_without_keys():
    # falling from 1 to 0.5 to 0.13 is what 1/N does: the model recalls nothing, so no fall of recall shows
    found = judged(claim, mqar(*LEARNED, ("lstm", (1.0, 0.5, 0.13))))
    assert (
        found.verdict == "inconclusive"
        and "No fall can show for lstm: it does not recall above guessing even at 2 pairs" in found.cause
    )
    assert found.headline.label == "lstm above guessing, 2 - 8 pairs"


def test_mqar_is_not_testable_while_an_attention_arm_has_not_learned_it():
    found = judged(claim, mqar(("alibi", (1.0, 0.55, 0.2)), ("rope", (1.0, 1.0, 0.99)), ("lstm", (1.0, 0.95, 0.3))))
    assert found.verdict == "not testable here"
    assert (
        "alibi 0.20 against the 0.9 that counts as learned" in found.sentence
        and "learning-rate sweep" in found.sentence
    )
    assert "Judged on the attention arms that learned it (rope) alone" in found.sentence
    assert found.headline.label == "alibi token accuracy at 8 pairs" and found.boundary == 0.9


def test_mqar_disagrees_when_a_fixed_state_model_recalls_as_well_as_attention():
    df = mqar(*LEARNED, ("lstm", (1.0, 1.0, 0.99)))
    df.loc[df.variant == "lstm", "value"] = 1.0  # the LSTM recalls every pair: attention leads by nothing
    assert judged(claim, df).verdict == "disagrees"


def test_missing_arms_are_not_run():
    df = frame(rows("lstm", "mqar", {1: 0.5}, 1), rows("lstm", "copy", {4: 0.5}, 4))
    assert judged(claim, df).verdict == "not run"


def test_the_mqar_verdict_reads_each_variant_at_its_chosen_rate():
    # none learns MQAR only at 1e-2; judged at 1e-3 it would leave the claim untestable
    arms = [rate_records(v, 0.001, 0.99, 0.99) for v in ("t5_bias", "alibi", "rope")]
    arms += [rate_records("none", 0.001, 0.12, 0.12), rate_records("none", 0.01, 0.97, 0.97)]
    found = judged(claim, frame(*arms, rate_records("lstm", 0.001, 0.1, 0.1)))
    assert found.verdict != "not testable here"
    assert "Each variant at the learning rate that scored best on validation sequences: none 1e-2" in found.sentence


def test_after_the_full_sweep_what_would_test_mqar_is_longer_training():
    arms = [
        rate_records(v, lr, 0.99 if v != "alibi" else 0.2, 0.99 if v != "alibi" else 0.2)
        for v in ("none", "alibi", "rope")
        for lr in RATES
    ]
    found = judged(claim, frame(*arms, rate_records("lstm", 0.001, 0.1, 0.1)))
    assert found.verdict == "not testable here"
    assert "training as long as Zoology's" in found.sentence and "3000 of 32 here" in found.sentence
