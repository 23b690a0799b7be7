"""Sutskever et al.'s reversed source: reversed minus forward BLEU on the longest bucket, paired over seeds,
directional; the encoder table beside it shows the share of attention's gain each encoder recovers."""

from suites.translation.claims import reversed_source_long_sentences as claim
from suites.translation.encoders import encoder_section
from tests.unit.suites.translation.claims._records import LABELS, REVERSAL_SPECS, evidence, with_test_bleu


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def test_a_reversed_source_that_leads_on_long_sentences_agrees():
    ok = with_test_bleu(
        {
            "lstm": [(20, 6), (21, 7), (19, 5)],
            "lstm+reversed": [(25, 12), (24, 14), (26, 11)],
            "lstm+bidirectional": [(22, 8), (22, 9), (21, 8)],
            "lstm+bahdanau+additive": [(30, 29), (31, 30), (29, 28)],
        }
    )
    found = claim.judge(evidence(ok, REVERSAL_SPECS, LABELS))
    assert found.verdict == "agrees" and abs(found.estimates[0].value - 19 / 3) < 1e-9
    section = "\n".join(encoder_section(ok, REVERSAL_SPECS, LABELS))
    assert "| lstm+reversed " in section and "28%" in section  # (12.33 - 6) / (29 - 6)


def test_a_reversed_source_inside_the_seed_noise_is_inconclusive_and_one_that_trails_disagrees():
    noisy = with_test_bleu({"lstm": [(20, 6), (21, 12), (19, 5)], "lstm+reversed": [(20, 9), (21, 7), (19, 8)]})
    assert claim.judge(evidence(noisy, REVERSAL_SPECS, LABELS)).verdict == "inconclusive"
    worse = with_test_bleu({"lstm": [(20, 9), (21, 10), (19, 8)], "lstm+reversed": [(20, 6), (21, 7), (19, 5)]})
    found = claim.judge(evidence(worse, REVERSAL_SPECS, LABELS))
    assert found.verdict == "disagrees" and "forward source" in found.cause


def test_without_both_source_orders_the_reversal_claim_is_not_run():
    ok = with_test_bleu(
        {"lstm+reversed": [(20, 19), (21, 20), (19, 18)], "lstm+bahdanau+additive": [(22, 21), (23, 22), (21, 20)]}
    )
    assert claim.judge(evidence(ok, REVERSAL_SPECS, LABELS)).verdict == "not run"
