"""The training loop: schedule, clipping, divergence detection."""

import math

import pytest
import torch

from harness.train import TrainSettings, lr_at, train
from harness.contract import Diverged


def test_warmup_is_linear_then_cosine_decays_to_the_floor():
    s = TrainSettings(steps=110, lr=1.0, warmup_steps=10, min_lr_ratio=0.1)
    assert lr_at(0, s) == pytest.approx(0.1)
    assert lr_at(9, s) == pytest.approx(1.0)
    assert lr_at(10, s) == pytest.approx(1.0)
    assert lr_at(60, s) == pytest.approx(0.55)
    assert lr_at(110, s) == pytest.approx(0.1)


def test_training_reduces_the_loss_of_a_linear_regression():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    x = torch.randn(64, 4)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    result = train(model, lambda m, step: (((m(x) - y) ** 2).mean(), 64),
                   TrainSettings(steps=200, lr=0.05, weight_decay=0.0), progress=False)
    assert result.final_loss < 0.05 * result.losses[0]
    assert result.tokens == 200 * 64


def test_a_non_finite_loss_raises_diverged():
    model = torch.nn.Linear(2, 1)
    with pytest.raises(Diverged, match="nan"):
        train(model, lambda m, step: (m(torch.ones(1, 2)).sum() * (math.nan if step == 3 else 1.0), 1),
              TrainSettings(steps=10, lr=1e-3), progress=False)


def test_a_loss_far_above_its_start_raises_diverged():
    model = torch.nn.Linear(2, 1)
    losses = [1.0, 1.2, 5.0]
    with pytest.raises(Diverged, match="exceeds"):
        train(model, lambda m, step: (m(torch.ones(1, 2)).sum() * 0 + losses[step], 1),
              TrainSettings(steps=3, lr=1e-3), progress=False)


def test_gradient_norms_are_clipped():
    model = torch.nn.Linear(2, 1)
    result = train(model, lambda m, step: (1e6 * m(torch.ones(1, 2)).sum(), 1),
                   TrainSettings(steps=1, lr=1e-9, grad_clip=1.0, divergence_factor=1e12), progress=False)
    assert result.grad_norms[0] > 1.0  # the norm before clipping is reported
