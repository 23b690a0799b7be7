"""gradient_flow's identity/orthogonal initialisation claim on made-up records: each initialisation against its
default-initialised cell, paired over seeds, a conjunction; the LSTM stated beside it."""

import pandas as pd
import pytest

from suites.gradient_flow.claims import gated_rnn_longer_lags
from suites.gradient_flow.claims import init_longer_lags as claim
from suites.gradient_flow.claims._shared import prepare
from suites.gradient_flow.suite import GradientFlow
from tests.unit.suites.gradient_flow.claims._records import SETTINGS, lags

DEFAULTS = {"rnn": {0: 5, 1: 5, 2: 10}, "rnn_relu": {0: 10, 1: 10, 2: 20}, "lstm": {0: 100, 1: 100, 2: 100}}
#: longer than their default cells on every seed by about the same: paired intervals clear of 0 at 3 seeds
LONGER = {"irnn": {0: 50, 1: 50, 2: 50}, "rnn_orthogonal": {0: 20, 1: 20, 2: 20}}


def _judge(longest, sweep_max=100):
    return claim.judge(lags(longest, sweep_max))


def test_both_initialisations_longer_than_their_default_cells_agree_and_the_lstm_is_stated():
    found = _judge({**DEFAULTS, **LONGER})
    assert found.verdict == "agrees" and not found.cause and found.claim.key == "init_longer_lags"
    assert "irnn - rnn_relu" in found.sentence and "rnn_orthogonal - rnn" in found.sentence
    assert "Against the LSTM (not judged): irnn - lstm" in found.sentence
    assert found.boundary == 0.0 and found.seeds == 3


def test_one_initialisation_reversed_refutes_the_conjunction():
    rnn = {0: 20, 1: 20, 2: 30}  # rnn_orthogonal - rnn: -20, -20, -30, a paired interval below 0
    found = _judge({**DEFAULTS, "rnn": rnn, "irnn": LONGER["irnn"], "rnn_orthogonal": {0: 0, 1: 0, 2: 0}})
    assert found.verdict == "disagrees" and "rnn_orthogonal" in found.cause and "the tanh RNN" in found.cause
    assert "rnn_orthogonal" in found.headline.label  # the arm the verdict turns on


def test_an_undecided_arm_leaves_it_inconclusive_with_its_cause():
    found = _judge({**DEFAULTS, "irnn": {0: 100, 1: 5, 2: 50}, "rnn_orthogonal": LONGER["rnn_orthogonal"]})
    assert found.verdict == "inconclusive" and "For irnn" in found.cause and "the ReLU RNN" in found.cause
    # both at the sweep's longest lag: nothing to tell apart
    top = {0: 100, 1: 100}
    found = _judge({"rnn": top, "rnn_orthogonal": top})
    assert found.verdict == "inconclusive" and "longest lag 100" in found.cause


def test_one_arm_alone_is_judged_and_said_so_and_none_is_not_run():
    found = _judge({"rnn_relu": DEFAULTS["rnn_relu"], "irnn": LONGER["irnn"]})
    assert found.verdict == "agrees" and "rests on irnn alone" in found.sentence
    assert _judge({"rnn": DEFAULTS["rnn"], "lstm": DEFAULTS["lstm"]}).verdict == "not run"
    assert _judge({"irnn": {0: 50}}).verdict == "not run"  # no default ReLU RNN to pair with
    assert _judge({}).verdict == "not run"


def test_the_claim_is_a_finding_among_the_suites_claims_in_the_files_order():
    assert claim.CLAIM.kind == "finding"
    assert [c.key for c in GradientFlow().claims].index("init_longer_lags") == 3
    assert set(claim.CLAIM.variants) == {"rnn", "rnn_orthogonal", "rnn_relu", "irnn", "lstm"}


def _accuracy_records(longest_by_variant):
    """copy_accuracy records whose longest contiguous lag learned is the given one per (variant, seed)."""
    rows = []
    for variant, by_seed in longest_by_variant.items():
        for seed, longest in by_seed.items():
            for lag in SETTINGS["lags"]:
                rows.append(
                    {
                        "metric": "copy_accuracy",
                        "variant": variant,
                        "seed": seed,
                        "x": float(lag),
                        "value": 1.0 if lag <= longest else 0.12,
                        "status": "ok",
                        "extra": {},
                        "profile_settings": SETTINGS,
                    }
                )
    return pd.DataFrame(rows)


def test_the_verdict_is_read_from_lag_records():
    ev = prepare(_accuracy_records({**DEFAULTS, **LONGER}))
    assert claim.judge(ev).verdict == "agrees"
    assert gated_rnn_longer_lags.judge(ev).verdict == "agrees"


@pytest.mark.parametrize("variant", ["irnn", "rnn_orthogonal"])
def test_the_new_variants_come_right_after_their_default_cells_in_reports(variant):
    from suites.gradient_flow.tables import ORDER

    default = claim.INITIALISED[variant]
    assert ORDER.index(variant) == ORDER.index(default) + 1
