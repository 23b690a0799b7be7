"""Known values and invariants of each position encoding."""

import math

import pytest
import torch

from variants.position.alibi import Alibi, alibi_slopes
from variants.position.learned import Learned
from variants.position.rope import apply_rope
from variants.position.sinusoidal import sinusoid_table


def test_alibi_slopes_for_8_heads_are_halves_down_to_1_over_256():
    assert alibi_slopes(8) == pytest.approx([2.0 ** -i for i in range(1, 9)])


def test_alibi_slopes_for_16_heads_step_by_sqrt_half():
    assert alibi_slopes(16) == pytest.approx([2.0 ** (-0.5 * i) for i in range(1, 17)])


def test_alibi_slopes_for_12_heads_follow_the_non_power_of_two_rule():
    expected = [2.0 ** -i for i in range(1, 9)] + [0.70711, 0.35355, 0.17678, 0.08839]
    assert alibi_slopes(12) == pytest.approx(expected, abs=1e-5)


def test_alibi_naive_formula_would_be_wrong_for_12_heads():
    naive = [0.5 * 2.0 ** -i for i in range(12)]  # the common bug, right only for 8 heads
    assert alibi_slopes(12) != pytest.approx(naive)


def test_alibi_bias_is_minus_slope_times_distance():
    bias = Alibi(32, 8, 4, 16).score_bias(5, 5, 0, torch.float32)  # (H, T, S)
    assert bias.shape == (8, 5, 5)
    assert torch.all(bias.diagonal(dim1=1, dim2=2) == 0)
    assert bias[0, 4, 1].item() == pytest.approx(-0.5 * 3)
    assert bias[7, 4, 0].item() == pytest.approx(-(2.0 ** -8) * 4)


def test_alibi_bias_with_an_offset_matches_the_last_rows_of_the_full_bias():
    alibi = Alibi(32, 8, 4, 16)
    full = alibi.score_bias(7, 7, 0, torch.float32)
    tail = alibi.score_bias(2, 7, 5, torch.float32)
    assert torch.equal(full[:, 5:], tail)


def test_rope_scores_depend_only_on_the_offset():
    q, k = torch.randn(1, 1, 1, 16, dtype=torch.float64), torch.randn(1, 1, 1, 16, dtype=torch.float64)

    def score(m, n):
        return (apply_rope(q, m) * apply_rope(k, n)).sum().item()

    for m, n, c in [(3, 1, 10), (0, 7, 100), (50, 50, 13)]:
        assert score(m, n) == pytest.approx(score(m + c, n + c), rel=1e-9, abs=1e-9)
    assert score(3, 1) != pytest.approx(score(4, 1))


def test_rope_preserves_vector_norms():
    x = torch.randn(2, 3, 9, 8)
    assert torch.allclose(apply_rope(x, 5).norm(dim=-1), x.norm(dim=-1), atol=1e-5)


def test_rope_at_position_zero_is_the_identity():
    x = torch.randn(1, 2, 1, 8)
    assert torch.allclose(apply_rope(x, 0), x)


def test_sinusoid_values_are_bounded_and_start_at_sin0_cos0():
    table = sinusoid_table(4096, 64)
    assert table.abs().max() <= 1.0
    assert torch.allclose(table[0, 0::2], torch.zeros(32)) and torch.allclose(table[0, 1::2], torch.ones(32))


def test_sinusoid_shift_is_a_fixed_linear_map():
    # PE(p + k) = M_k PE(p) for every p, where M_k rotates each (sin, cos) pair by w_i * k
    d, k = 16, 7
    table = sinusoid_table(300, d)
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    m_k = torch.zeros(d, d, dtype=torch.float64)
    for i, w in enumerate(inv_freq.tolist()):
        c, s = math.cos(w * k), math.sin(w * k)
        # (sin w(p+k), cos w(p+k)) = (sin wp, cos wp) @ [[cos wk, -sin wk], [sin wk, cos wk]]
        m_k[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor([[c, -s], [s, c]])
    shifted = table[:-k].double() @ m_k  # rows are PE(p), p = 0 .. 292
    assert torch.allclose(shifted.float(), table[k:], atol=1e-5)


def test_sinusoid_frequencies_follow_the_paper():
    table = sinusoid_table(10, 8)
    assert table[3, 2].item() == pytest.approx(math.sin(3 / 10000 ** (2 / 8)), abs=1e-6)


def test_learned_positions_refuse_lengths_beyond_their_table():
    learned = Learned(16, 2, 8, max_len=8)
    assert learned.length_problem(8) is None
    assert "8 positions" in learned.length_problem(9)
    with pytest.raises(ValueError):
        learned.embed(torch.zeros(1, 9, 16))


def test_rope_tables_made_during_inference_can_be_used_in_training():
    x = torch.randn(1, 2, 5, 8)
    with torch.inference_mode():
        apply_rope(x, 3)
    y = torch.randn(1, 2, 5, 8, requires_grad=True)
    apply_rope(y, 3).sum().backward()
    assert y.grad is not None
