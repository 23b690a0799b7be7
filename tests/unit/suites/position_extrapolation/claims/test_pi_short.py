"""PI at a fixed s > 1 raises perplexity at L against plain RoPE on the same weights, paired over seeds."""

from suites.position_extrapolation.claims import pi_short as claim
from suites.position_extrapolation.claims._shared import prepare
from tests.unit.suites.position_extrapolation.claims._records import (
    NOTHING_HELPS,
    PUBLISHED_SHAPE,
    one_seed,
    records,
    unlearned,
)


def test_it_is_chen_et_als_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and claim.CLAIM.source.startswith("Chen et al. 2023")


def test_the_published_shape_agrees_with_its_threshold():
    assert claim.judge(prepare(records(PUBLISHED_SHAPE))).verdict == "agrees"
    assert claim.judge(prepare(records(PUBLISHED_SHAPE, seeds=(0, 1, 2)))).boundary == claim.PI_RISE


def test_one_seed_without_a_calibrated_margin_gives_no_verdict(monkeypatch):
    found = one_seed(monkeypatch, claim.judge)
    # no margin calibrated for this quantity: one seed gives no verdict, and the cause says so
    assert found.verdict == "inconclusive" and "1 seed: no verdict" in found.cause


def test_a_run_where_nothing_helps_disagrees():
    assert claim.judge(prepare(records(NOTHING_HELPS))).verdict == "disagrees"


def test_it_is_judged_on_its_own_at_l_when_pi_is_worse_than_extrapolation():
    inverted = dict(PUBLISHED_SHAPE, **{"rope+pi": ("pi", "auto", [4.2, 15.0, 35.0, 60.0])})
    assert claim.judge(prepare(records(inverted, seeds=(0, 1, 2)))).verdict == "agrees"


def test_pi_with_s_following_the_length_cannot_test_the_short_length_claim():
    auto_only = {k: v for k, v in PUBLISHED_SHAPE.items() if k != "rope+pi2"}
    found = claim.judge(prepare(records(auto_only)))
    assert found.verdict == "not run" and "fixed s" in found.sentence


def test_pi_at_a_fixed_scale_is_judged_at_the_training_length():
    curves = {"rope": PUBLISHED_SHAPE["rope"], "rope+pi4": ("pi", 4.0, [4.8, 4.8, 5.0, 9.0])}
    pi = claim.judge(prepare(records(curves)))
    assert (
        pi.verdict == "agrees" and "scored at the training length L" in pi.sentence and "ppl(1L)" in pi.headline.label
    )


def test_no_verdict_when_plain_rope_did_not_learn():
    found = unlearned(claim.judge)
    assert found.verdict == "inconclusive" and "did not learn" in found.sentence
    no_pi = {k: v for k, v in PUBLISHED_SHAPE.items() if not k.startswith("rope+pi")}
    assert claim.judge(prepare(records(no_pi).assign(bigram_entropy=1.0))).verdict == "not run"  # PI not run


def test_pi_short_declares_its_smallest_effect():
    from suites.position_extrapolation.claims import pi_short

    c = pi_short.CLAIM
    assert c.smallest_effect is not None and c.smallest_effect > 0 and c.smallest_effect_source
