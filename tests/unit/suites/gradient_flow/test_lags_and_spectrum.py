"""gradient_flow's summaries of a run: the longest lag learned is the contiguous run, and the recurrent weight's
singular values are recorded at initialisation and each quarter of training and tabulated."""

import pandas as pd
import torch

from suites.gradient_flow.recurrent_spectrum import SpectrumTrace, quarter_steps, sigma_measurements
from suites.gradient_flow.tables import longest_by_seed, longest_contiguous, sigma_table
from tests.report_shape import columns, problems
from tests.unit.suites.gradient_flow.claims._records import SETTINGS, lag_records
from variants.models.recurrent import RecurrentSpec, build


def test_the_longest_lag_learned_is_the_contiguous_run():
    # learned at 5, failed at 10 and 20, lucky at 50 and 100: learned up to 5, not 100
    assert longest_contiguous({5.0: 1.0, 10.0: 0.12, 20.0: 0.13, 50.0: 1.0, 100.0: 1.0}, SETTINGS["lags"], 0.9) == 5
    assert longest_contiguous({5.0: 0.5, 10.0: 1.0}, SETTINGS["lags"], 0.9) == 0
    assert longest_contiguous({5.0: 1.0, 10.0: 1.0, 20.0: 1.0, 50.0: 1.0, 100.0: 1.0}, SETTINGS["lags"], 0.9) == 100
    # a diverged (or missing) lag is not learned
    assert longest_contiguous({5.0: 1.0, 20.0: 1.0}, SETTINGS["lags"], 0.9) == 5
    df = lag_records({("rnn", 0): [1.0, 0.1, 0.1, 1.0, 1.0], ("rnn", 1): [1.0, 1.0, None, 1.0, 1.0]})
    assert longest_by_seed(df, "rnn", SETTINGS) == {0: 5.0, 1: 10.0}


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
    assert sigma_table(_sigma_records()[:0], ["rnn"], SETTINGS) is None
