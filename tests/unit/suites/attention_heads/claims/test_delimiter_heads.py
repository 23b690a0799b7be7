"""Delimiter heads, stated per position encoding: a head counts when its delimiter share is at least 50% and twice
what even attention would put there; a family has them when its count exceeds the shuffled-position null's (whose
delimiter share averages the even share), paired over seeds; the claim agrees when some family has them."""

from suites.attention_heads import null
from suites.attention_heads.claims import delimiter_heads as claim
from suites.attention_heads.claims._shared import prepare
from tests.unit.suites.attention_heads.claims._records import FALLS, WINDOWS, T, frame, judged, made_up_records


def test_it_is_a_finding_with_a_null_its_smallest_effect_and_precondition():
    c = claim.CLAIM
    assert c.kind == "finding" and "shuffled" in c.protocol
    assert c.smallest_effect == 1.0 and "this project's choice" in c.smallest_effect_source
    assert "shuffled key positions" in c.precondition


def test_it_agrees_with_a_delimiter_head_in_every_seed_and_disagrees_without():
    found = judged(*(made_up_records("rope", s, True, FALLS, specialists=2) for s in (0, 1)))["delimiter_heads"]
    assert found.verdict == "agrees" and found.headline.value == 2.0 and "null's count is 0" in found.sentence
    flat = (1.5, 1.5, 1.5)
    none = judged(*(made_up_records(v, s, False, flat) for v in ("rope", "alibi") for s in (0, 1)))
    assert none["delimiter_heads"].verdict == "disagrees" and none["delimiter_heads"].cause
    assert judged(made_up_records("rope", 0, True, flat, loss=3.0))["delimiter_heads"].verdict == "not run"


def test_a_delimiter_head_must_beat_twice_the_even_share():
    df = frame(*(made_up_records("rope", s, True, (2.0, 1.5, 1.0)) for s in (0, 1)))
    df.loc[df.metric == "delimiter_base", "value"] = 0.45  # 0.8 < 2 x 0.45
    assert claim.judge(prepare(df)).verdict == "disagrees"


def test_the_null_bound_sits_above_the_even_share_and_below_the_bar():
    bound = null.delimiter_bound(0.2, WINDOWS, T, 12)
    assert 0.2 < bound < 0.5
    assert null.null_count(bound, 0.5, 12) == 0 and null.null_count(bound, bound, 12) == 12
    assert null.delimiter_bound(0.2, 4, T, 12) > 0.5  # 28 queries: a shuffled head could reach the bar
