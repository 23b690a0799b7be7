"""Known values and invariants of each position encoding."""

import math

import pytest
import torch

from variants.position.alibi import Alibi, alibi_slopes
from variants.position.learned import Learned
from variants.position.rope import apply_rope
from variants.position.sinusoidal import sinusoid_table


def test_alibi_slopes_for_8_heads_are_halves_down_to_1_over_256():
    assert alibi_slopes(8) == pytest.approx([2.0**-i for i in range(1, 9)])


def test_alibi_slopes_for_16_heads_step_by_sqrt_half():
    assert alibi_slopes(16) == pytest.approx([2.0 ** (-0.5 * i) for i in range(1, 17)])


def test_alibi_slopes_for_12_heads_follow_the_non_power_of_two_rule():
    expected = [2.0**-i for i in range(1, 9)] + [0.70711, 0.35355, 0.17678, 0.08839]
    assert alibi_slopes(12) == pytest.approx(expected, abs=1e-5)


def test_alibi_naive_formula_would_be_wrong_for_12_heads():
    naive = [0.5 * 2.0**-i for i in range(12)]  # the common bug, right only for 8 heads
    assert alibi_slopes(12) != pytest.approx(naive)


def test_alibi_bias_is_minus_slope_times_distance():
    bias = Alibi(32, 8, 4, 16).score_bias(5, 5, 0, torch.float32)  # (H, T, S)
    assert bias.shape == (8, 5, 5)
    assert torch.all(bias.diagonal(dim1=1, dim2=2) == 0)
    assert bias[0, 4, 1].item() == pytest.approx(-0.5 * 3)
    assert bias[7, 4, 0].item() == pytest.approx(-(2.0**-8) * 4)


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


def _t5_reference_bucket(
    relative_position: int, bidirectional: bool, num_buckets: int = 32, max_distance: int = 128
) -> int:
    """T5's bucket rule written out for one offset (key - query), as in Raffel et al.'s mesh_tensorflow code."""
    bucket = 0
    n = -relative_position
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if n < 0 else 0
        n = abs(n)
    else:
        n = max(n, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n
    large = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact))
    return bucket + min(large, num_buckets - 1)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_t5_buckets_follow_t5s_rule_for_every_offset(bidirectional):
    from variants.position.t5_bias import relative_bucket

    offsets = torch.arange(-300, 301)
    got = relative_bucket(offsets, bidirectional).tolist()
    assert got == [_t5_reference_bucket(o, bidirectional) for o in offsets.tolist()]


def test_t5_buckets_exact_for_small_offsets_log_spaced_after_and_split_by_sign_when_bidirectional():
    from variants.position.t5_bias import relative_bucket

    back = relative_bucket(-torch.arange(0, 400), bidirectional=False)  # keys at or before the query (causal)
    assert back[:16].tolist() == list(range(16))  # half the buckets exact
    assert (
        back[16].item() == 16 and back[127].item() == 31 and back[128:].eq(31).all()
    )  # log-spaced to 128, then the last
    assert relative_bucket(torch.tensor([1, 5, 500]), bidirectional=False).tolist() == [
        0,
        0,
        0,
    ]  # later keys: masked anyway
    both = relative_bucket(torch.tensor([0, -1, 1, -7, 7, -8, 8, -200, 200]), bidirectional=True).tolist()
    assert both == [0, 1, 17, 7, 23, 8, 24, 15, 31]  # 16 buckets per sign, 8 of them exact


def test_t5_bias_is_the_learned_scalar_of_each_heads_bucket():
    from variants.position.t5_bias import T5Bias, relative_bucket

    t5 = T5Bias(32, 4, 8, 256)
    assert t5.max_distance == 128 and T5Bias(32, 4, 8, 32).max_distance == 32  # the training length when shorter
    with torch.no_grad():
        t5.causal_table.copy_(torch.randn(4, 32))
    bias = t5.score_bias(6, 10, 4, torch.float32)  # queries at positions 4..9, keys 0..9
    assert bias.shape == (4, 6, 10)
    assert bias[2, 5, 1].item() == t5.causal_table[2, relative_bucket(torch.tensor(1 - 9), False)].item()
    assert torch.equal(bias, t5.score_bias(10, 10, 0, torch.float32)[:, 4:])  # an offset gives the last rows
    assert [n for n, _ in t5.named_parameters()] == ["causal_table"]  # a decoder LM has no encoder table
    t5.enable_bidirectional()
    with torch.no_grad():
        t5.bidirectional_table.copy_(torch.randn(4, 32))
    enc = t5.bidirectional_bias(5, 5, torch.float32)
    assert enc[0, 1, 3].item() == t5.bidirectional_table[0, 16 + 2].item()  # key 2 after the query: upper half
    assert enc[0, 3, 1].item() == t5.bidirectional_table[0, 2].item()


def test_t5_bias_trains_through_the_sdpa_kernel():
    from variants.models.transformer import build
    from variants.spec import TransformerSpec, resolve

    model = build(resolve("t5_bias+sdpa", TransformerSpec(vocab_size=11, d_model=16, n_heads=2, n_layers=1, max_len=8)))
    model(torch.randint(0, 11, (2, 8))).logsumexp(-1).sum().backward()
    assert model.position.causal_table.grad.abs().sum() > 0


def test_randomized_training_positions_are_sorted_distinct_samples_of_the_larger_range():
    from variants.position.randomized import sorted_sample

    pos = sorted_sample(64, 32, 512)
    assert pos.shape == (64, 32) and pos.min() >= 0 and pos.max() < 512
    assert (pos[:, 1:] > pos[:, :-1]).all()  # sorted, no position twice
    assert pos.max() > 100  # drawn from the whole range, not 0..T-1


def test_randomized_positions_are_drawn_in_training_and_with_a_test_generator_else_0_to_n():
    from variants.models.transformer import build
    from variants.spec import TransformerSpec, resolve

    small = TransformerSpec(vocab_size=11, d_model=16, n_heads=2, n_layers=2, max_len=8)
    tokens = torch.randint(0, 11, (3, 8))
    torch.manual_seed(0)
    rand, rope = build(resolve("randomized", small)), build(resolve("rope", small))
    with torch.no_grad():  # sharper attention than at initialisation, so positions show in the output
        for name, p in rand.named_parameters():
            if name.endswith(("q_proj.weight", "kv_proj.weight")):
                p.mul_(50)
    rope.load_state_dict(rand.state_dict())
    rand.eval(), rope.eval()
    assert torch.allclose(rand(tokens), rope(tokens), atol=1e-6)  # no test generator: positions 0..T-1
    assert rand.position._sampled is None
    # the paper's test protocol: sorted draws of 0..16L-1 at test time too, from a fixed-seed generator
    rand.position.draw_at_test(torch.Generator().manual_seed(0))
    drawn = rand(tokens)
    test_pos = rand.position._sampled
    assert test_pos.shape == (3, 8) and test_pos.max() < 16 * 8 and (test_pos[:, 1:] > test_pos[:, :-1]).all()
    assert not torch.allclose(drawn, rope(tokens), atol=1e-4)
    rand.position.draw_at_test(torch.Generator().manual_seed(0))
    assert torch.equal(rand(tokens), drawn)  # the same seed, the same draw, whatever the global RNG did
    rand.position.draw_at_test(None)
    rand.train()
    torch.manual_seed(1)
    first = rand(tokens)
    sampled = rand.position._sampled  # (B, T): one draw per sequence, used by every layer of this pass
    assert sampled.shape == (3, 8) and sampled.max() < 16 * 8 and (sampled[:, 1:] > sampled[:, :-1]).all()
    assert not torch.allclose(first, rope(tokens), atol=1e-4)
    torch.manual_seed(1)
    assert torch.equal(rand(tokens), first)  # the training draw follows the global seed


def test_t5_bias_of_a_short_training_length_is_finite_far_past_it():
    from variants.position.t5_bias import T5Bias

    for max_len in (4, 8, 16, 17):
        pe = T5Bias(d_model=16, n_heads=2, head_dim=8, max_len=max_len)
        with torch.no_grad():
            pe.causal_table.copy_(torch.arange(64.0).view(2, 32))
        bias = pe.score_bias(64, 64, 0, torch.float32)  # (H, T, S)
        assert torch.isfinite(bias).all(), max_len
        assert bias[0, 63, 0] == 31.0  # the farthest offset lands in the last bucket


@pytest.mark.parametrize("name", ["alibi", "t5_bias"])
def test_score_mods_equal_the_dense_biases_causal_and_bidirectional(name):
    """What FlexAttention computes in the kernel (score_mod) is the tensor the other kernels add, in both forms."""
    from variants.position._base import positions

    enc = positions.get(name)(32, 4, 8, 16)
    enc.enable_bidirectional()
    for table in (getattr(enc, "causal_table", None), getattr(enc, "bidirectional_table", None)):
        if table is not None:
            torch.nn.init.normal_(table)  # T5's tables start at zero
    T, S, offset = 5, 9, 4
    h, q, kv = torch.arange(4)[:, None, None], torch.arange(T)[None, :, None], torch.arange(S)[None, None, :]
    zero = torch.zeros(4, T, S)
    causal = enc.attention_bias(T, S, offset, torch.float32)
    assert torch.allclose(causal.score_mod(zero, 0, h, q, kv), causal.dense(), atol=1e-6)
    both = enc.attention_bias(S, S, 0, torch.float32, causal=False)
    h, q, kv = torch.arange(4)[:, None, None], torch.arange(S)[None, :, None], torch.arange(S)[None, None, :]
    assert torch.allclose(both.score_mod(torch.zeros(4, S, S), 0, h, q, kv), both.dense(), atol=1e-6)
    assert torch.equal(both.dense(), enc.bidirectional_bias(S, S, torch.float32))
