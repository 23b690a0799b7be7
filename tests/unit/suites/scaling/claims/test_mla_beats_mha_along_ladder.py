"""MLA against MHA along the ladder: directional at every rung, the largest rung deciding, a flip named."""

from __future__ import annotations

import pandas as pd
import pytest

from suites.scaling.claims import mla_beats_mha_along_ladder as claim


def ladder(losses: dict[tuple[str, int], list[float]], rates=(1e-3, 3e-3)) -> pd.DataFrame:
    """Final held-out losses: (variant, rung) -> one per seed."""
    return pd.DataFrame(
        [
            {
                "variant": f"{v}+rung{r}",
                "metric": "loss",
                "value": loss,
                "seed": seed,
                "status": "ok",
                "extra": {"fraction": 1.0},
                "profile_settings": {"learning_rates": list(rates)},
            }
            for (v, r), values in losses.items()
            for seed, loss in enumerate(values)
        ]
    )


def test_lower_at_every_rung_agrees_without_a_flip():
    found = claim.judge(
        ladder(
            {
                ("baseline", 0): [2.00, 2.10, 2.05],
                ("mla", 0): [1.90, 2.01, 1.94],
                ("baseline", 1): [1.80, 1.90, 1.85],
                ("mla", 1): [1.70, 1.81, 1.74],
            }
        )
    )
    assert found.verdict == "agrees" and found.cause == ""
    assert found.along == "By rung: 0 agrees, 1 agrees; no flip."


def test_the_largest_rung_decides_and_the_flip_is_named():
    found = claim.judge(
        ladder(
            {
                ("baseline", 0): [2.00, 2.10, 2.05],
                ("mla", 0): [1.90, 2.01, 1.94],
                ("baseline", 1): [1.80, 1.90, 1.85],
                ("mla", 1): [1.90, 2.01, 1.94],
            }
        )
    )
    assert found.verdict == "disagrees"
    assert "flips along the ladder: agrees at rung 0, disagrees at rung 1" in found.sentence
    assert found.cause.startswith("at the largest rung (1)")


def test_a_ladder_at_one_rate_is_confounded_and_a_missing_arm_is_not_run():
    one = ladder({("baseline", 0): [2.0, 2.1], ("mla", 0): [1.9, 2.0]}, rates=(1e-3,))
    assert "one learning rate (0.001)" in claim.judge(one).cause
    assert claim.judge(ladder({("baseline", 0): [2.0, 2.1]})).verdict == "not run"


def test_the_smallest_effect_is_declared_and_plans_the_seeds_never_the_estimate():
    from suites.common.char_margin import TOLERANCE_NATS

    assert claim.CLAIM.smallest_effect == pytest.approx(TOLERANCE_NATS, abs=1e-4)
    assert claim.CLAIM.smallest_effect_source.startswith("this project's choice")
    found = claim.judge(
        ladder({("baseline", 0): [2.00, 2.10, 2.05, 2.02], ("mla", 0): [2.01, 2.09, 2.07, 2.02]})  # +0.005: undecided
    )
    assert found.verdict == "inconclusive" and 0.05 < found.p < 1
    assert "the smallest effect of interest, 0.0066 nats/char" in found.cause
