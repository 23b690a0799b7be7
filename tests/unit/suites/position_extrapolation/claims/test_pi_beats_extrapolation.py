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
