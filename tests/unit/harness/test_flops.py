"""FLOP counting: known matrix-product counts, and why the suite counts on a naive-kernel twin."""

import torch

from harness.flops import count_flops
from variants.models.transformer import build
from variants.spec import TransformerSpec, resolve


def test_a_linear_layer_costs_two_flops_per_multiply_add_forward_and_twice_that_backward():
    layer = torch.nn.Linear(16, 8, bias=False)
    x = torch.randn(4, 16, requires_grad=True)
    assert count_flops(lambda: layer(x).sum(), backward=False) == 2 * 4 * 16 * 8
    assert count_flops(lambda: layer(x).sum()) == 3 * 2 * 4 * 16 * 8  # forward, grad input, grad weight


def test_once_its_formulas_are_registered_the_fused_cpu_attention_is_counted():
    import harness.measure  # noqa: F401  registers FLOP formulas for the fused CPU attention ops

    small = TransformerSpec(vocab_size=11, d_model=16, n_heads=2, n_layers=1, max_len=8)
    tokens = torch.randint(0, 11, (2, 8))
    naive = count_flops(lambda: build(resolve("naive", small))(tokens).sum())
    sdpa = count_flops(lambda: build(resolve("sdpa", small))(tokens).sum())
    B, H, T, S, Dh = 2, 2, 8, 8, 8
    attention = 3 * 2 * (2 * B * H * T * S * Dh)  # q k^T and weights v, each 2 B H T S Dh; backward costs twice forward
    assert abs(naive - sdpa) < attention / 2  # the fused kernel is no longer invisible to the counter
    assert naive > attention
