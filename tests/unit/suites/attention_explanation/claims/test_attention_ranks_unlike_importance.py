"""Jain & Wallace's claim: attention's taus with the importance measures against the measures' own agreement."""

import numpy as np
import pytest

from harness.paired import paired
from suites.attention_explanation.claims import attention_ranks_unlike_importance as claim
from tests.unit.suites.attention_explanation.claims._records import STRONG, WEAK, evidence, records


def test_it_is_a_finding_with_its_smallest_effect_declared():
    c = claim.CLAIM
    assert c.kind == "finding" and c.protocol
    assert c.smallest_effect == 0.1 and "this project's choice" in c.smallest_effect_source


def test_the_verdict_on_synthetic_records():
    assert claim.judge(evidence(records(*WEAK))).verdict == "agrees"
    assert claim.judge(evidence(records(*STRONG))).verdict == "disagrees"


@pytest.mark.parametrize("seeds", [3, 11])
def test_the_two_part_rule_holds_its_size_under_the_null(seeds):
    """Neither of attention's taus differs from the measures' agreement (the two gaps share the yardstick arm): the
    conjunction says "agrees" and "disagrees" each at most about 2.5% of the time (fails above 5.5% in all)."""
    rng = np.random.default_rng(seeds)
    draws = 1500
    words = []
    for _ in range(draws):
        yardstick = 0.45 + rng.normal(0, 0.05, seeds)
        taus = 0.45 + 0.5 * (yardstick - 0.45) + rng.normal(0, 0.04, (2, seeds))  # correlated with the yardstick
        ys = dict(enumerate(yardstick))
        words.append(claim.rule([paired("gap", dict(enumerate(t)), ys, bounds=claim.TAU) for t in taus]))
    agree, disagree = words.count("agrees") / draws, words.count("disagrees") / draws
    assert agree + disagree <= 0.055 and disagree <= 0.035, (agree, disagree)
