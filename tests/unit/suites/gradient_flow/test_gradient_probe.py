"""||dL/dh_k|| by distance: Pascanu et al.'s vanishing and exploding regimes, and the Transformer's probe."""

import pytest
import torch

from suites.common.data.copy_task import CopyTask
from suites.gradient_flow.gradient_probe import by_distance, hidden_gradient_norms, reach
from variants.models.recurrent import RecurrentSpec, build
from variants.models.transformer import build as build_transformer
from variants.spec import TransformerSpec

TASK = CopyTask(lag=50)


def tanh_reach(radius: float, distance: int = 50) -> float:
    torch.manual_seed(0)
    model = build(RecurrentSpec(vocab_size=TASK.vocab_size, cell="rnn", d_hidden=64))
    model.set_spectral_radius(radius)
    x, y = TASK.batch(16, torch.Generator().manual_seed(0))
    return reach(hidden_gradient_norms(model, x, y[:, -1]), distance)


def test_a_tanh_rnn_with_spectral_radius_half_has_vanishing_gradients_over_50_steps():
    # linearised, 0.5^49 ~ 2e-15; tanh' <= 1 only shrinks it further
    assert tanh_reach(0.5) < 1e-10


def test_a_tanh_rnn_with_spectral_radius_one_and_a_half_has_exploding_gradients_over_50_steps():
    assert tanh_reach(1.5) > 1.0


def test_the_probe_differentiates_through_every_later_step():
    """For a linear recurrence h_t = W h_(t-1) the gradient 49 steps back is W^T^49 applied to the last one."""
    torch.manual_seed(0)
    model = build(RecurrentSpec(vocab_size=TASK.vocab_size, cell="rnn_relu", d_hidden=8))
    with torch.no_grad():
        model.rnn.weight_hh_l0.copy_(0.9 * torch.eye(8))
        model.rnn.bias_hh_l0.fill_(5.0)  # every unit stays positive, so ReLU is the identity
    x, y = TASK.batch(4, torch.Generator().manual_seed(0))
    assert reach(hidden_gradient_norms(model, x, y[:, -1]), 50) == pytest.approx(0.9**49, rel=1e-4)


def test_the_transformer_probe_measures_every_position():
    torch.manual_seed(0)
    model = build_transformer(
        TransformerSpec(
            vocab_size=TASK.vocab_size, d_model=32, n_layers=2, n_heads=4, max_len=TASK.length, position="rope"
        )
    )
    x, y = TASK.batch(4, torch.Generator().manual_seed(0))
    norms = hidden_gradient_norms(model, x, y[:, -1])
    assert norms.shape == (TASK.length,) and torch.all(norms > 0)
    assert torch.equal(by_distance(norms)[0], norms[-1])
    # attention reaches back directly: at initialisation 50 steps cost less than a factor of 10
    assert reach(norms, 50) > 0.1
