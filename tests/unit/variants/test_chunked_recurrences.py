"""The chunked forms of gated linear attention and the gated delta rule against their token-by-token recurrences,
and the pinned behaviour of each rule: what it stores, what it overwrites, what it forgets."""

import pytest
import torch
from torch.nn import functional as F

from variants.mixer._chunked import gated_delta_chunked, gated_delta_step, gated_linear_chunked, gated_linear_step

B, H, T, K, V = 2, 3, 37, 5, 4
F64 = torch.float64


def _inputs(seed=0):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, T, K, generator=gen, dtype=F64)
    k = F.normalize(torch.randn(B, H, T, K, generator=gen, dtype=F64), dim=-1)
    v = torch.randn(B, H, T, V, generator=gen, dtype=F64)
    return q, k, v, gen


def _loop(step, *per_token):
    """Run ``step`` token by token from a zero state: (outputs (B, H, T, V), the last state)."""
    S = torch.zeros(B, H, K, V, dtype=F64)
    outs = []
    for t in range(T):
        o, S = step(*(None if a is None else a[:, :, t] for a in per_token), S)
        outs.append(o)
    return torch.stack(outs, 2), S


@pytest.mark.parametrize("chunk", [1, 4, 8, 37, 64])  # 8 does not divide 37: the last chunk is padded
@pytest.mark.parametrize("gate", ["per_key", "per_head"])
def test_gated_linear_chunked_equals_its_recurrence(chunk, gate):
    q, k, v, gen = _inputs()
    width = K if gate == "per_key" else 1
    log_alpha = F.logsigmoid(torch.randn(B, H, T, width, generator=gen, dtype=F64) + 1)
    want, want_state = _loop(gated_linear_step, q, k, v, log_alpha)
    got, state = gated_linear_chunked(q, k, v, log_alpha, chunk)
    assert torch.allclose(got, want, rtol=0, atol=1e-12) and torch.allclose(state, want_state, rtol=0, atol=1e-12)


@pytest.mark.parametrize("chunk", [1, 4, 8, 37, 64])
@pytest.mark.parametrize("gated", [False, True])
def test_gated_delta_chunked_equals_its_recurrence(chunk, gated):
    q, k, v, gen = _inputs(1)
    beta = torch.sigmoid(torch.randn(B, H, T, generator=gen, dtype=F64))
    log_alpha = F.logsigmoid(torch.randn(B, H, T, generator=gen, dtype=F64) + 2) if gated else None
    want, want_state = _loop(gated_delta_step, q, k, v, beta, log_alpha)
    got, state = gated_delta_chunked(q, k, v, beta, log_alpha, chunk)
    assert torch.allclose(got, want, rtol=0, atol=1e-12) and torch.allclose(state, want_state, rtol=0, atol=1e-12)


def test_a_chunked_form_continues_from_a_given_state():
    q, k, v, gen = _inputs(2)
    log_alpha = F.logsigmoid(torch.randn(B, H, T, 1, generator=gen, dtype=F64))
    whole, _ = gated_linear_chunked(q, k, v, log_alpha, 8)
    first, S = gated_linear_chunked(q[:, :, :20], k[:, :, :20], v[:, :, :20], log_alpha[:, :, :20], 8)
    second, _ = gated_linear_chunked(q[:, :, 20:], k[:, :, 20:], v[:, :, 20:], log_alpha[:, :, 20:], 8, state=S)
    assert torch.allclose(torch.cat([first, second], 2), whole, rtol=0, atol=1e-12)


def test_without_decay_gated_linear_attention_is_unnormalised_linear_attention():
    q, k, v, _ = _inputs(3)
    got, _ = gated_linear_chunked(q, k, v, torch.zeros(B, H, T, 1, dtype=F64), 8)
    scores = (q @ k.transpose(-1, -2)).tril()  # (B, H, T, T): q_t . k_s for s <= t
    assert torch.allclose(got, scores @ v, rtol=0, atol=1e-12)


def test_ssd_is_a_decayed_sum_over_the_past():
    """Mamba-2's y_t = sum_{s <= t} (C_t . B_s) exp(sum_{s < r <= t} dt_r A) x_s dt_s (Dao & Gu 2024, eq. 16)."""
    q, k, v, gen = _inputs(4)
    log_a = -torch.rand(B, H, T, 1, generator=gen, dtype=F64)
    got, _ = gated_linear_chunked(q, k, v, log_a, 8)
    t = 20
    cum = log_a[..., 0].cumsum(-1)  # (B, H, T)
    weights = (q[:, :, t : t + 1] * k[:, :, : t + 1]).sum(-1) * (cum[:, :, t : t + 1] - cum[:, :, : t + 1]).exp()
    assert torch.allclose(got[:, :, t], (weights.unsqueeze(-1) * v[:, :, : t + 1]).sum(2), rtol=0, atol=1e-12)


def test_the_delta_rule_overwrites_where_linear_attention_adds():
    """Write (k, v1) then (k, v2) at full strength: the delta rule reads back v2, linear attention v1 + v2."""
    k = F.normalize(torch.tensor([1.0, 2.0, 0.5], dtype=F64), dim=0).view(1, 1, 3)
    v1, v2 = torch.tensor([[[1.0, 0.0]]], dtype=F64), torch.tensor([[[0.0, 3.0]]], dtype=F64)
    one = torch.ones(1, 1, dtype=F64)
    S = torch.zeros(1, 1, 3, 2, dtype=F64)
    _, S = gated_delta_step(k, k, v1, one, None, S)
    read, _ = gated_delta_step(k, k, v2, one, None, S)
    assert torch.allclose(read, v2, atol=1e-12)
    L = torch.zeros(1, 1, 3, 2, dtype=F64)
    _, L = gated_linear_step(k, k, v1, torch.zeros(1, 1, 1, dtype=F64), L)
    added, _ = gated_linear_step(k, k, v2, torch.zeros(1, 1, 1, dtype=F64), L)
    assert torch.allclose(added, v1 + v2, atol=1e-12)


def test_a_closed_gate_forgets_the_past():
    q, k, v, _ = _inputs(5)
    log_alpha = torch.zeros(B, H, T, dtype=F64)
    log_alpha[:, :, 10] = -1e4  # alpha = 0 at t = 10: nothing before it survives
    beta = torch.full((B, H, T), 0.5, dtype=F64)
    got, _ = gated_delta_chunked(q, k, v, beta, log_alpha, 8)
    fresh, _ = gated_delta_chunked(q[:, :, 10:], k[:, :, 10:], v[:, :, 10:], beta[:, :, 10:], log_alpha[:, :, 10:], 8)
    assert torch.allclose(got[:, :, 10:], fresh, rtol=0, atol=1e-12)
