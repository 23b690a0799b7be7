"""Gated RNNs against the tanh RNN: contiguous lags, paired over seeds, a cause when not agreeing."""

import pytest

from suites.gradient_flow.claims import gated_rnn_longer_lags as claim
from suites.gradient_flow.tables import longest_by_seed
from tests.unit.suites.gradient_flow.claims._records import SETTINGS, lag_records, lags


def _judge(longest, sweep_max=100):
    return claim.judge(lags(longest, sweep_max))


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol


def test_a_lucky_long_lag_no_longer_beats_the_lstm():
    """The reference's rnn learned lag 100 on seeds that failed lag 10 or 20: its run stops there."""
    df = lag_records(
        {
            ("rnn", 0): [1.0, 0.12, 0.12, 1.0, 1.0],
            ("rnn", 1): [1.0, 1.0, 0.12, 1.0, 1.0],
            ("rnn", 2): [1.0, 0.12, 0.12, None, None],
            **{("lstm", s): [1.0, 1.0, 1.0, 1.0, 1.0] for s in (0, 1, 2)},
        }
    )
    longest = {v: longest_by_seed(df, v, SETTINGS) for v in ("rnn", "lstm")}
    assert longest["rnn"] == {0: 5.0, 1: 10.0, 2: 5.0}
    found = _judge(longest)
    assert found.verdict == "agrees" and not found.cause


def test_the_lag_verdict_is_paired_not_a_comparison_of_mean_maxima():
    # rnn [100, 100, 10] -> mean 70 against lstm [20, 20, 20]: a comparison of means says "disagrees"; the paired
    # difference's interval includes 0, so it is inconclusive, with its cause and what more seeds could do
    found = _judge({"rnn": {0: 100, 1: 100, 2: 10}, "lstm": {0: 20, 1: 20, 2: 20}})
    assert found.verdict == "inconclusive" and "does not count" in found.cause and "seeds" in found.cause
    # every seed of the tanh RNN beyond every seed of the LSTM, yet the paired interval [-136, +36] includes 0:
    # separate ranges alone do not count
    found = _judge({"rnn": {0: 50, 1: 50, 2: 100}, "lstm": {0: 20, 1: 20, 2: 10}})
    assert found.verdict == "inconclusive"
    # the paired interval [-65, -8] excludes 0: disagrees
    found = _judge({"rnn": {0: 50, 1: 50, 2: 60}, "lstm": {0: 20, 1: 20, 2: 10}})
    assert found.verdict == "disagrees" and found.cause and found.boundary == 0.0
    # both at the sweep's longest lag: no difference to see
    found = _judge({"rnn": {0: 100, 1: 100}, "lstm": {0: 100, 1: 100}})
    assert found.verdict == "inconclusive" and "longest lag 100" in found.cause
    assert _judge({"rnn": {0: 50}}).verdict == "not run"


def test_each_gated_cell_must_beat_the_tanh_rnn():
    rnn = {0: 5, 1: 5, 2: 5}  # gru - rnn 95, 45, 95: paired interval clear of 0
    assert _judge({"rnn": rnn, "lstm": {0: 100, 1: 100, 2: 100}, "gru": {0: 100, 1: 50, 2: 100}}).verdict == "agrees"
    mixed = _judge({"rnn": rnn, "lstm": {0: 100, 1: 100, 2: 100}, "gru": {0: 5, 1: 20, 2: 5}})
    assert mixed.verdict == "inconclusive" and "gru" in mixed.cause
    assert "gru" in mixed.headline.label  # the headline is the undecided cell, not the one that agrees
    # a conjunction: one gated cell reversed on the paired test refutes it, whatever the other does
    reversed_gru = _judge({"rnn": rnn, "lstm": {0: 100, 1: 100, 2: 100}, "gru": {0: 0, 1: 1, 2: 0}})
    assert reversed_gru.verdict == "disagrees" and "gru" in reversed_gru.headline.label


def test_the_reference_lag_verdict_keeps_its_bounds_and_shows_ranges():
    # the reference's per-seed longest lags (rnn 5, 5, 5; lstm 100, 50, 100; gru 100, 100, 100)
    longest = {"rnn": {0: 5, 1: 5, 2: 5}, "lstm": {0: 100, 1: 50, 2: 100}, "gru": {0: 100, 1: 100, 2: 100}}
    found = _judge(longest)
    assert found.verdict == "agrees"
    lstm_gap = found.estimates[0]
    assert lstm_gap.high == 100 and lstm_gap.low == pytest.approx(6.62, abs=0.01)  # was [6.62, 150]
    by_label = {e.label: e for e in found.estimates}
    assert (
        by_label["longest lag learned, lstm"].text() == "longest lag learned, lstm 83.3 steps (range 50-100, 3 seeds)"
    )
    assert by_label["longest lag learned, rnn"].interval_text() == "all 5"
