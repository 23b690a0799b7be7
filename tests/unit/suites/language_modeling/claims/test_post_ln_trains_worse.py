"""Xiong et al.'s Post-LN: a trainability claim, every run counts at the perplexity it ended at."""

import pytest

from suites.language_modeling.claims import gqa_keeps_mha_quality
from suites.language_modeling.claims import post_ln_trains_worse as claim
from suites.language_modeling.claims._shared import prepare
from tests.unit.suites.language_modeling.claims._records import (
    BASELINE,
    CLOSE,
    COLLAPSED,
    NOISY,
    evidence,
    lm,
    lm_records,
    times,
)


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


@pytest.mark.parametrize(
    "variants, verdict",
    [
        ({"post_ln": COLLAPSED}, "agrees"),  # stuck at the unigram level: the effect itself
        ({"post_ln": "diverged"}, "agrees"),  # enters at exp(unigram entropy)
        ({"post_ln": times(0.95)}, "disagrees"),
        ({"post_ln": NOISY}, "inconclusive"),  # inside the seeds' noise
        ({"post_ln": "failed"}, "inconclusive"),  # no perplexity, did not diverge
        ({"post_ln": COLLAPSED, "post_ln+long_warmup": NOISY}, "agrees"),  # the long warm-up rescues it
        ({"post_ln": COLLAPSED, "post_ln+long_warmup": COLLAPSED}, "inconclusive"),  # warm-up not the cause
        ({}, "not run"),
        # without warm-up (the source's failing row) the judged arm is Post-LN at 0 against Pre-LN at 0, whatever
        # Post-LN does at the profile's warm-up (shown, not judged)
        (
            {
                "no_warmup": BASELINE,
                "post_ln+no_warmup": COLLAPSED,
                "post_ln": times(0.95),
                "post_ln+long_warmup": NOISY,
            },
            "agrees",
        ),
        ({"no_warmup": BASELINE, "post_ln+no_warmup": times(0.93), "post_ln": times(0.95)}, "disagrees"),
    ],
)
def test_the_verdict(variants, verdict):
    found = claim.judge(evidence(lm({"baseline": BASELINE, **variants})))
    assert found.verdict == verdict
    assert found.verdict in ("agrees", "not run") or found.cause  # every other verdict says why


def test_post_ln_without_warm_up_is_judged_against_pre_ln_without_warm_up():
    s = lm({"baseline": BASELINE, "no_warmup": times(1.5), "post_ln+no_warmup": times(1.2), "post_ln": NOISY})
    found = claim.judge(evidence(s))
    # worse than the baseline (warm-up 10) but better than Pre-LN without warm-up: the pair at 0 decides
    assert s.family["no_warmup"] == "warm-up" and found.verdict == "disagrees"
    assert "Post-LN without warm-up is" in found.cause and "better, not worse" in found.cause
    assert "shown, not judged" in found.sentence


def test_post_ln_is_judged_at_the_sources_depth_with_the_profiles_depth_beside_it():
    # at 4 layers Post-LN without warm-up is better than Pre-LN without (the reference's sign); at 6 it collapses
    s = lm(
        {
            "baseline": BASELINE,
            "no_warmup": BASELINE,
            "post_ln+no_warmup": times(0.94),
            "depth6": BASELINE,
            "no_warmup+depth6": BASELINE,
            "post_ln+no_warmup+depth6": COLLAPSED,
            "post_ln+long_warmup+depth6": NOISY,
        }
    )
    assert s.arm["post_ln+no_warmup+depth6"] == "6 layers" and s.reference["no_warmup+depth6"] == "depth6"
    found = claim.judge(evidence(s))
    assert found.verdict == "agrees" and "At 6 layers (the source's depth, judged)" in found.sentence
    assert "4 layers: `post_ln+no_warmup`" in found.sentence  # the trend in depth, shown
    assert found.headline.label == "post_ln+no_warmup+depth6 Δ ppl vs no_warmup+depth6"
    # without the 6-layer arms the profile's depth decides, and says the source's did not run
    s = lm({"baseline": BASELINE, "no_warmup": BASELINE, "post_ln+no_warmup": times(0.94)})
    found = claim.judge(evidence(s))
    assert found.verdict == "disagrees" and "the source's 6 did not" in found.sentence


def test_the_headline_is_the_part_its_verdict_turns_on():
    # Post-LN without warm-up on the wrong side of 0 decides, not the long warm-up's part
    s = lm(
        {
            "baseline": BASELINE,
            "no_warmup": BASELINE,
            "post_ln+no_warmup": [4.9, 5.2, 4.7],
            "post_ln+long_warmup": [4.95, 5.0, 4.8],
        }
    )
    assert claim.judge(evidence(s)).headline.label.startswith("post_ln+no_warmup Δ")


def test_a_collapsed_post_ln_run_is_the_trainability_claims_outcome_not_left_out():
    # post_ln stays at the unigram level (ppl 21.1, 'did not learn'); with the long warm-up it trains like Pre-LN
    ev = prepare(
        lm_records(
            {
                "baseline": BASELINE,
                "post_ln": COLLAPSED,
                "post_ln+long_warmup": NOISY,
                "gqa2": CLOSE,
                "mqa": times(1.03),
            }
        )
    )
    post = claim.judge(ev)
    assert post.verdict == "agrees" and "did not learn" not in post.sentence
    assert post.estimates[0].value == pytest.approx(100 * (21.1 / 5.0 - 1), rel=0.02)
    assert gqa_keeps_mha_quality.judge(ev).verdict == "agrees"
    # the quality claims still leave out a model that did not learn
    ev = prepare(lm_records({"baseline": BASELINE, "post_ln": COLLAPSED, "gqa2": NOISY, "mqa": COLLAPSED}))
    grouping = gqa_keeps_mha_quality.judge(ev)
    assert grouping.verdict == "inconclusive" and "did not learn" in grouping.sentence
    assert claim.judge(ev).verdict == "agrees"


def test_the_smallest_effect_is_declared_as_this_projects_choice():
    assert claim.CLAIM.smallest_effect == 10.0 and "this project's choice" in claim.CLAIM.smallest_effect_source


def test_the_two_part_rule_holds_its_size_at_the_null():
    import numpy as np

    from harness.paired import all_hold, paired

    # Post-LN no worse than Pre-LN and the long warm-up no help: both parts null
    draws = 3000
    whole = 0.05 + 3 * (0.05 * 0.95 / draws) ** 0.5
    rng = np.random.default_rng(21)
    seeds = range(3)
    words = []
    for _ in range(draws):
        pre, post, longer = (5.0 * np.exp(rng.normal(0.0, 0.05, 3)) for _ in range(3))
        worse = paired("w", dict(zip(seeds, post)), dict(zip(seeds, pre)), relative=True)
        helped = paired("h", dict(zip(seeds, longer)), dict(zip(seeds, post)), relative=True)
        words.append(all_hold(claim.part_verdicts(worse, helped)))
    agree, disagree = words.count("agrees") / draws, words.count("disagrees") / draws
    assert disagree <= whole and agree + disagree <= whole, (agree, disagree)
