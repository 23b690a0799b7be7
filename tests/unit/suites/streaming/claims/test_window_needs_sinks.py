"""Window attention fails without its sinks and the sinks restore it, paired over trained models, where a sink forms."""

from suites.streaming.claims import window_needs_sinks as claim
from tests.unit.suites.streaming.claims._records import FAILING, SAME, judged, records


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_a_sink_claim_is_not_testable_where_no_sink_forms():
    found = judged(claim, records(SAME, [0.006, 0.013, 0.007]))
    assert found.verdict == "not testable here" and "draws at most 0.0130 of a layer's attention" in found.cause
    assert found.headline.label.startswith("first slot's attention share") and found.boundary == 2 / 64
    found = judged(claim, records(SAME, [0.01, 0.4, 0.6]))  # a sink formed, yet the window did not fail
    assert found.verdict == "disagrees" and "a loss within +10%" in found.cause
    found = judged(claim, records(FAILING, [0.01, 0.4, 0.6]))
    assert found.verdict == "agrees" and found.seeds == 3 and found.pairs == "seed"  # +50%: n counts trained models


def test_streams_of_one_model_are_not_replicates_of_the_claim():
    # per model +0.02%, +0.64%, +0.04%: every one of 48 streams loses on eviction, yet over the 3 trained models the
    # loss's interval includes 0
    found = judged(claim, records((1.0002, 1.0064, 1.0004), [0.01, 0.4, 0.6]))
    fails = found.estimates[0]
    assert fails.seeds == 3 and fails.low < 0 < fails.high
    assert "streams" not in fails.label


def test_the_sink_token_models_streams_are_not_mixed_in():
    plain = records(SAME, [0.006, 0.013, 0.007])  # the vanilla model does not need its first tokens
    token = records(FAILING, [0.01, 0.5, 0.7], variant="rope+sink_token", sink_token=True)
    assert judged(claim, plain, token).verdict == "not testable here"
