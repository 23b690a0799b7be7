"""Position tables cached on the device and grown on demand (variants/position/_tables.py, ALiBi's biases):
equal, bit for bit, to tables built fresh for the positions asked for, and usable in training when first built
under inference mode."""

import pytest
import torch

from variants.position.alibi import Alibi
from variants.position.rope import apply_rope
from variants.position.sinusoidal import sinusoid_table


def _fresh_sinusoid_embed(x, offset):
    """What Sinusoidal.embed computed before its table was cached: a table for these positions alone."""
    return x + sinusoid_table(x.shape[1], x.shape[2], offset).to(device=x.device, dtype=x.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_cached_sinusoid_rows_equal_a_table_built_for_them_alone(dtype):
    from variants.position._tables import clear_tables
    from variants.position.sinusoidal import Sinusoidal

    clear_tables()
    enc = Sinusoidal(48, 4, 12, 64)
    # short first, then longer (the table grows), then offsets inside and past it, single decode steps
    for length, offset in [(5, 0), (300, 0), (17, 3), (1, 299), (1, 300), (64, 700), (1, 5000), (1000, 0)]:
        x = torch.randn(2, length, 48).to(dtype)
        assert torch.equal(enc.embed(x, offset), _fresh_sinusoid_embed(x, offset)), (length, offset)


@pytest.mark.parametrize("scaling,s", [(None, 1.0), ("yarn", 4.0), ("pi", 2.0), ("dynamic_ntk", 3.5)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_cached_rope_cos_sin_equal_tables_built_for_their_positions_alone(scaling, s, dtype):
    from variants.position._tables import clear_tables
    from variants.position.rope import _cos_sin, _cos_sin_table
    from variants.rope_scaling import rope_scalings

    clear_tables()
    scale = None if scaling is None else rope_scalings.get(scaling)
    for length, offset in [(8, 0), (512, 0), (1, 511), (1, 512), (33, 7), (128, 1000), (4096, 0)]:
        got = _cos_sin(length, 16, offset, 10000.0, dtype, "cpu", scale, s, 64)
        want = _cos_sin_table(length, 16, offset, 10000.0, dtype, "cpu", scale, s, 64)
        assert all(torch.equal(g, w) for g, w in zip(got, want)), (length, offset)


def test_rope_rotation_uses_the_cached_rows_of_its_offset():
    from variants.position.rope import _cos_sin_table, rotate_pairs

    x = torch.randn(2, 3, 5, 8)
    cos, sin = _cos_sin_table(5, 8, 40, 10000.0, torch.float32, "cpu")
    assert torch.equal(apply_rope(x, offset=40), rotate_pairs(x, cos, sin))


def test_a_table_first_built_under_inference_mode_serves_training():
    from variants.position._tables import clear_tables
    from variants.position.sinusoidal import Sinusoidal

    clear_tables()
    with torch.inference_mode():
        apply_rope(torch.randn(1, 2, 6, 8), offset=0)
        Sinusoidal(8, 2, 4, 16).embed(torch.randn(1, 6, 8))
    q = torch.randn(1, 2, 6, 8, requires_grad=True)
    apply_rope(q).sum().backward()
    e = torch.randn(1, 6, 8, requires_grad=True)
    Sinusoidal(8, 2, 4, 16).embed(e).sum().backward()
    assert q.grad is not None and e.grad is not None


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_cached_alibi_bias_equals_a_fresh_one_and_is_reused(dtype):
    enc = Alibi(64, 8, 8, 32)
    for q_len, k_len, offset in [(32, 32, 0), (1, 77, 76), (5, 40, 35), (32, 32, 0)]:
        got = enc.score_bias(q_len, k_len, offset, dtype)
        assert torch.equal(got, enc._build_bias(q_len, k_len, offset, dtype))
    assert enc.score_bias(32, 32, 0, dtype) is enc.score_bias(32, 32, 0, dtype)  # a training step builds nothing


def test_alibi_keeps_no_bias_larger_than_its_budget():
    from variants.position.alibi import CACHED_ELEMENTS

    enc = Alibi(64, 8, 8, 32)
    side = int((CACHED_ELEMENTS // 8) ** 0.5) + 1
    enc.score_bias(side, side, 0, torch.float32)
    assert not enc._biases


def test_an_alibi_bias_first_built_under_inference_mode_serves_training():
    enc = Alibi(16, 2, 8, 8)
    with torch.inference_mode():
        enc.score_bias(4, 4, 0, torch.float32)
    scores = torch.randn(2, 4, 4, requires_grad=True)
    (scores + enc.score_bias(4, 4, 0, torch.float32)).sum().backward()
    assert scores.grad is not None
