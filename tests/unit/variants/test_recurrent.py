"""Recurrent models: presets, specs, the stepped forward pass, the spectral-radius rescaling, the copy task."""

import pytest
import torch

from suites.common.data.copy_task import IGNORE, CopyTask
from suites.gradient_flow.suite import PROFILES, GradientFlow
from variants.models.recurrent import RecurrentSpec, build, spectral_radius
from variants.spec import PresetFieldError, TransformerSpec, problems, resolve


@pytest.mark.parametrize("variant, cell", [("rnn", "rnn"), ("rnn_relu", "rnn_relu"), ("gru", "gru"), ("lstm", "lstm")])
def test_recurrent_presets_build_recurrent_specs(variant, cell):
    spec = GradientFlow().spec_for(variant, PROFILES["quick"], {})
    assert isinstance(spec, RecurrentSpec) and spec.cell == cell
    assert problems(spec) == []


def test_other_expressions_build_transformer_specs():
    spec = GradientFlow().spec_for("transformer+alibi", PROFILES["quick"], {})
    assert isinstance(spec, TransformerSpec) and spec.position == "alibi"


def test_a_recurrent_preset_on_a_transformer_is_a_clear_error():
    with pytest.raises(PresetFieldError, match="sets cell, which a TransformerSpec does not have"):
        resolve("gru", TransformerSpec())


def test_problems_of_a_recurrent_spec_name_the_bad_cell():
    assert "Unknown recurrent cell 'elman'" in problems(RecurrentSpec(cell="elman"))[0]


def test_recurrent_specs_hash_by_content():
    assert RecurrentSpec(cell="gru").content_hash() == RecurrentSpec(cell="gru").content_hash()
    assert RecurrentSpec(cell="gru").content_hash() != RecurrentSpec(cell="lstm").content_hash()


@pytest.mark.parametrize("cell", ["rnn", "lstm"])
def test_the_stepped_pass_matches_the_fused_one(cell):
    model = build(RecurrentSpec(vocab_size=10, cell=cell, d_hidden=16, n_layers=2))
    tokens = torch.randint(0, 10, (3, 7))
    last, hidden = model.step_states(tokens)
    assert len(hidden) == 7 and hidden[0].shape == (2, 3, 16)
    torch.testing.assert_close(last, model(tokens)[:, -1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cell", ["rnn", "gru"])
def test_the_recurrent_weight_is_rescaled_to_the_requested_spectral_radius(cell):
    model = build(RecurrentSpec(cell=cell, d_hidden=24))
    model.set_spectral_radius(1.3)
    for block in model.recurrent_weights()[0].view(model.gates, 24, 24):
        assert spectral_radius(block) == pytest.approx(1.3, rel=1e-4)


def test_lstm_forget_gates_start_open_at_bias_one_without_chrono():
    model = build(RecurrentSpec(cell="lstm", d_hidden=8))
    forget = model.rnn.bias_ih_l0[8:16] + model.rnn.bias_hh_l0[8:16]
    assert torch.all(forget == 1.0)


def test_the_copy_task_asks_for_each_symbol_lag_steps_later():
    task = CopyTask(lag=6, symbols=2, alphabet=4, gap="blank")
    x, y = task.batch(5, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (5, 8) and task.vocab_size == 6
    assert torch.all(x[:, 5] == task.cue) and torch.all(x[:, 2:5] == task.blank)
    assert torch.equal(y[:, 6:], x[:, :2])
    assert torch.all(y[:, :6] == IGNORE)


def test_a_lag_too_short_for_the_symbols_is_an_error():
    with pytest.raises(ValueError, match="lag 3 must exceed the number of symbols 3"):
        CopyTask(lag=3, symbols=3)


def test_one_rnn_cell_table_serves_every_recurrent_model():
    """variants/models/rnn_cells.py is the only map from cell names to torch modules; each model takes rows of it."""
    from variants.models.rnn_cells import RNN_CELLS
    from variants.models.sequence_layer import LAYER_CELLS
    from variants.seq2seq_spec import CELLS as SEQ2SEQ_CELLS

    assert set(SEQ2SEQ_CELLS) <= set(RNN_CELLS) and set(LAYER_CELLS) <= set(RNN_CELLS)
    for row in RNN_CELLS.values():
        module, step = row.module(3, 5, **row.options), row.step(3, 5, **row.options)
        assert module.weight_hh_l0.shape == step.weight_hh.shape == (row.gates * 5, 5)
        assert getattr(module, "nonlinearity", "") == row.nonlinearity
