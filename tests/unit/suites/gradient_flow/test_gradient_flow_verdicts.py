"""gradient_flow's verdicts on made-up records: contiguous lags, paired over seeds, a cause when not agreeing."""

import pandas as pd
import pytest

from suites.gradient_flow import verdicts as flow
from suites.gradient_flow.tables import longest_by_seed, longest_contiguous

SETTINGS = {"lags": [5, 10, 20, 50, 100], "learned_accuracy": 0.9, "alphabet": 8}


def _lag_records(acc_by_variant_seed):
    """copy_accuracy records: {(variant, seed): [accuracy per lag of SETTINGS, None = diverged]}."""
    rows = []
    for (variant, seed), accs in acc_by_variant_seed.items():
        for lag, acc in zip(SETTINGS["lags"], accs):
            rows.append(
                {
                    "metric": "copy_accuracy",
                    "variant": variant,
                    "seed": seed,
                    "x": float(lag),
                    "value": acc,
                    "status": "ok" if acc is not None else "diverged",
                }
            )
    return pd.DataFrame(rows)


def test_the_longest_lag_learned_is_the_contiguous_run():
    # learned at 5, failed at 10 and 20, lucky at 50 and 100: learned up to 5, not 100
    assert longest_contiguous({5.0: 1.0, 10.0: 0.12, 20.0: 0.13, 50.0: 1.0, 100.0: 1.0}, SETTINGS["lags"], 0.9) == 5
    assert longest_contiguous({5.0: 0.5, 10.0: 1.0}, SETTINGS["lags"], 0.9) == 0
    assert longest_contiguous({5.0: 1.0, 10.0: 1.0, 20.0: 1.0, 50.0: 1.0, 100.0: 1.0}, SETTINGS["lags"], 0.9) == 100
    # a diverged (or missing) lag is not learned
    assert longest_contiguous({5.0: 1.0, 20.0: 1.0}, SETTINGS["lags"], 0.9) == 5
    df = _lag_records({("rnn", 0): [1.0, 0.1, 0.1, 1.0, 1.0], ("rnn", 1): [1.0, 1.0, None, 1.0, 1.0]})
    assert longest_by_seed(df, "rnn", SETTINGS) == {0: 5.0, 1: 10.0}


def test_a_lucky_long_lag_no_longer_beats_the_lstm():
    """The reference's rnn learned lag 100 on seeds that failed lag 10 or 20: its run stops there."""
    df = _lag_records(
        {
            ("rnn", 0): [1.0, 0.12, 0.12, 1.0, 1.0],
            ("rnn", 1): [1.0, 1.0, 0.12, 1.0, 1.0],
            ("rnn", 2): [1.0, 0.12, 0.12, None, None],
            **{("lstm", s): [1.0, 1.0, 1.0, 1.0, 1.0] for s in (0, 1, 2)},
        }
    )
    longest = {v: longest_by_seed(df, v, SETTINGS) for v in ("rnn", "lstm")}
    assert longest["rnn"] == {0: 5.0, 1: 10.0, 2: 5.0}
    found = flow._lags(longest, 100)
    assert found.verdict == "agrees" and not found.cause


def test_the_lag_verdict_is_paired_not_a_comparison_of_mean_maxima():
    # rnn [100, 100, 10] -> mean 70 against lstm [20, 20, 20]: a comparison of means says "disagrees"; the paired
    # difference's interval includes 0, so it is inconclusive, with its cause and what more seeds could do
    found = flow._lags({"rnn": {0: 100, 1: 100, 2: 10}, "lstm": {0: 20, 1: 20, 2: 20}}, 100)
    assert found.verdict == "inconclusive" and "does not count" in found.cause and "seeds" in found.cause
    # every seed of the tanh RNN beyond every seed of the LSTM, yet the paired interval [-136, +36] includes 0:
    # separate ranges alone do not count
    found = flow._lags({"rnn": {0: 50, 1: 50, 2: 100}, "lstm": {0: 20, 1: 20, 2: 10}}, 100)
    assert found.verdict == "inconclusive"
    # the paired interval [-65, -8] excludes 0: disagrees
    found = flow._lags({"rnn": {0: 50, 1: 50, 2: 60}, "lstm": {0: 20, 1: 20, 2: 10}}, 100)
    assert found.verdict == "disagrees" and found.cause and found.boundary == 0.0
    # both at the sweep's longest lag: no difference to see
    found = flow._lags({"rnn": {0: 100, 1: 100}, "lstm": {0: 100, 1: 100}}, 100)
    assert found.verdict == "inconclusive" and "longest lag 100" in found.cause
    assert flow._lags({"rnn": {0: 50}}, 100).verdict == "not run"


def test_each_gated_cell_must_beat_the_tanh_rnn():
    rnn = {0: 5, 1: 5, 2: 5}  # gru - rnn 95, 45, 95: paired interval clear of 0
    assert (
        flow._lags({"rnn": rnn, "lstm": {0: 100, 1: 100, 2: 100}, "gru": {0: 100, 1: 50, 2: 100}}, 100).verdict
        == "agrees"
    )
    mixed = flow._lags({"rnn": rnn, "lstm": {0: 100, 1: 100, 2: 100}, "gru": {0: 5, 1: 20, 2: 5}}, 100)
    assert mixed.verdict == "inconclusive" and "gru" in mixed.cause
    assert "gru" in mixed.headline.label  # the headline is the undecided cell, not the one that agrees
    # a conjunction: one gated cell reversed on the paired test refutes it, whatever the other does
    reversed_gru = flow._lags({"rnn": rnn, "lstm": {0: 100, 1: 100, 2: 100}, "gru": {0: 0, 1: 1, 2: 0}}, 100)
    assert reversed_gru.verdict == "disagrees" and "gru" in reversed_gru.headline.label


def test_the_checks_at_initialisation_are_checks():
    """The radius bound and attention's direct paths hold at initialisation by construction: scored as checks."""
    assert flow.RADIUS.kind == flow.REACH.kind == "check"
    assert flow.LAGS.kind == flow.CLIPPING.kind == "finding"


def _sweep(log_ratio_by_radius, seeds=(0, 1, 2), cell="rnn", d=50):
    """Spectral-radius sweep rows whose gradient ratio at distance d is 10 ** (log ratio + seed noise)."""
    return pd.DataFrame(
        [
            {"variant": cell, "seed": s, "radius": r, "x": d, "value": 10.0 ** (lr + 0.1 * s)}
            for r, lr in log_ratio_by_radius.items()
            for s in seeds
        ]
    )


def test_the_radius_verdict_is_per_seed_against_zero():
    assert flow._radius(_sweep({0.5: -15, 0.9: -3, 1.0: -1.5, 1.5: 0.4, 2.0: 2.8})).verdict == "agrees"
    grows_early = flow._radius(_sweep({0.5: -15, 0.9: 1.0, 1.5: 2.0}))
    assert grows_early.verdict == "disagrees" and "radius 0.9" in grows_early.cause
    no_growth = flow._radius(_sweep({0.5: -15, 0.9: -3, 1.5: -0.5}))
    assert no_growth.verdict == "inconclusive" and "no radius above 1" in no_growth.cause
    # one seed: no calibrated margin, no verdict
    assert flow._radius(_sweep({0.5: -15, 1.5: 2.0}, seeds=(0,))).verdict == "inconclusive"
    # the headline is the part the verdict turns on: the radius above 1 that does not grow
    assert "radius 1.5" in no_growth.headline.label and no_growth.boundary == 0.0
    assert flow._radius(_sweep({})[:0]).verdict == "not run"


def test_the_reach_verdict_pairs_the_transformer_with_the_tanh_rnn():
    def flow_rows(tr, rnn):
        return pd.DataFrame(
            [
                {"variant": v, "phase": "init", "seed": s, "x": 20, "value": 10.0 ** (val + 0.2 * s)}
                for v, val in (("transformer", tr), ("rnn", rnn))
                for s in (0, 1, 2)
            ]
        )

    assert flow._reach_finding(flow_rows(0.0, -4.7)).verdict == "agrees"
    worse = flow._reach_finding(flow_rows(-5.0, -1.0))
    assert worse.verdict == "disagrees" and worse.cause


def _clip_records(diverged):
    """clip_final_loss records: {(arm, seed): diverged runs of 3}; arm 'none' is unclipped."""
    rows = []
    for (arm, seed), bad in diverged.items():
        for i in range(3):
            rows.append(
                {
                    "metric": "clip_final_loss",
                    "seed": seed,
                    "x": 0.1 * (i + 1),
                    "extra": {"clipping": arm},
                    "status": "diverged" if i < bad else "ok",
                    "value": None if i < bad else 0.5,
                    "profile_settings": SETTINGS,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "clipped, unclipped, verdict",
    [
        ((0, 0, 1), (2, 3, 3), "agrees"),  # fewer divergences on every seed, paired interval clear of 0
        ((0, 0, 1), (2, 3, 2), "inconclusive"),  # fewer on every seed, but the paired interval [-4.5, +0.5] includes 0
        ((1, 1, 1), (1, 1, 1), "inconclusive"),  # no difference
        ((2, 0, 0), (0, 1, 1), "inconclusive"),  # the paired interval includes 0
        ((3, 3, 2), (0, 1, 0), "disagrees"),  # clipping diverges more on every seed
    ],
)
def test_the_clipping_verdict_pairs_divergences_over_seeds(clipped, unclipped, verdict):
    counts = flow.diverged_by_seed(
        _clip_records(
            {**{("1", s): c for s, c in enumerate(clipped)}, **{("none", s): u for s, u in enumerate(unclipped)}}
        )
    )
    found = flow._clipping(counts, 1.04)
    assert found.verdict == verdict
    assert (found.cause != "") == (verdict != "agrees")
    assert flow._clipping({}, 1.04).verdict == "not run"
