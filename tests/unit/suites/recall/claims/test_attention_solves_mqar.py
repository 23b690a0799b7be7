"""Attention against fixed-state models on MQAR: the verdict is on RoPE, the protocol's attention arm, whatever it
scores; every arm compared must have learned MQAR's format at 2 pairs (fixed-state arms short of it are left out); the
fixed-state models' recall above guessing without keys must fall as the pairs grow; the other attention arms' verdicts
are shown apart; each variant is read at its chosen learning rate."""

from suites.recall.claims import attention_solves_mqar as claim
from tests.unit.suites.recall.claims._records import RATES, frame, judged, mqar, rate_records, rows

OTHERS = [("none", (1.0, 1.0, 0.97)), ("t5_bias", (1.0, 1.0, 0.98)), ("alibi", (1.0, 1.0, 0.96))]
ROPE = ("rope", (1.0, 1.0, 0.99))
#: fixed-state models that learned the format (0.95 and 0.92 at 2 pairs) and lose recall by 8 pairs
FALLING = [("lstm", (1.0, 0.95, 0.3)), ("mingru", (1.0, 0.92, 0.2))]


def test_it_is_a_finding_whose_precondition_is_about_the_setting_not_attention_learning():
    assert claim.CLAIM.kind == "finding" and "MQAR's format" in claim.CLAIM.precondition
    assert "every attention arm learns" not in claim.CLAIM.precondition
    assert claim.PRIMARY == "rope" and claim.CLAIM.smallest_effect == 0.05


def test_mqar_agrees_when_rope_leads_and_fixed_states_fall_from_recall_above_guessing():
    # guessing without keys scores about 0.75 at 2 pairs and 0.36 at 8: both models recall above it at 2, not at 8
    found = judged(claim, mqar(*OTHERS, ROPE, *FALLING))
    assert found.verdict == "agrees" and found.boundary == 0.0 and found.seeds == 3
    assert found.headline.label == "lstm above guessing, 2 - 8 pairs"  # the part nearest 0 decides
    assert "Other attention arms, each by the same rule, not part of this verdict: none agrees" in found.sentence


def test_the_verdict_is_on_rope_whatever_the_other_attention_arms_score():
    # ALiBi and NoPE never learn MQAR here: their verdicts are shown with their budget, the claim's is RoPE's
    found = judged(claim, mqar(("alibi", (1.0, 0.55, 0.2)), ("none", (1.0, 0.5, 0.1)), ROPE, *FALLING))
    assert found.verdict == "agrees"
    assert "alibi not testable here (0.20 at 8 pairs, 0.55 at 2; it did not learn MQAR's format)" in found.sentence


def test_rope_failing_at_the_most_pairs_is_judged_not_excused():
    # RoPE learned the format at 2 pairs but recalls no better than the LSTM at 8: a refutation, not "not testable"
    df = mqar(("rope", (1.0, 1.0, 0.3)), ("lstm", (1.0, 0.95, 0.3)))
    df.loc[df.variant == "lstm", "value"] = df.loc[df.variant == "rope", "value"].to_numpy() + 0.2
    df["value"] = df.value.clip(upper=1.0)
    found = judged(claim, df)
    assert found.verdict == "disagrees" and found.headline.label == "rope - lstm at 8 pairs"


def test_fixed_state_models_short_of_the_format_are_left_out_and_with_none_left_it_is_not_testable():
    # an LSTM at 0.55 at 2 pairs, below guessing (0.75): it reads no keys, so neither a lead over it nor a fall shows
    for rope in ((1.0, 1.0, 0.99), (1.0, 1.0, 0.1)):  # whichever way RoPE goes at the most pairs
        found = judged(claim, mqar(("rope", rope), ("lstm", (1.0, 0.55, 0.2))))
        assert found.verdict == "not testable here"
        assert "lstm 0.55 against the 0.9 that counts as having learned MQAR's format" in found.cause
        assert found.headline.label == "lstm token accuracy at 2 pairs" and found.boundary == 0.9
        assert "Shown, not judged: attention's lead at 8 pairs: rope - lstm" in found.sentence
    partial = judged(claim, mqar(ROPE, *FALLING, ("linear_attention", (1.0, 0.6, 0.2))))
    assert partial.verdict == "agrees" and "Left out (token accuracy at 2 pairs below 0.9" in partial.sentence
    assert all("linear_attention" not in e.label for e in partial.estimates)


def test_a_fall_of_mqar_accuracy_must_beat_guessing_without_keys():
    # accuracy falls from 0.95 to 0.36, exactly what guessing without keys does at 8 pairs: no fall of recall
    df = mqar(ROPE, ("lstm", (1.0, 0.95, 0.36)))
    df.loc[(df.variant == "lstm") & (df.x == 8.0), "value"] = [0.55, 0.15, 0.4]  # noisy around guessing
    found = judged(claim, df)
    assert found.verdict == "inconclusive"
    assert "Lstm above guessing, 2 - 8 pairs is +0.19, its 95% interval includes 0" in found.cause


def test_missing_arms_are_not_run():
    df = frame(rows("lstm", "mqar", {1: 0.5}, 1), rows("lstm", "copy", {4: 0.5}, 4))
    assert judged(claim, df).verdict == "not run"


def test_the_mqar_verdict_reads_each_variant_at_its_chosen_rate():
    # the LSTM learns MQAR's format only at 1e-2; judged at 1e-3 it would leave the claim untestable
    arms = [rate_records("rope", 0.001, 0.99, 0.99)]
    arms += [rate_records("lstm", 0.001, 0.12, 0.12, at_small=0.5), rate_records("lstm", 0.01, 0.4, 0.3)]
    found = judged(claim, frame(*arms))
    assert found.verdict != "not testable here"
    assert "Each variant at the learning rate that scored best on validation sequences: rope 1e-3, lstm 1e-2" in (
        found.sentence
    )


def test_after_the_full_sweep_what_would_test_mqar_is_longer_training():
    arms = [rate_records("rope", lr, 0.99, 0.99) for lr in RATES]
    arms += [rate_records("lstm", lr, 0.1, 0.1, at_small=0.6) for lr in RATES]
    found = judged(claim, frame(*arms))
    assert found.verdict == "not testable here"
    assert "training as long as Zoology's" in found.sentence and "3000 of 32 here" in found.sentence


def test_another_attention_arm_is_shown_not_testable_when_no_fixed_state_model_learned_the_format():
    found = judged(claim, mqar(("alibi", (1.0, 1.0, 0.96)), ROPE, ("lstm", (1.0, 0.55, 0.2))))
    assert "alibi not testable here (0.96 at 8 pairs, 1.00 at 2; no fixed-state model learned MQAR's format)" in (
        found.sentence
    )
