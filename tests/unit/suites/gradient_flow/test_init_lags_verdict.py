"""gradient_flow's identity/orthogonal initialisation claim on made-up records, and the singular values it reports."""

import pandas as pd
import pytest
import torch

from suites.gradient_flow import verdicts as flow
from suites.gradient_flow.recurrent_spectrum import SpectrumTrace, quarter_steps, sigma_measurements
from suites.gradient_flow.tables import sigma_table
from tests.report_shape import columns, problems
from variants.recurrent import RecurrentSpec, build

SETTINGS = {"lags": [5, 10, 20, 50, 100], "learned_accuracy": 0.9, "alphabet": 8, "steps": 800}
DEFAULTS = {"rnn": {0: 5, 1: 5, 2: 10}, "rnn_relu": {0: 10, 1: 10, 2: 20}, "lstm": {0: 100, 1: 100, 2: 100}}
#: longer than their default cells on every seed by about the same: paired intervals clear of 0 at 3 seeds
LONGER = {"irnn": {0: 50, 1: 50, 2: 50}, "rnn_orthogonal": {0: 20, 1: 20, 2: 20}}


def test_both_initialisations_longer_than_their_default_cells_agree_and_the_lstm_is_stated():
    found = flow._init_lags({**DEFAULTS, **LONGER}, 100)
    assert found.verdict == "agrees" and not found.cause and found.claim.key == "init_longer_lags"
    assert "irnn - rnn_relu" in found.sentence and "rnn_orthogonal - rnn" in found.sentence
    assert "Against the LSTM (not judged): irnn - lstm" in found.sentence
    assert found.boundary == 0.0 and found.seeds == 3


def test_one_initialisation_reversed_refutes_the_conjunction():
    rnn = {0: 20, 1: 20, 2: 30}  # rnn_orthogonal - rnn: -20, -20, -30, a paired interval below 0
    found = flow._init_lags({**DEFAULTS, "rnn": rnn, "irnn": LONGER["irnn"], "rnn_orthogonal": {0: 0, 1: 0, 2: 0}}, 100)
    assert found.verdict == "disagrees" and "rnn_orthogonal" in found.cause and "the tanh RNN" in found.cause
    assert "rnn_orthogonal" in found.headline.label  # the arm the verdict turns on


def test_an_undecided_arm_leaves_it_inconclusive_with_its_cause():
    found = flow._init_lags(
        {**DEFAULTS, "irnn": {0: 100, 1: 5, 2: 50}, "rnn_orthogonal": LONGER["rnn_orthogonal"]}, 100
    )
    assert found.verdict == "inconclusive" and "For irnn" in found.cause and "the ReLU RNN" in found.cause
    # both at the sweep's longest lag: nothing to tell apart
    top = {0: 100, 1: 100}
    found = flow._init_lags({"rnn": top, "rnn_orthogonal": top}, 100)
    assert found.verdict == "inconclusive" and "longest lag 100" in found.cause


def test_one_arm_alone_is_judged_and_said_so_and_none_is_not_run():
    found = flow._init_lags({"rnn_relu": DEFAULTS["rnn_relu"], "irnn": LONGER["irnn"]}, 100)
    assert found.verdict == "agrees" and "rests on irnn alone" in found.sentence
    assert flow._init_lags({"rnn": DEFAULTS["rnn"], "lstm": DEFAULTS["lstm"]}, 100).verdict == "not run"
    assert flow._init_lags({"irnn": {0: 50}}, 100).verdict == "not run"  # no default ReLU RNN to pair with
    assert flow._init_lags({}, 100).verdict == "not run"


def test_the_claim_is_a_finding_among_the_suites_claims_in_the_files_order():
    assert flow.INIT_LAGS.kind == "finding"
    assert [c.key for c in flow.CLAIMS].index("init_longer_lags") == 3
    assert set(flow.INIT_LAGS.variants) == {"rnn", "rnn_orthogonal", "rnn_relu", "irnn", "lstm"}


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


def test_findings_reads_the_verdict_from_lag_records():
    df = _accuracy_records({**DEFAULTS, **LONGER})
    by_key = {f.claim.key: f for f in flow.findings(df)}
    assert by_key["init_longer_lags"].verdict == "agrees"
    assert by_key["gated_rnn_longer_lags"].verdict == "agrees"


def test_identity_models_record_singular_values_one_at_init_and_each_quarter():
    assert quarter_steps(800) == [200, 400, 600] and quarter_steps(3) == [1, 2] and quarter_steps(1) == []
    model = build(RecurrentSpec(cell="rnn_relu", d_hidden=16, recurrent_init="identity"))
    init = sigma_measurements(model, 20, "init", 0)
    assert [(m.metric, m.value, m.x, m.extra["phase"]) for m in init] == [
        ("recurrent_sigma_max", 1.0, 20.0, "init"),
        ("recurrent_sigma_mean", 1.0, 20.0, "init"),
    ]
    trace = SpectrumTrace(model, 20, steps=8)
    for step in range(8):
        trace(step)
    assert sorted({m.extra["step"] for m in trace.measurements}) == [2, 4, 6]
    with torch.no_grad():
        model.rnn.weight_hh_l0[0, 0] = float("nan")
    assert sigma_measurements(model, 20, "trained", 8) == []  # wrecked weights: no record, never a nan


def _sigma_records():
    rows = []
    for variant, top in (("irnn", 1.0), ("rnn", 1.15)):
        for seed in (0, 1):
            for lag in (5, 100):
                points = [("init", 0, top), ("training", 200, top + 0.1), ("training", 400, top + 0.2)]
                points += [("training", 600, top + 0.3)]
                if not (variant == "irnn" and lag == 100):  # the longest lag diverged: no trained record
                    points.append(("trained", 800, top + 0.4))
                for phase, step, value in points:
                    for metric, v in (("recurrent_sigma_max", value), ("recurrent_sigma_mean", value / 2)):
                        rows.append(
                            {
                                "metric": metric,
                                "variant": variant,
                                "seed": seed,
                                "x": float(lag),
                                "value": v,
                                "status": "ok",
                                "extra": {"phase": phase, "step": step},
                            }
                        )
    return pd.DataFrame(rows)


def test_the_singular_value_table_shows_init_quarters_and_trained_in_eight_columns():
    text = "\n".join(sigma_table(_sigma_records(), ["rnn", "irnn"], SETTINGS))
    lines = text.splitlines()
    assert problems(text) == []  # at most 8 columns, no nan or None
    header = next(line for line in lines if line.startswith("| variant"))
    assert columns(header) == 8 and "step 200" in header and "step 600" in header
    assert "| irnn      | 5     | 1.00" in text and "0.50 -> 0.70" in text
    row = next(line for line in lines if line.startswith("| irnn") and "| 100 " in line)
    assert "| -" in row and "0.50 -> -" in row  # the diverged lag: a dash, not a number
    assert "mean over 2 seeds" in text and "800 steps" in text
    assert sigma_table(_sigma_records()[:0], ["rnn"], SETTINGS) == []


@pytest.mark.parametrize("variant", ["irnn", "rnn_orthogonal"])
def test_the_new_variants_come_right_after_their_default_cells_in_reports(variant):
    from suites.gradient_flow.tables import ORDER

    default = flow.INITIALISED[variant]
    assert ORDER.index(variant) == ORDER.index(default) + 1
