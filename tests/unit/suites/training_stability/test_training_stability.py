"""Xiong et al. 2020: at initialisation Post-LN's FFN gradients grow toward the output, Pre-LN's do not."""

import functools
import math

import pytest
import torch

from suites.common.lm import random_batch, xavier_init
from suites.training_stability.suite import ffn_gradient_norms
from variants.models.transformer import build
from variants.spec import TransformerSpec


@functools.cache
def layer_ratio(placement: str, depth: int = 6) -> float:
    torch.manual_seed(0)
    model = build(
        TransformerSpec(vocab_size=64, d_model=64, n_layers=depth, n_heads=4, max_len=32, norm_placement=placement)
    )
    xavier_init(model)
    ids = torch.randint(0, 64, (4096,), generator=torch.Generator().manual_seed(0))
    gen = torch.Generator().manual_seed(1)
    norms = ffn_gradient_norms(model, [random_batch(ids, 8, 32, gen) for _ in range(4)], "cpu")
    assert len(norms) == depth and all(n > 0 for n in norms)
    return norms[-1] / norms[0]


def test_post_ln_gradients_grow_from_the_first_to_the_last_layer_at_initialisation():
    assert layer_ratio("post") > 1.2


def test_pre_ln_gradients_stay_near_flat_at_initialisation():
    ratio = layer_ratio("pre")
    assert 0.5 < ratio < 1.5
    assert ratio < layer_ratio("post")


def test_xavier_init_leaves_the_tied_output_layer_alone():
    torch.manual_seed(0)
    model = build(TransformerSpec(vocab_size=32, d_model=16, n_layers=1, n_heads=2))
    before = model.embed.weight.clone()
    xavier_init(model)
    assert torch.equal(model.embed.weight, before) and model.head.weight is model.embed.weight
    bound = (6 / (16 + 64)) ** 0.5  # the FFN's up projection, 16 -> 64
    assert model.blocks[0].ffn.up.weight.abs().max() <= bound


def test_the_w2_slope_over_all_layers_is_what_the_probe_measures():
    from suites.training_stability.init_probe import log_slope

    assert log_slope({1: 1.0, 2: math.e, 3: math.e**2}) == pytest.approx(1.0)
    # the endpoints alone say 0; the layers between rise then fall back: a slope of 0 too, not a growth
    assert log_slope({1: 1.0, 2: 2.0, 3: 2.0, 4: 1.0}) == pytest.approx(0.0)
