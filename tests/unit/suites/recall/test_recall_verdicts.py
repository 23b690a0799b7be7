"""The recall verdicts on made-up records: each claim agrees, disagrees or is inconclusive as its rule says."""

import pandas as pd
import pytest

from suites.recall.verdicts import findings

SETTINGS = {"learned_accuracy": 0.9, "accuracy_margin": 0.1}


def rows(variant, task, accuracy_by_size, n, seeds=(0, 1, 2), jitter=0.01):
    out = []
    for seed in seeds:
        for size, acc in accuracy_by_size.items():
            value = min(1.0, max(0.0, acc + jitter * (seed - 1)))
            out.append(
                dict(
                    metric="token_accuracy",
                    variant=variant,
                    seed=seed,
                    x=float(size),
                    value=value,
                    status="ok",
                    profile_settings=SETTINGS,
                    extra={"task": task, "train_max": n, "in_distribution": size <= n, "chance_token": 0.1},
                )
            )
    return out


def frame(*parts):
    return pd.DataFrame([r for p in parts for r in p])


def by_key(df):
    return {f.claim.key: f for f in findings(df)}


def _mqar(*arms, sizes=(1, 2, 8)):
    """MQAR rows of (variant, {size: accuracy}) arms, trained on up to the largest size."""
    return frame(*(rows(v, "mqar", dict(zip(sizes, accs)), sizes[-1]) for v, accs in arms))


LEARNED = [
    ("none", (1.0, 1.0, 0.97)),
    ("t5_bias", (1.0, 1.0, 0.98)),
    ("alibi", (1.0, 1.0, 0.96)),
    ("rope", (1.0, 1.0, 0.99)),
]


def test_mqar_agrees_when_every_attention_arm_solves_it_and_fixed_states_fall_from_recall_above_guessing():
    # guessing without keys scores about 0.75 at 2 pairs and 0.36 at 8: both models recall above it at 2, not at 8
    df = _mqar(*LEARNED, ("lstm", (1.0, 0.95, 0.3)), ("mingru", (1.0, 0.9, 0.2)))
    found = by_key(df)["attention_solves_mqar"]
    assert found.verdict == "agrees" and found.boundary == 0.0 and found.seeds == 3
    assert (
        found.headline.label == "lstm above guessing, 2 - 8 pairs"
    )  # the part nearest 0 decides an agreeing conjunction


def test_a_fall_of_mqar_accuracy_must_beat_guessing_without_keys():
    # falling from 1 to 0.5 to 0.13 is what 1/N does: the model recalls nothing, so no fall of recall shows
    df = _mqar(*LEARNED, ("lstm", (1.0, 0.5, 0.13)))
    found = by_key(df)["attention_solves_mqar"]
    assert (
        found.verdict == "inconclusive"
        and "No fall can show for lstm: it does not recall above guessing even at 2 pairs" in found.cause
    )
    assert found.headline.label == "lstm above guessing, 2 - 8 pairs"


def test_mqar_is_not_testable_while_an_attention_arm_has_not_learned_it():
    df = _mqar(("alibi", (1.0, 0.55, 0.2)), ("rope", (1.0, 1.0, 0.99)), ("lstm", (1.0, 0.95, 0.3)))
    found = by_key(df)["attention_solves_mqar"]
    assert found.verdict == "not testable here"
    assert (
        "alibi 0.20 against the 0.9 that counts as learned" in found.sentence
        and "learning-rate sweep" in found.sentence
    )
    assert "Judged on the attention arms that learned it (rope) alone" in found.sentence
    assert found.headline.label == "alibi token accuracy at 8 pairs" and found.boundary == 0.9


def test_mqar_disagrees_when_a_fixed_state_model_recalls_as_well_as_attention():
    df = _mqar(*LEARNED, ("lstm", (1.0, 1.0, 0.99)))
    df.loc[df.variant == "lstm", "value"] = 1.0  # the LSTM recalls every pair: attention leads by nothing
    assert by_key(df)["attention_solves_mqar"].verdict == "disagrees"


def test_copy_needs_both_pairs_and_an_attention_arm_that_learned_copying():
    good = frame(
        rows("rope", "copy", {4: 1.0, 8: 0.99, 16: 0.2}, 8), rows("lstm", "copy", {4: 0.9, 8: 0.5, 16: 0.1}, 8)
    )
    assert by_key(good)["transformers_copy_longer"].verdict == "agrees"
    bad = frame(
        rows("rope", "copy", {4: 1.0, 8: 0.92}, 8),
        rows("lstm", "copy", {4: 1.0, 8: 1.0}, 8),
        rows("mingru", "copy", {4: 1.0, 8: 0.5}, 8),
    )
    found = by_key(bad)["transformers_copy_longer"]
    assert found.verdict == "disagrees"  # rope above mingru, below lstm: one reversed pair refutes the claim
    assert found.headline.label.startswith("rope - lstm")
    unlearned = frame(rows("rope", "copy", {4: 0.6, 8: 0.4}, 8), rows("lstm", "copy", {4: 1.0, 8: 0.9}, 8))
    found = by_key(unlearned)["transformers_copy_longer"]
    assert found.verdict == "not testable here" and "below the 0.9 that counts as learned" in found.cause


def test_no_margin_counts_a_gap_at_several_seeds_and_one_seed_gives_no_verdict():
    # a 0.15 gap, larger than the profile's accuracy_margin, whose per-seed gaps straddle 0
    noisy = frame(rows("rope", "copy", {8: 0.95}, 8, jitter=0.0), rows("lstm", "copy", {8: 0.8}, 8, jitter=0.3))
    found = by_key(noisy)["transformers_copy_longer"]
    assert found.verdict == "inconclusive" and "interval includes 0" in found.sentence
    one = frame(rows("rope", "copy", {8: 1.0}, 8, seeds=(0,)), rows("lstm", "copy", {8: 0.1}, 8, seeds=(0,)))
    found = by_key(one)["transformers_copy_longer"]
    assert found.verdict == "inconclusive" and "1 seed: no verdict" in found.sentence


def test_position_ranking_leaves_out_arms_that_did_not_learn():
    published = frame(
        *(
            rows(v, "reverse", {8: 1.0, 16: acc}, 8)
            for v, acc in (("none", 0.8), ("t5_bias", 0.8), ("alibi", 0.6), ("rope", 0.3))
        )
    )
    assert by_key(published)["position_length_generalisation"].verdict == "agrees"
    rope_failed = frame(
        *(
            rows(v, "reverse", {8: at_n, 16: acc}, 8)
            for v, at_n, acc in (("none", 1.0, 0.3), ("alibi", 1.0, 0.8), ("rope", 0.5, 0.0))
        )
    )
    found = by_key(rope_failed)["position_length_generalisation"]
    assert found.verdict == "disagrees"  # none below alibi; rope left out, not counted as the worst
    assert "rope on reverse" in found.sentence and "Left out" in found.sentence
    assert (
        "0 of 1 tested pairs" in found.cause and "on reverse none - alibi is -0.50 (the order reversed)" in found.cause
    )
    nothing = frame(*(rows(v, "reverse", {8: 0.5, 16: 0.1}, 8) for v in ("none", "alibi")))
    assert by_key(nothing)["position_length_generalisation"].verdict == "not testable here"


def test_a_ranking_is_refuted_by_one_reversed_pair_whatever_the_others_say():
    mixed = frame(
        *(rows(v, "copy", {8: 1.0, 16: acc}, 8) for v, acc in (("t5_bias", 0.7), ("alibi", 0.97), ("rope", 0.5)))
    )
    found = by_key(mixed)["position_length_generalisation"]
    assert found.verdict == "disagrees"  # alibi > rope holds, t5_bias < alibi is reversed: the order does not hold
    assert (
        "1 of 2 tested pairs" in found.cause and "on copy t5_bias - alibi is -0.27 (the order reversed)" in found.cause
    )
    assert found.headline.label == "copy: t5_bias - alibi, token accuracy past n" and found.boundary == 0.0


@pytest.mark.parametrize("key", ["attention_solves_mqar", "transformers_copy_longer", "position_length_generalisation"])
def test_missing_arms_are_not_run(key):
    df = frame(rows("lstm", "mqar", {1: 0.5}, 1), rows("lstm", "copy", {4: 0.5}, 4))
    assert by_key(df)[key].verdict == "not run"
