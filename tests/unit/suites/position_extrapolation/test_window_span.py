"""Stacked sliding windows: the span measured by gradients equals layers x (W - 1), and its table (the check:
claims/test_stacked_window_span.py)."""

import pandas as pd
import pytest

from suites.position_extrapolation.window_span import (
    expected_span,
    receptive_span,
    span_measurements,
    window_section,
)
from variants.models.transformer import build
from variants.spec import TransformerSpec


def _model(window, layers=3):
    return build(
        TransformerSpec(
            vocab_size=11,
            d_model=16,
            n_layers=layers,
            n_heads=2,
            max_len=64,
            position="rope",
            kernel="naive",
            window=window,
        )
    )


@pytest.mark.parametrize("window, layers", [(4, 3), (8, 2), (2, 4)])
def test_the_measured_span_is_layers_times_window_minus_one(window, layers):
    assert receptive_span(_model(window, layers), 48, "cpu") == expected_span(layers, window) == layers * (window - 1)


def test_full_attention_reaches_the_first_position():
    assert receptive_span(_model(None), 40, "cpu") == 39
    assert span_measurements(_model(None), 3, None, 16, "cpu") == []


def test_a_window_models_measurement_records_what_it_expects():
    (m,) = span_measurements(_model(4), 3, 4, 16, "cpu")
    assert m.metric == "receptive_span" and m.value == 9.0 and m.extra["expected"] == 9 and m.extra["length"] >= 20


def test_the_window_table_compares_with_rope_per_seed():
    rows = []
    for v, spec, ppl in (
        ("rope", {"window": None, "n_layers": 3}, [4.0, 4.1]),
        ("rope+window4", {"window": 4, "n_layers": 3}, [4.4, 4.51]),
    ):
        for seed, p in enumerate(ppl):
            for mult in (1, 2, 8):
                rows.append(
                    {
                        "variant": v,
                        "seed": seed,
                        "metric": "perplexity",
                        "x": 16.0 * mult,
                        "value": p * mult,
                        "status": "ok",
                        "spec": spec,
                    }
                )
    rows.append(
        {
            "variant": "rope+window4",
            "seed": 0,
            "metric": "receptive_span",
            "x": None,
            "value": 9.0,
            "status": "ok",
            "spec": {"window": 4, "n_layers": 3},
        }
    )
    text = "\n".join(window_section(pd.DataFrame(rows), ["rope", "rope+window4"], [16.0, 32.0, 128.0], 16))
    assert "## Sliding windows" in text and "+10.0%" in text and "| rope+window4 |" in text.replace("  ", " ")
