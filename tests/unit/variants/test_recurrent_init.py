"""An Elman RNN's recurrent weight at the identity (IRNN) or an orthogonal matrix (variants/models/recurrent_init.py)."""

import pytest
import torch

from suites.gradient_flow.suite import PROFILES, GradientFlow
from variants.models.recurrent import RecurrentSpec, build
from variants.spec import PresetConflictError, problems, resolve


@pytest.mark.parametrize("cell", ["rnn_relu", "rnn"])
def test_identity_sets_w_hh_to_i_with_zero_biases_and_every_singular_value_one(cell):
    torch.manual_seed(0)
    model = build(RecurrentSpec(cell=cell, d_hidden=32, n_layers=2, recurrent_init="identity"))
    for i in range(2):
        assert torch.equal(getattr(model.rnn, f"weight_hh_l{i}").detach(), torch.eye(32))
        assert not getattr(model.rnn, f"bias_ih_l{i}").any() and not getattr(model.rnn, f"bias_hh_l{i}").any()
    values = model.recurrent_singular_values()  # both layers: 2 x 32
    assert values.shape == (64,) and torch.equal(values, torch.ones(64, dtype=torch.float64))


def test_orthogonal_gives_every_singular_value_one_and_keeps_the_default_biases():
    torch.manual_seed(0)
    model = build(RecurrentSpec(cell="rnn", d_hidden=128, recurrent_init="orthogonal"))
    values = model.recurrent_singular_values()
    assert float((values - 1).abs().max()) < 1e-5
    w = model.rnn.weight_hh_l0.detach()
    assert not torch.allclose(w, torch.eye(128), atol=0.1)  # a random rotation, not the identity
    assert model.rnn.bias_hh_l0.abs().max() > 0  # PyTorch's uniform draw kept


def test_the_default_draw_spreads_the_singular_values_and_keeps_stored_hashes():
    torch.manual_seed(0)
    values = build(RecurrentSpec(cell="rnn", d_hidden=128)).recurrent_singular_values()
    assert float(values.max()) == pytest.approx(2 / 3**0.5, rel=0.1) and float(values.min()) < 0.1
    # recurrent_init is left out of a default spec's dict, so jobs stored before it existed keep their hash
    assert "recurrent_init" not in RecurrentSpec(cell="rnn").to_dict()
    assert (
        RecurrentSpec(cell="rnn", recurrent_init="orthogonal").content_hash()
        != RecurrentSpec(cell="rnn").content_hash()
    )


def test_an_unknown_recurrent_init_is_refused_naming_the_key_and_the_choices():
    reasons = problems(RecurrentSpec(cell="rnn", recurrent_init="eye"))
    assert reasons == [
        "recurrent_init='eye' is not a recurrent-weight initialisation; choose one of default, identity, orthogonal"
    ]


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_a_gated_cell_refuses_a_recurrent_init(cell):
    spec = RecurrentSpec(cell=cell, recurrent_init="identity")
    (reason,) = problems(spec)
    assert "recurrent_init='identity'" in reason and f"gated cell '{cell}'" in reason and "rnn, rnn_relu" in reason
    with pytest.raises(ValueError, match="applies only to the Elman cells"):
        build(spec)
    assert problems(RecurrentSpec(cell=cell)) == []


@pytest.mark.parametrize(
    "variant, cell, init", [("irnn", "rnn_relu", "identity"), ("rnn_orthogonal", "rnn", "orthogonal")]
)
def test_the_presets_resolve_to_an_elman_cell_with_its_initialisation(variant, cell, init):
    spec = GradientFlow().spec_for(variant, PROFILES["standard"], {})
    assert isinstance(spec, RecurrentSpec) and (spec.cell, spec.recurrent_init) == (cell, init)
    assert spec.chrono_t_max == 0 and problems(spec) == []
    with pytest.raises(PresetConflictError, match="disagree on cell"):
        resolve(f"{variant}+lstm", RecurrentSpec())


def test_standard_runs_both_initialisations_and_quick_keeps_its_five_models():
    suite = GradientFlow()
    assert {"irnn", "rnn_orthogonal"} <= set(suite.variants_for("standard"))
    assert {"irnn", "rnn_orthogonal"} <= set(suite.variants_for("large"))
    assert suite.variants_for("quick") == ("transformer", "gru", "lstm", "rnn", "rnn_relu")
