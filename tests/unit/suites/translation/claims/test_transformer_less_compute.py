"""BLEU against training compute (Vaswani et al. 2017, Table 2): where a curve first reaches a BLEU, and the paired
verdict on the FLOPs ratio."""

import pandas as pd
import pytest

from suites.translation.claims import transformer_less_compute as claim
from suites.translation.compute import compute_section, first_reach
from tests.unit.suites.translation.claims._records import evidence

SPECS = {
    "lstm+luong+dot": {"family": "rnn_seq2seq", "scoring": "dot", "decoder": "luong", "cell": "lstm"},
    "transformer": {"family": "transformer_seq2seq"},
}


def _judge(records):
    return claim.judge(evidence(records, SPECS, {}))


def test_it_is_a_finding_with_its_smallest_effect_declared():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol
    assert claim.CLAIM.smallest_effect == 50.0 and "this project's choice" in claim.CLAIM.smallest_effect_source


def test_a_curve_is_read_linearly_between_its_points_and_a_miss_is_a_lower_bound():
    curve = [(100.0, 2.0, 10.0), (200.0, 6.0, 20.0)]
    assert first_reach(curve, 4.0) == (150.0, 15.0, True)
    assert first_reach(curve, 1.0) == (50.0, 5.0, True)  # from step 0 at BLEU 0
    assert first_reach(curve, 9.0) == (200.0, 20.0, False)


def _records(rnn_final, tr_points, rnn_flops=10.0, tr_flops=20.0):
    """Three seeds; the RNN's curve ends at rnn_final[seed] after 100 steps, the Transformer's is tr_points."""
    rows = []
    for seed in range(3):
        rows += [
            {
                "variant": "lstm+luong+dot",
                "metric": "train_flops",
                "seed": seed,
                "x": None,
                "value": 1000 * rnn_flops,
                "extra": {"flops_per_step": rnn_flops},
                "status": "ok",
            },
            {
                "variant": "transformer",
                "metric": "train_flops",
                "seed": seed,
                "x": None,
                "value": 1000 * tr_flops,
                "extra": {"flops_per_step": tr_flops},
                "status": "ok",
            },
            {
                "variant": "lstm+luong+dot",
                "metric": "bleu_during_training",
                "seed": seed,
                "x": 100.0,
                "value": rnn_final[seed],
                "extra": {"train_s": 50.0, "sentences": 200},
                "status": "ok",
            },
        ]
        rows += [
            {
                "variant": "transformer",
                "metric": "bleu_during_training",
                "seed": seed,
                "x": step,
                "value": bleu,
                "extra": {"train_s": step / 2, "sentences": 200},
                "status": "ok",
            }
            for step, bleu in tr_points[seed]
        ]
    return pd.DataFrame(rows)


def test_a_transformer_that_reaches_the_rnns_bleu_early_agrees():
    # reaches 4 BLEU at step 20, 25, 30: 20 x 20 = 400 FLOPs against the RNN's 100 x 10 = 1000
    points = [[(40.0, 8.0)], [(50.0, 8.0)], [(60.0, 8.0)]]
    found = _judge(_records([4.0, 4.0, 4.0], points))
    assert found.verdict == "agrees"
    assert found.estimates[0].value == pytest.approx(-50.0)  # the mean per-seed change of 0.4x, 0.5x, 0.6x
    section = "\n".join(compute_section(_records([4.0, 4.0, 4.0], points), SPECS))
    assert "0.40x" in section and "FLOPs ratio" in section


def test_a_transformer_that_needs_more_compute_disagrees_and_a_miss_is_said():
    points = [[(100.0, 2.0)], [(100.0, 3.0)], [(100.0, 2.5)]]  # never reaches 4: its 2000 FLOPs stand in
    found = _judge(_records([4.0, 4.0, 4.0], points))
    assert found.verdict == "disagrees" and "never does" in found.sentence


def test_without_curves_the_claim_is_not_run():
    records = _records([4.0, 4.0, 4.0], [[(40.0, 8.0)]] * 3)
    assert _judge(records[records.metric == "train_flops"]).verdict == "not run"
