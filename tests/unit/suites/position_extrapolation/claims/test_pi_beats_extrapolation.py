"""PI (s = length / L) against plain extrapolation at 2L and 4L: lower at each, paired over seeds; when it is not,
the cause cites what interpolation costs at L."""

from suites.position_extrapolation.claims import pi_beats_extrapolation as claim
from suites.position_extrapolation.claims._shared import prepare
from tests.unit.suites.position_extrapolation.claims._records import PUBLISHED_SHAPE, records, unlearned


def test_it_is_chen_et_als_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and claim.CLAIM.source.startswith("Chen et al. 2023")


def test_the_published_shape_agrees():
    assert claim.judge(prepare(records(PUBLISHED_SHAPE))).verdict == "agrees"


def test_pi_worse_than_plain_extrapolation_is_its_own_finding_with_the_blur_at_l_as_its_cause():
    inverted = dict(PUBLISHED_SHAPE, **{"rope+pi": ("pi", "auto", [4.2, 15.0, 35.0, 60.0])})
    inversion = claim.judge(prepare(records(inverted, seeds=(0, 1, 2))))
    assert inversion.verdict == "disagrees" and "at 2L" in inversion.cause and "rope+pi2" in inversion.cause
    assert inversion.boundary == 0 and "ppl(2L)" in inversion.headline.label


def test_no_verdict_when_plain_rope_did_not_learn_and_none_without_pi_following_the_length():
    found = unlearned(claim.judge)
    assert found.verdict == "inconclusive" and "did not learn" in found.sentence
    fixed_only = {k: v for k, v in PUBLISHED_SHAPE.items() if k != "rope+pi"}
    assert claim.judge(prepare(records(fixed_only))).verdict == "not run"


def test_pi_beats_extrapolation_declares_its_smallest_effect():
    from suites.position_extrapolation.claims import pi_beats_extrapolation

    c = pi_beats_extrapolation.CLAIM
    assert c.smallest_effect is not None and c.smallest_effect > 0 and c.smallest_effect_source


def test_a_part_refuting_alone_but_not_at_the_conjunctions_level_is_named_and_the_strongest_refutation_decides():
    from harness.paired import Verdict, all_hold
    from suites.position_extrapolation.claims._shared import deciding_part, short_of_holm

    alone = [Verdict("disagrees", 0.98, 0.02), Verdict("inconclusive", 0.4, 0.6)]
    word = all_hold(alone)
    assert word == "inconclusive" and "Holm" in short_of_holm(word, alone)
    assert deciding_part(word, alone) == 0  # the first part that does not agree
    both = [Verdict("disagrees", 0.99, 0.01), Verdict("disagrees", 0.999, 0.001)]
    assert all_hold(both) == "disagrees" and deciding_part("disagrees", both) == 1
    assert short_of_holm("disagrees", both) == ""
