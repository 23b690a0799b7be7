"""The verdicts on the recurrences that came back, on made-up MQAR records: ordered pairs, their precondition, the
state ladder and the hybrid."""

import pandas as pd

from suites.recall.recurrence_verdicts import ladders
from suites.recall.verdicts import findings

SETTINGS = {"learned_accuracy": 0.9, "accuracy_margin": 0.1}
SIZES = (1, 2, 8)


def _arm(variant, at_most, at_two=0.97, seeds=(0, 1, 2), jitter=0.01):
    """MQAR records of one arm: 1.0 at one pair, ``at_two`` at 2 pairs, ``at_most`` at 8."""
    out = []
    for seed in seeds:
        for size, acc in zip(SIZES, (1.0, at_two, at_most)):
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
                    extra={"task": "mqar", "train_max": 8, "in_distribution": True, "chance_token": 1 / 64},
                )
            )
    return out


def _found(*arms):
    df = pd.DataFrame([r for arm in arms for r in arm])
    return {f.claim.key: f for f in findings(df)}


def test_gated_deltanet_must_beat_both_mamba2_and_deltanet():
    found = _found(_arm("gated_deltanet", 0.8), _arm("mamba2", 0.5), _arm("deltanet", 0.6))[
        "gated_deltanet_recalls_best"
    ]
    assert found.verdict == "agrees" and found.seeds == 3
    reversed_ = _found(_arm("gated_deltanet", 0.8), _arm("mamba2", 0.5), _arm("deltanet", 0.9))[
        "gated_deltanet_recalls_best"
    ]
    assert reversed_.verdict == "disagrees"  # one reversed pair refutes the conjunction
    assert reversed_.headline.label.startswith("gated_deltanet - deltanet")


def test_a_pair_is_not_testable_while_an_arm_has_not_learned_the_format():
    found = _found(_arm("deltanet", 0.6), _arm("linear_attention", 0.3, at_two=0.7))[
        "delta_rule_beats_linear_attention"
    ]
    assert found.verdict == "not testable here"
    assert "linear_attention 0.70 against the 0.9" in found.sentence and found.boundary == 0.9


def test_without_both_arms_a_claim_is_not_run():
    assert _found(_arm("mamba2", 0.5))["hybrid_restores_recall"].verdict == "not run"


def test_the_hybrid_claim_compares_the_hybrid_with_its_pure_stack():
    found = _found(_arm("mamba2+hybrid2", 0.95), _arm("mamba2", 0.4))["hybrid_restores_recall"]
    assert found.verdict == "agrees" and found.headline.label.startswith("mamba2+hybrid2 - mamba2")


def test_the_state_ladder_orders_each_family_and_puts_attention_above_the_unsolved():
    assert ladders(["mamba2+state64", "rope", "mamba2+state16", "gla+state8"]) == {
        "mamba2": [(16, "mamba2+state16"), (64, "mamba2+state64")]
    }
    # bare mamba2 is its default N = 64; gla's default depends on the width, so bare gla is no rung
    assert ladders(["mamba2", "mamba2+state16", "gla", "gla+state8"]) == {
        "mamba2": [(16, "mamba2+state16"), (64, "mamba2")]
    }
    found = _found(_arm("mamba2+state16", 0.4), _arm("mamba2+state64", 0.7), _arm("rope", 0.99))[
        "larger_state_recalls_more"
    ]
    assert found.verdict == "agrees"
    labels = [e.label for e in found.estimates]
    assert labels[0].startswith("mamba2+state64 - mamba2+state16") and any(
        l.startswith("rope - mamba2+state64") for l in labels
    )
    flat = _found(_arm("mamba2+state16", 0.7), _arm("mamba2+state64", 0.4))["larger_state_recalls_more"]
    assert flat.verdict == "disagrees"
