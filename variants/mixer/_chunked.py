"""Chunkwise-parallel and recurrent forms of the gated linear recurrences behind GLA, Mamba-2, DeltaNet, Gated DeltaNet.

Every head carries a matrix state S (K x V) and reads it with its query, o_t = S_t^T q_t. Two update rules cover
the four models:

- gated linear attention, S_t = diag(alpha_t) S_{t-1} + k_t v_t^T, with a gate per key channel (GLA, Yang et al.
  2023, arXiv 2312.06635, eq. 3) or one per head (Mamba-2's SSD, Dao & Gu 2024, arXiv 2405.21060, eq. 16 with
  B_t = k_t, C_t = q_t, x_t dt_t = v_t);
- the gated delta rule, S_t = alpha_t (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T (Gated DeltaNet, Yang,
  Kautz & Hatamizadeh 2024, arXiv 2412.06464, eq. 10; alpha_t = 1 is DeltaNet, Yang et al. 2024, arXiv 2406.06484,
  eq. 4), written here with S as K x V, the transpose of the papers' V x K.

The chunked form splits T into chunks of C tokens: inside a chunk, every output is a masked matrix product (all
chunks at once); across chunks only the C-times-shorter state recurrence runs in order (GLA section 3.3, SSD
section 6, DeltaNet section 3.3). Gates enter through b_t, the cumulative sum of log alpha inside the chunk, only as
exp(b_t - b_s) with s <= t or exp(b_C - b_s) and exp(b_t), all at most 1, so no factor can overflow (the papers'
kernels reach the same by secondary chunking or by log space). The delta rule's chunk is the lower-triangular
solve of DeltaNet's UT transform (section 3.3, eq. 8-11): with u_t the update that the rank-one step writes,
S_t = gamma_t S_0 + sum_{s<=t} (gamma_t / gamma_s) k_s u_s^T, and
(I + diag(beta) (tril(K K^T, -1) * Gamma)) U = diag(beta) (V - diag(gamma) K S_0),
Gamma[t, s] = gamma_t / gamma_s, gamma_t the product of the chunk's alphas up to t.

Shapes: q, k (B, H, T, K); v (B, H, T, V); a gate's log (B, H, T, K) per channel or (B, H, T, 1) per head, <= 0;
beta (B, H, T); the state (B, H, K, V). The recurrent forms take one token: q, k (B, H, K), v (B, H, V).
"""

from __future__ import annotations

import torch
from torch.nn import functional as F


def _pad(t: torch.Tensor, chunk: int, dim: int) -> torch.Tensor:
    """``t`` with zeros appended along ``dim`` to a multiple of ``chunk`` (a zero key, value, beta and log gate
    leave the state as it was, and the padded outputs are dropped)."""
    extra = (-t.shape[dim]) % chunk
    if not extra:
        return t
    pad = [0, 0] * (t.dim() - 1 - dim % t.dim()) + [0, extra]
    return F.pad(t, pad)


def _chunks(t: torch.Tensor, chunk: int) -> torch.Tensor:
    """(B, H, T, X) -> (B, H, N, C, X), T padded to N C."""
    t = _pad(t, chunk, 2)
    return t.unflatten(2, (t.shape[2] // chunk, chunk))


def _causal(C: int, device) -> torch.Tensor:
    """(C, C) True where s <= t."""
    return torch.ones(C, C, dtype=torch.bool, device=device).tril()


def _zero_state(q: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return q.new_zeros(q.shape[0], q.shape[1], q.shape[-1], v.shape[-1])


def gated_linear_chunked(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    log_alpha: torch.Tensor,
    chunk: int,
    state: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """o_t = S_t^T q_t, S_t = diag(alpha_t) S_{t-1} + k_t v_t^T, chunk by chunk: (o (B, H, T, V), the last state)."""
    T = q.shape[2]
    qc, kc, vc, lc = (_chunks(t, chunk) for t in (q, k, v, log_alpha))  # (B, H, N, C, .)
    b = lc.cumsum(-2)  # (B, H, N, C, K or 1): log of the gates' product from the chunk's start to t
    mask = _causal(chunk, q.device)
    diff = b.unsqueeze(-2) - b.unsqueeze(-3)  # (B, H, N, C_t, C_s, K or 1): b_t - b_s
    decay = diff.masked_fill(~mask.unsqueeze(-1), float("-inf")).exp()  # <= 1 where s <= t, 0 above
    if log_alpha.shape[-1] == 1:  # one gate per head: the decay factors out of the key dimension (SSD)
        scores = (qc @ kc.transpose(-1, -2)) * decay.squeeze(-1)  # (B, H, N, C, C)
    else:
        scores = torch.einsum("bhntk,bhnsk,bhntsk->bhnts", qc, kc, decay)
    o = scores @ vc  # (B, H, N, C, V): every chunk's own tokens
    last = b[..., -1:, :]  # (B, H, N, 1, K or 1)
    into = (kc * (last - b).exp()).transpose(-1, -2) @ vc  # (B, H, N, K, V): a chunk's tokens, decayed to its end
    reads = qc * b.exp()  # (B, H, N, C, K): queries decayed back to the chunk's start
    S = _zero_state(q, v) if state is None else state
    inter = []
    for n in range(qc.shape[2]):  # the state recurrence: one step per chunk
        inter.append(reads[:, :, n] @ S)
        S = last[:, :, n].transpose(-1, -2).exp() * S + into[:, :, n]
    o = o + torch.stack(inter, 2)
    return o.flatten(2, 3)[:, :, :T], S


def gated_linear_step(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_alpha: torch.Tensor, S: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token of gated linear attention: (o_t (B, H, V), S_t (B, H, K, V)); log_alpha (B, H, K or 1)."""
    S = log_alpha.exp().unsqueeze(-1) * S + k.unsqueeze(-1) * v.unsqueeze(-2)
    return (q.unsqueeze(-1) * S).sum(-2), S


def gated_delta_chunked(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    log_alpha: torch.Tensor | None,
    chunk: int,
    state: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """o_t = S_t^T q_t, S_t = alpha_t (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T, chunk by chunk (DeltaNet's UT
    transform); ``log_alpha`` (B, H, T) or None for DeltaNet (alpha = 1). Returns (o (B, H, T, V), the last state)."""
    T = q.shape[2]
    if log_alpha is None:
        log_alpha = beta.new_zeros(beta.shape)
    qc, kc, vc = (_chunks(t, chunk) for t in (q, k, v))  # (B, H, N, C, .)
    bc, lc = (_chunks(t.unsqueeze(-1), chunk).squeeze(-1) for t in (beta, log_alpha))  # (B, H, N, C)
    b = lc.cumsum(-1)  # log gamma_t
    mask = _causal(chunk, q.device)
    gamma_ts = (b.unsqueeze(-1) - b.unsqueeze(-2)).masked_fill(~mask, float("-inf")).exp()  # (B, H, N, C, C)
    strict = (kc @ kc.transpose(-1, -2)).tril(-1) * gamma_ts
    system = torch.eye(chunk, dtype=q.dtype, device=q.device) + bc.unsqueeze(-1) * strict  # unit lower triangular
    # U = U0 - W S_0: the part of each update that the chunk's own tokens determine, and the part read from S_0
    u0 = torch.linalg.solve_triangular(system, bc.unsqueeze(-1) * vc, upper=False, unitriangular=True)
    w = torch.linalg.solve_triangular(system, (bc * b.exp()).unsqueeze(-1) * kc, upper=False, unitriangular=True)
    scores = (qc @ kc.transpose(-1, -2)) * gamma_ts  # (B, H, N, C, C), s <= t
    reads = qc * b.exp().unsqueeze(-1)  # gamma_t q_t
    to_end = kc * (b[..., -1:] - b).exp().unsqueeze(-1)  # (gamma_C / gamma_s) k_s
    S = _zero_state(q, v) if state is None else state
    out = []
    for n in range(qc.shape[2]):
        u = u0[:, :, n] - w[:, :, n] @ S  # (B, H, C, V)
        out.append(reads[:, :, n] @ S + scores[:, :, n] @ u)
        S = b[:, :, n, -1].exp()[..., None, None] * S + to_end[:, :, n].transpose(-1, -2) @ u
    return torch.stack(out, 2).flatten(2, 3)[:, :, :T], S


def gated_delta_step(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    log_alpha: torch.Tensor | None,
    S: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token of the gated delta rule: (o_t (B, H, V), S_t (B, H, K, V)); beta, log_alpha (B, H)."""
    if log_alpha is not None:
        S = log_alpha.exp()[..., None, None] * S
    read = (k.unsqueeze(-1) * S).sum(-2)  # k_t^T (alpha_t S_{t-1}): (B, H, V), what the state now says for k_t
    S = S + k.unsqueeze(-1) * (beta.unsqueeze(-1) * (v - read)).unsqueeze(-2)
    return (q.unsqueeze(-1) * S).sum(-2), S
