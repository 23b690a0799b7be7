"""Dense attention fails past the training length: the full cache against recomputation from 2 L on, paired over the
trained models, failing beyond +10%."""

from suites.streaming.claims import dense_fails_past_training as claim
from tests.unit.suites.streaming.claims._records import SAME, judged, past_training, records


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def test_dense_attention_fails_when_its_whole_interval_clears_the_margin():
    streamed = records(SAME, [0.01, 0.4, 0.6])
    found = judged(claim, streamed, past_training([30.0, 32.0, 31.0], [6.0, 6.1, 6.05]))
    assert found.verdict == "agrees" and found.boundary == claim.FAILS and found.seeds == 3
    found = judged(claim, streamed, past_training([6.1, 6.2, 6.15], [6.0, 6.1, 6.05]))
    assert found.verdict == "disagrees" and f"within +{claim.FAILS:g}%" in found.sentence and found.cause
    found = judged(claim, streamed, past_training([6.0, 9.0, 5.5], [6.0, 6.1, 6.05]))
    assert found.verdict == "inconclusive" and "not a failure that clears" in found.cause


def test_without_streams_or_both_policies_it_is_not_run():
    assert judged(claim, past_training([30.0, 32.0, 31.0], [6.0, 6.1, 6.05])).verdict == "not run"  # nothing streamed
    assert judged(claim, records(SAME, [0.01, 0.4, 0.6])).verdict == "not run"  # no dense records
