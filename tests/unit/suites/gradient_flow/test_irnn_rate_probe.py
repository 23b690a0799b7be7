"""The learning-rate probe's figure: the longest lag each Elman arm learns at each shared rate."""

import pandas as pd

from suites.gradient_flow import probe_figures

LAGS = [5, 10, 20]


def _rows(lr, variant, seed, accuracies):
    settings = {"lr": lr, "lags": LAGS, "learned_accuracy": 0.9}
    return [
        dict(variant=variant, metric="copy_accuracy", x=float(lag), seed=seed, value=a, status="ok",
             profile_settings=settings)
        for lag, a in zip(LAGS, accuracies)
    ]  # fmt: skip


class FakeProbes:
    def __init__(self, rows):
        self.frame = pd.DataFrame(rows)

    def records(self, name, suite):
        return self.frame


def test_each_rate_gives_each_arms_mean_longest_lag_and_its_range_fastest_rate_first():
    rows = (
        _rows(1e-3, "irnn", 0, [1, 1, 1]) + _rows(1e-3, "irnn", 1, [1, 1, 0.2]) + _rows(1e-3, "rnn_relu", 0, [1, 0, 1])
    )
    rows += _rows(3e-3, "irnn", 0, [0.5, 1, 1]) + _rows(3e-3, "rnn_relu", 0, [1, 1, 1])
    text = probe_figures.by_rate(FakeProbes(rows))
    assert text == (
        "the longest lag learned is irnn 0 and rnn_relu 20 steps at lr 0.003; "
        "irnn 15 (range 10-20) and rnn_relu 5 steps at lr 0.001"
    )
