"""Fixed-offset heads, stated per position encoding: a family has them when every seed's model has one; the query
itself (d = 0) does not count."""

from suites.attention_heads.claims import offset_heads as claim
from tests.unit.suites.attention_heads.claims._records import FALLS, judged, made_up_records


def test_it_is_a_finding_with_its_untested_rule_declared():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and "every seed" in claim.CLAIM.untested_rule


def test_it_disagrees_without_specialists_and_leaves_out_models_that_did_not_learn():
    flat = (1.5, 1.5, 1.5)
    found = judged(made_up_records("rope", 0, False, flat), made_up_records("alibi", 0, True, FALLS, loss=3.0))
    offset = found["offset_heads"]
    assert offset.verdict == "disagrees" and offset.cause
    assert "`alibi` (did not learn" in offset.sentence
    assert judged(made_up_records("rope", 0, True, flat, loss=3.0))["offset_heads"].verdict == "not run"


def test_a_head_on_the_query_itself_is_not_a_fixed_offset_head():
    """Offset 0 is the current token, which Clark et al. find most heads ignore; fixed offsets are d >= 1."""
    on_self = judged(*(made_up_records("rope", s, True, FALLS, offset=0) for s in (0, 1)))["offset_heads"]
    assert on_self.verdict == "disagrees" and "d = 0, does not count" in on_self.sentence
    two_back = judged(*(made_up_records("rope", s, True, FALLS, offset=2) for s in (0, 1)))["offset_heads"]
    assert two_back.verdict == "agrees" and "at d = 2" in two_back.sentence


def test_fixed_offset_heads_are_stated_per_family():
    """One family with such a head in every seed is enough for 'some heads'; a family with it in one seed of two is not."""
    jobs = [made_up_records("rope", s, True, FALLS) for s in (0, 1)]
    jobs += [made_up_records(v, s, False, FALLS) for v in ("alibi", "learned", "sinusoidal") for s in (0, 1)]
    found = judged(*jobs)["offset_heads"]
    assert found.verdict == "agrees" and "`rope`" in found.sentence and "have none" in found.sentence
    once = [made_up_records("rope", 0, True, FALLS), made_up_records("rope", 1, False, FALLS)]
    assert judged(*once)["offset_heads"].verdict == "inconclusive"
