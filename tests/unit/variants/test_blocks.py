"""Norms, their placement, feed-forward layers, and the unchanged baseline."""

import pytest
import torch
from torch import nn

from variants.ffn import FeedForward
from variants.ffn._base import ffns
from variants.ffn.swiglu import swiglu_hidden
from variants.models.transformer import Block, build
from variants.norm._base import norms, placements
from variants.spec import TransformerSpec, resolve


def test_registries_hold_the_norms_placements_and_ffns():
    assert norms.names() == ["layernorm", "layernorm_nobias", "rmsnorm"]
    assert placements.names() == ["post", "pre"]
    assert ffns.names() == ["gelu", "relu", "swiglu"]


def test_layernorm_nobias_centres_and_scales_without_a_bias():
    norm = norms.get("layernorm_nobias")(2)
    assert [name for name, _ in norm.named_parameters()] == ["weight"]
    out = norm(torch.tensor([[1.0, 3.0]]))  # mean 2, standard deviation 1
    torch.testing.assert_close(out, torch.tensor([[-1.0, 1.0]]), atol=1e-4, rtol=0)


def test_rmsnorm_divides_by_the_root_mean_square():
    x = torch.tensor([[3.0, 4.0]])
    out = norms.get("rmsnorm")(2)(x)
    rms = ((9 + 16) / 2) ** 0.5
    assert torch.allclose(out, x / rms, atol=1e-5)
    assert sum(p.numel() for p in norms.get("rmsnorm")(8).parameters()) == 8  # gain only
    assert sum(p.numel() for p in norms.get("layernorm")(8).parameters()) == 16  # gain and bias


def test_swiglu_matches_the_two_matrix_parameter_count():
    d = 128
    gelu, swiglu = ffns.get("gelu")(d, 4 * d), ffns.get("swiglu")(d, 4 * d)
    assert swiglu_hidden(4 * d) == 341  # round(2/3 x 512)
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(gelu) == 2 * d * 4 * d
    assert count(swiglu) == 3 * d * 341
    assert abs(count(swiglu) / count(gelu) - 1) < 0.01


def test_ffn_activations_known_values():
    x = torch.tensor([[1.0, -2.0]])
    for name, expected in (("relu", torch.tensor([[1.0, 0.0]])), ("gelu", torch.nn.functional.gelu(x))):
        ffn = ffns.get(name)(2, 2)
        with torch.no_grad():
            ffn.up.weight.copy_(torch.eye(2))
            ffn.down.weight.copy_(torch.eye(2))
        assert torch.allclose(ffn(x), expected)
    sw = ffns.get("swiglu")(2, 3)  # hidden 2
    with torch.no_grad():
        sw.up.weight.copy_(torch.cat([torch.eye(2), torch.eye(2)]))  # gate = value = x
        sw.down.weight.copy_(torch.eye(2))
    assert torch.allclose(sw(x), torch.nn.functional.silu(x) * x)


def test_feed_forward_keeps_its_old_constructor_and_gelu():
    ffn = FeedForward(8, 32)
    assert isinstance(ffn.up, nn.Linear) and ffn.up.out_features == 32
    x = torch.randn(3, 8)
    assert torch.allclose(ffn(x), ffn.down(torch.nn.functional.gelu(ffn.up(x))))


def test_pre_ln_normalises_sublayer_inputs_and_ends_with_a_final_norm():
    model = build(resolve("pre_ln", TransformerSpec(d_model=16, n_heads=2, vocab_size=11)))
    block = model.blocks[0]
    assert isinstance(block.norm1_in, nn.LayerNorm) and isinstance(block.norm1_out, nn.Identity)
    assert isinstance(model.norm, nn.LayerNorm)


def test_post_ln_blocks_output_normalised_activations_and_no_final_norm():
    spec = resolve("post_ln+rmsnorm", TransformerSpec(d_model=16, n_heads=2, vocab_size=11))
    model = build(spec)
    assert isinstance(model.norm, nn.Identity)
    block = Block(spec, model.position, model.blocks[0].attn.kernel)
    out, _ = block(torch.randn(2, 5, 16) * 7)
    assert torch.allclose(out.pow(2).mean(-1), torch.ones(2, 5), atol=1e-3)  # RMSNorm with unit gain: unit RMS


def test_the_baseline_is_the_foundation_model():
    """Pre-LN, LayerNorm, GELU 4d, scaled dot product, MHA, SDPA: 427,264 parameters at the default size."""
    spec = TransformerSpec()
    assert (spec.scoring, spec.norm, spec.norm_placement, spec.ffn, spec.kernel) == (
        "scaled_dot",
        "layernorm",
        "pre",
        "gelu",
        "sdpa",
    )
    model = build(spec)
    assert model.num_parameters() == 427_264
    block = model.blocks[0]
    assert [type(m).__name__ for m in (block.norm1_in, block.norm1_out, block.ffn, block.attn.scoring)] == [
        "LayerNorm",
        "Identity",
        "Gelu",
        "ScaledDot",
    ]
    x = torch.randn(2, 5, 128)
    expected = x + block.attn(block.norm1_in(x))[0]
    expected = expected + block.ffn(block.norm2_in(expected))
    assert torch.allclose(block(x)[0], expected, atol=1e-6)


@pytest.mark.parametrize("expr", ["general", "additive+naive", "swiglu+rmsnorm+post_ln", "relu+mqa"])
def test_every_axis_trains_one_step(expr):
    model = build(resolve(expr, TransformerSpec(d_model=16, n_heads=2, vocab_size=11, max_len=8)))
    tokens = torch.randint(0, 11, (2, 8))
    loss = torch.nn.functional.cross_entropy(model(tokens).flatten(0, 1), tokens.flatten())
    loss.backward()
    assert all(p.grad is not None for p in model.parameters())
