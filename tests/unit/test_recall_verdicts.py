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
            out.append(dict(metric="token_accuracy", variant=variant, seed=seed, x=float(size), value=value, status="ok",
                            profile_settings=SETTINGS, extra={"task": task, "train_max": n, "in_distribution": size <= n,
                                                              "chance_token": 0.1}))
    return out


def frame(*parts):
    return pd.DataFrame([r for p in parts for r in p])


def by_key(df):
    return {f.claim.key: f for f in findings(df)}


def test_mqar_agrees_when_attention_solves_and_fixed_states_fall():
    df = frame(rows("rope", "mqar", {1: 1.0, 8: 0.98}, 8), rows("lstm", "mqar", {1: 0.95, 8: 0.3}, 8),
               rows("mingru", "mqar", {1: 0.9, 8: 0.2}, 8))
    assert by_key(df)["attention_solves_mqar"].verdict == "agrees"


def test_mqar_is_inconclusive_when_attention_has_not_learned_it_and_disagrees_when_a_fixed_state_wins():
    df = frame(rows("rope", "mqar", {1: 0.5, 8: 0.3}, 8), rows("lstm", "mqar", {1: 0.95, 8: 0.3}, 8))
    found = by_key(df)["attention_solves_mqar"]
    assert found.verdict == "inconclusive" and "does not solve" in found.cause and "within this budget" in found.cause
    df = frame(rows("rope", "mqar", {1: 1.0, 8: 0.95}, 8), rows("lstm", "mqar", {1: 1.0, 8: 0.99}, 8))
    df.loc[df.variant == "lstm", "value"] = 1.0  # the LSTM recalls every pair: attention leads by nothing
    assert by_key(df)["attention_solves_mqar"].verdict == "disagrees"


def test_copy_verdict_follows_the_gap_at_n():
    good = frame(rows("rope", "copy", {4: 1.0, 8: 0.99, 16: 0.2}, 8), rows("lstm", "copy", {4: 0.9, 8: 0.5, 16: 0.1}, 8))
    assert by_key(good)["transformers_copy_longer"].verdict == "agrees"
    bad = frame(rows("rope", "copy", {4: 1.0, 8: 0.92}, 8), rows("lstm", "copy", {4: 1.0, 8: 1.0}, 8))
    assert by_key(bad)["transformers_copy_longer"].verdict == "disagrees"
    unlearned = frame(rows("rope", "copy", {4: 0.6, 8: 0.4}, 8), rows("lstm", "copy", {4: 1.0, 8: 0.9}, 8))
    found = by_key(unlearned)["transformers_copy_longer"]
    assert found.verdict == "inconclusive" and "has not learned copying" in found.cause


def test_position_ranking_leaves_out_arms_that_did_not_learn():
    published = frame(*(rows(v, "reverse", {8: 1.0, 16: acc}, 8) for v, acc in
                        (("none", 0.8), ("t5_bias", 0.8), ("alibi", 0.6), ("rope", 0.3))))
    assert by_key(published)["position_length_generalisation"].verdict == "agrees"
    rope_failed = frame(*(rows(v, "reverse", {8: at_n, 16: acc}, 8) for v, at_n, acc in
                          (("none", 1.0, 0.3), ("alibi", 1.0, 0.8), ("rope", 0.5, 0.0))))
    found = by_key(rope_failed)["position_length_generalisation"]
    assert found.verdict == "disagrees"  # none below alibi; rope left out, not counted as the worst
    assert "rope on reverse" in found.sentence and "Left out" in found.sentence
    assert "0 of 1 tested pairs" in found.cause and "on reverse none - alibi is -0.50 (the order reversed)" in found.cause


def test_a_mixed_ranking_names_the_pairs_that_hold_and_the_one_reversed():
    mixed = frame(*(rows(v, "copy", {8: 1.0, 16: acc}, 8) for v, acc in
                    (("t5_bias", 0.7), ("alibi", 0.97), ("rope", 0.5))))
    found = by_key(mixed)["position_length_generalisation"]
    assert found.verdict == "inconclusive"  # one pair holds (alibi > rope), one is reversed (t5_bias < alibi)
    assert "1 of 2 tested pairs" in found.cause and "on copy t5_bias - alibi is -0.27 (the order reversed)" in found.cause
    assert "exact-match" in found.cause


@pytest.mark.parametrize("key", ["attention_solves_mqar", "transformers_copy_longer", "position_length_generalisation"])
def test_missing_arms_are_not_run(key):
    df = frame(rows("lstm", "mqar", {1: 0.5}, 1), rows("lstm", "copy", {4: 0.5}, 4))
    assert by_key(df)[key].verdict == "not run"
