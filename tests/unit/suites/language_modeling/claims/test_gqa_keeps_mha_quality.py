"""Ainslie et al.'s GQA: equivalent to MHA within the claim's TOLERANCE, MQA worse (a difference that counts)."""

import pytest

from suites.language_modeling.claims import gqa_keeps_mha_quality as claim
from tests.unit.suites.language_modeling.claims._records import BASELINE, CLOSE, NOISY, evidence, lm, times


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


@pytest.mark.parametrize(
    "variants, verdict",
    [
        ({"gqa2": CLOSE, "mqa": times(1.03)}, "agrees"),
        ({"gqa2": times(1.005), "mqa": times(1.034)}, "agrees"),  # GQA's loss counts but is inside 0.66%
        ({"gqa2": NOISY, "mqa": times(1.034)}, "inconclusive"),  # GQA's interval crosses 0.66%
        ({"gqa2": NOISY, "mqa": NOISY}, "inconclusive"),  # MQA's loss does not count
        ({"gqa2": times(1.08), "mqa": times(1.03)}, "disagrees"),  # GQA loses more than 0.66%
        ({"gqa2": NOISY, "mqa": times(0.97)}, "disagrees"),  # MQA better than MHA
        ({"gqa2": times(1.005), "mqa": "failed"}, "inconclusive"),  # MQA has no perplexity
        ({"gqa2": times(1.005)}, "not run"),  # no MQA
    ],
)
def test_the_verdict(variants, verdict):
    found = claim.judge(evidence(lm({"baseline": BASELINE, **variants})))
    assert found.verdict == verdict
    assert found.verdict in ("agrees", "not run") or found.cause  # every other verdict says why


def test_the_headline_is_the_part_its_verdict_turns_on():
    # GQA's part passes and MQA's is undecided: the headline is MQA's estimate, with boundary 0
    found = claim.judge(evidence(lm({"baseline": BASELINE, "gqa2": CLOSE, "mqa": NOISY})))
    assert found.verdict == "inconclusive" and found.headline.label.startswith("mqa") and found.boundary == 0.0
    assert "seeds" in found.cause  # the power sentence, planned from the headline
    # GQA's part is undecided, MQA's loss counts: the headline is GQA's, with the tolerance as its boundary
    found = claim.judge(evidence(lm({"baseline": BASELINE, "gqa2": NOISY, "mqa": times(1.03)})))
    assert found.headline.label.startswith("gqa2") and abs(found.boundary) == claim.TOLERANCE


def test_the_smallest_effect_is_the_claims_tolerance():
    assert claim.CLAIM.smallest_effect == claim.TOLERANCE and claim.CLAIM.smallest_effect_source


def test_the_conjunction_holds_its_size_at_the_null():
    import numpy as np

    from harness.paired import paired

    # the least favourable null of "disagrees": GQA's true change exactly on the tolerance, MQA's exactly 0; each
    # part's own "disagrees" counted alone made the conjunction say so about 5% of the time
    draws = 3000
    whole = 0.05 + 3 * (0.05 * 0.95 / draws) ** 0.5
    rng = np.random.default_rng(13)
    seeds = range(3)
    words = []
    for _ in range(draws):
        mha = 5.0 * np.exp(rng.normal(0.0, 0.02, 3))
        gqa = mha * (1 + claim.TOLERANCE / 100) * np.exp(rng.normal(0.0, 0.01, 3))
        mqa = mha * np.exp(rng.normal(0.0, 0.01, 3))
        g = paired("g", dict(zip(seeds, gqa)), dict(zip(seeds, mha)), relative=True)
        m = paired("m", dict(zip(seeds, mqa)), dict(zip(seeds, mha)), relative=True)
        words.append(claim.rule(g, m)[2])
    agree, disagree = words.count("agrees") / draws, words.count("disagrees") / draws
    assert disagree <= whole and agree + disagree <= whole, (agree, disagree)
