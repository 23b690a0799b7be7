"""A model trained with a dedicated sink token streams with only that token kept: judged on that model alone."""

from suites.streaming.claims import sink_token_suffices as claim
from tests.unit.suites.streaming.claims._records import FAILING, SAME, judged, records


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_the_sink_token_claim_judges_the_sink_token_model_alone():
    plain = records(SAME, [0.006, 0.013, 0.007])  # the vanilla model does not need its first tokens
    token = records(FAILING, [0.01, 0.5, 0.7], variant="rope+sink_token", sink_token=True)
    assert judged(claim, plain, token).verdict == "agrees"  # evicting the token fails; keeping it restores
    assert judged(claim, plain).verdict == "not run"
