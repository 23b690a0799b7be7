"""The broadest heads in the lower layers: per family, the lower half's mean entropy above the upper half's, paired
over seeds; every family must show it."""

import pytest

from suites.attention_heads.claims import entropy_by_layer as claim
from tests.unit.suites.attention_heads.claims._records import FALLS, RISES, judged, made_up_records


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and not claim.CLAIM.untested_rule


def test_one_seed_of_flat_entropy_is_inconclusive_and_says_why():
    flat = (1.5, 1.5, 1.5)
    found = judged(made_up_records("rope", 0, False, flat), made_up_records("alibi", 0, True, FALLS, loss=3.0))
    assert found["entropy_by_layer"].verdict == "inconclusive" and found["entropy_by_layer"].cause  # flat, one seed
    assert judged(made_up_records("rope", 0, True, flat, loss=3.0))["entropy_by_layer"].verdict == "not run"


@pytest.mark.parametrize(
    "profiles, verdict",
    [
        ({"rope": FALLS, "alibi": FALLS}, "agrees"),  # broadest heads in the lower layers, as Clark et al.
        ({"rope": RISES, "alibi": RISES}, "disagrees"),  # a systematic change, in the other direction
        ({"rope": FALLS, "alibi": RISES}, "inconclusive"),  # the direction depends on the family
    ],
)
def test_the_entropy_verdict_checks_the_direction(profiles, verdict):
    found = judged(*(made_up_records(v, s, True, by_layer) for v, by_layer in profiles.items() for s in (0, 1)))
    found = found["entropy_by_layer"]
    assert found.verdict == verdict
    assert (found.cause == "") == (verdict == "agrees")
