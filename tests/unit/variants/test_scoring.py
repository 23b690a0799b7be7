"""Known values of each scoring, on plain (B, T, D) x (B, S, D) tensors and on heads."""

import math

import pytest
import torch

from variants.kernel._base import kernels
from variants.scoring._base import scorings


def test_every_scoring_is_registered_under_its_file_name():
    assert scorings.names() == ["additive", "dot", "general", "scaled_dot", "uniform"]


def test_scaled_dot_and_dot_known_values():
    q, k = torch.tensor([[[1.0, 2.0, 3.0, 4.0]]]), torch.tensor([[[1.0, 0.0, -1.0, 2.0]]])  # (1, 1, 4)
    assert scorings.get("dot")(4).score(q, k).item() == pytest.approx(6.0)  # 1 - 3 + 8
    assert scorings.get("scaled_dot")(4).score(q, k).item() == pytest.approx(3.0)  # 6 / sqrt(4)


def test_scaling_restores_unit_variance_for_unit_variance_inputs():
    """Vaswani et al. 2017, 3.2.1: q.k has variance d; q.k / sqrt(d) has variance 1."""
    d, n = 256, 2000
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, n, d, generator=gen), torch.randn(1, n, d, generator=gen)  # n independent (q, k) pairs

    def pair_scores(name):
        return scorings.get(name)(d).score(q, k)[0].diagonal()  # (n,)

    assert pair_scores("dot").var().item() == pytest.approx(d, rel=0.1)
    assert pair_scores("scaled_dot").var().item() == pytest.approx(1.0, rel=0.1)


def test_general_is_q_transpose_w_k_and_starts_as_dot():
    general = scorings.get("general")(3)
    q, k = torch.randn(2, 5, 3), torch.randn(2, 7, 3)  # (B, T, D), (B, S, D)
    assert torch.allclose(general.score(q, k), scorings.get("dot")(3).score(q, k))
    with torch.no_grad():
        general.weight.copy_(torch.randn(3, 3))
    expected = torch.einsum("btd,de,bse->bts", q, general.weight, k)
    assert torch.allclose(general.score(q, k), expected, atol=1e-6)


def test_additive_is_v_tanh_wq_plus_uk_on_plain_and_head_shaped_tensors():
    add = scorings.get("additive")(4)
    W, U, v = add.w_query.weight, add.w_key.weight, add.v.weight[0]
    q, k = torch.randn(2, 3, 4), torch.randn(2, 5, 4)  # (B, T, D), (B, S, D)
    out = add.score(q, k)
    assert out.shape == (2, 3, 5)
    b, i, j = 1, 2, 4
    assert out[b, i, j].item() == pytest.approx((v @ torch.tanh(W @ q[b, i] + U @ k[b, j])).item(), abs=1e-6)
    heads = add.score(q.view(2, 1, 3, 4).expand(2, 6, 3, 4), k.view(2, 1, 5, 4).expand(2, 6, 5, 4))  # (B, H, T, S)
    assert torch.allclose(heads, out[:, None].expand(2, 6, 3, 5), atol=1e-6)


def test_only_non_dot_product_scorings_hand_a_score_function_to_the_kernel():
    assert scorings.get("scaled_dot")(4).kernel_options() == {}
    assert scorings.get("general")(4).kernel_options() == {}
    assert "score_fn" in scorings.get("additive")(4).kernel_options()


def test_naive_attends_with_a_score_function_and_fused_kernels_refuse_one():
    add = scorings.get("additive")(8)
    q, k, v = torch.randn(2, 4, 6, 8), torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 8)
    out = kernels.get("naive").attend(q, k, v, causal=True, **add.kernel_options())
    kk, vv = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
    scores = add.score(q, kk).masked_fill(torch.ones(6, 6, dtype=torch.bool).triu(1), -math.inf)
    assert torch.allclose(out, scores.softmax(-1) @ vv, atol=1e-6)
    with pytest.raises(ValueError, match="dot-product scores only"):
        kernels.get("sdpa").attend(q, k, v, causal=True, **add.kernel_options())
