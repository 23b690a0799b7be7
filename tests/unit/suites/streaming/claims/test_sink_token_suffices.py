"""A model trained with a dedicated sink token streams with only that token kept: judged on that model alone, in a
setting where a sink forms, read on the models trained without the token."""

from suites.streaming.claims import sink_token_suffices as claim
from tests.unit.suites.streaming.claims._records import FAILING, SAME, judged, records


def test_it_is_a_finding_with_a_precondition_about_the_setting():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition
    assert "without a sink token" in claim.CLAIM.precondition
    assert claim.CLAIM.smallest_effect == claim.RESTORES and "rope" in claim.CLAIM.variants


def test_the_sink_token_claim_judges_the_sink_token_model_alone():
    plain = records(SAME, [0.01, 0.4, 0.6])  # a sink forms in this setting
    token = records(FAILING, [0.01, 0.5, 0.7], variant="rope+sink_token", sink_token=True)
    assert judged(claim, plain, token).verdict == "agrees"  # evicting the token fails; keeping it restores
    assert judged(claim, plain).verdict == "not run"


def test_the_precondition_is_the_setting_not_the_tokens_outcome():
    # the old precondition read the sink token's own share: a token that did not become a sink made the claim "not
    # testable", hiding the outcome the claim predicts; now it reads the models trained without the token
    plain = records(SAME, [0.01, 0.4, 0.6])
    token = records(SAME, [0.006, 0.013, 0.007], variant="rope+sink_token", sink_token=True)
    found = judged(claim, plain, token)
    assert found.verdict == "disagrees" and "a loss within +10%" in found.cause  # the token did not take the role
    # no sink forms without the token: not testable, whatever the token's models show (here: the claim's outcome)
    no_sink = records(SAME, [0.006, 0.013, 0.007])
    token = records(FAILING, [0.01, 0.5, 0.7], variant="rope+sink_token", sink_token=True)
    found = judged(claim, no_sink, token)
    assert found.verdict == "not testable here" and "trained without a sink token" in found.cause
    assert "draws at most 0.0130" in found.cause and found.boundary == 2 / 64
