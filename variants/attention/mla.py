"""Multi-head latent attention, MLA: keys and values from a shared low-rank latent (DeepSeek-AI 2024, DeepSeek-V2, arXiv 2405.04434).

Each token's keys and values come from one latent c = RMSNorm(W_DKV h) of width d_c (eq. 9-11; the RMSNorm after
the compressed latent is the paper's 3.1.2 and its code's ``kv_a_layernorm``, set by the ``mla`` preset's
``latent_norm``), shared by every head,
and positions enter through a decoupled key k^R = RoPE(W_KR h) of width d_h^R, also shared by the heads (eq.
12-19), beside a per-head query part q^R = RoPE(W_QR h); scores are [q^C; q^R] . [k^C; k^R] scaled by
1/sqrt(d_h + d_h^R). The cache holds c and k^R only: (d_c + d_h^R) values per token and layer, against GQA's
2 x groups x d_h, so d_c = 4 d_h and d_h^R = d_h / 2 (the paper's sizes, kept here at every head size) equal GQA
with 2.25 groups (section 2.1.4). Queries are not compressed (DeepSeek-V2-Lite's choice; the query's latent only
saves activation memory in training).

Two exact forms of one function. Without a cache (training, a full forward) the up-projections W_UK, W_UV
expand the latent into per-head keys and values, (B, H, S, d_h + d_h^R) and (B, H, S, d_h), and the spec's kernel
attends over them. With a cache (prefill and decode) the up-projections are absorbed (2.1.2): W_UK into the
query, q_lat = W_UK^T q^C (B, H, T, d_c), so each head scores the cached latent directly, [q_lat; q^R] .
[c; k^R]; and W_UV into the output, o = W_UV (sum_j p_j c_j). The cache is then read as one key/value head of
width d_c + d_h^R (an MQA step: ``grouped_decode`` reads it once for all heads), its value part being the
same buffer (the k^R columns of the weighted sum are dropped), and nothing per head is ever expanded.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from ..decode.kv_cache import NoCache
from ..decode.latent_cache import LatentCache
from ..norm.rmsnorm import RmsNorm
from ..score_bias import with_key_padding
from ..scoring._base import scorings
from ._base import SelfAttention, attentions, latent_dims


@attentions.register()
class LatentAttention(SelfAttention, nn.Module):
    """Multi-head latent attention (DeepSeek-V2): a latent of d_c and a shared RoPE key of d_h^R cached per token."""

    #: the ``mla`` preset also sets the latent's RMSNorm (``latent_norm``), as the authors' code has it
    preset_fields = {"latent_norm": True}
    #: no sliding window (``problems`` refuses one): what a cache's ``bias`` reads of the layer it serves
    window = None

    def __init__(self, spec, position, kernel) -> None:
        nn.Module.__init__(self)
        self.n_heads, self.head_dim = spec.n_heads, spec.head_dim
        self.latent_dim, self.rope_dim = latent_dims(spec)
        H, dh, dc, dr = self.n_heads, self.head_dim, self.latent_dim, self.rope_dim
        self.q_proj = nn.Linear(spec.d_model, H * (dh + dr), bias=False)  # [W_UQ; W_QR]: q^C and q^R of every head
        self.kv_down = nn.Linear(spec.d_model, dc + dr, bias=False)  # [W_DKV; W_KR]: the latent c and the shared k^R
        self.k_up = nn.Linear(dc, H * dh, bias=False)  # W_UK
        self.v_up = nn.Linear(dc, H * dh, bias=False)  # W_UV
        self.out_proj = nn.Linear(H * dh, spec.d_model, bias=False)  # W_O
        # DeepSeek-V2 3.1.2 and its code (kv_a_layernorm): an RMSNorm on c after the down-projection; the cache holds
        # the normalised latent, so the absorbed decode reads what the expanded form up-projects
        self.latent_norm = RmsNorm(dc) if getattr(spec, "latent_norm", None) else None
        self.position, self.kernel = position, kernel
        self.scoring = scorings.get(spec.scoring)(dh + dr)

    @staticmethod
    def from_spec(spec, position, kernel) -> LatentAttention:
        return LatentAttention(spec, position, kernel)

    @classmethod
    def problems(cls, spec, device, dtype, training) -> list[str]:
        reasons = []
        if spec.scoring in scorings and not getattr(scorings.get(spec.scoring), "dot_product", False):
            reasons.append(
                f"attention 'mla' absorbs W_UK into the query, which only a dot-product scoring allows, and "
                f"scoring '{spec.scoring}' is not one"
            )
        _, rope_dim = latent_dims(spec)
        if rope_dim < 2 or rope_dim % 2:
            reasons.append(
                f"attention 'mla' rotates a decoupled key of d_h / 2 = {rope_dim} dimensions, which RoPE "
                f"needs even and at least 2 (head dimension {spec.head_dim})"
            )
        if getattr(spec, "window", None) is not None:
            reasons.append("attention 'mla' caches a latent per token and has no sliding window here")
        if getattr(spec, "n_kv_heads", None) is not None:  # the record would name a grouping the model does not have
            reasons.append(
                f"attention 'mla' derives every head's keys and values from one latent, so n_kv_heads="
                f"{spec.n_kv_heads} (gqa/mqa) does not apply; drop the gqa/mqa preset"
            )
        return reasons

    @classmethod
    def cache_elements(cls, spec, tokens: int) -> int:
        latent, rope = latent_dims(spec)
        return (latent + rope) * tokens

    def empty_cache(self, batch: int, capacity: int = 0, dtype=None, device=None) -> LatentCache:
        """The latent cache of one layer: (B, 1, capacity, d_c + d_h^R), one buffer."""
        return LatentCache.empty(batch, self.latent_dim + self.rope_dim, capacity, dtype, device)

    def _scale(self) -> float:
        scale = self.scoring.scale()
        return 1.0 / math.sqrt(self.head_dim + self.rope_dim) if scale is None else scale

    def _queries(self, x: torch.Tensor, past: int):
        """x (B, T, D) -> q^C (B, H, T, d_h) and rotated q^R (B, H, T, d_h^R), after the scoring's query transform;
        the latent c (B, 1, T, d_c) and the rotated shared key k^R (B, 1, T, d_h^R)."""
        B, T, _ = x.shape
        H, dh, dc, dr = self.n_heads, self.head_dim, self.latent_dim, self.rope_dim
        q = self.q_proj(x).view(B, T, H, dh + dr).transpose(1, 2)  # (B, H, T, dh + dr)
        latent = self.kv_down(x).view(B, 1, T, dc + dr)  # (B, 1, T, dc + dr)
        q_c, q_r = q.split((dh, dr), dim=-1)
        c, k_r = latent.split((dc, dr), dim=-1)
        if self.latent_norm is not None:
            c = self.latent_norm(c)  # (B, 1, T, dc), over the latent's width only (not k^R)
        q_r, k_r = self.position.rotate(q_r, k_r, q_offset=past, k_offset=past)
        q = self.scoring.query(torch.cat((q_c, q_r), dim=-1))  # the scoring's transform acts on the whole query
        q_c, q_r = q.split((dh, dr), dim=-1)
        return q_c, q_r, c, k_r

    def forward(
        self,
        x: torch.Tensor,
        cache: LatentCache | None = None,
        *,
        causal: bool = True,
        key_padding: torch.Tensor | None = None,
        memory: torch.Tensor | None = None,
    ):
        """x (B, T, D) -> (B, T, D) and the cache: unabsorbed without one, absorbed (reading the latent) with one."""
        if memory is not None:
            raise ValueError("attention 'mla' is self-attention only; cross-attention uses the grouped layer")
        B, T, _ = x.shape
        past = 0 if cache is None else cache.length
        q_c, q_r, c, k_r = self._queries(x, past)
        if cache is None:
            y = self._expanded(q_c, q_r, c, k_r, causal, key_padding)
        else:
            latent = torch.cat((c, k_r), dim=-1)  # (B, 1, T, d_c + d_h^R): the one key/value head the cache holds
            cache, latent, _ = cache.update(latent, latent)  # (B, 1, S, d_c + d_h^R)
            y = self._absorbed(q_c, q_r, latent, cache, causal, key_padding)
        return self.out_proj(y.transpose(1, 2).reshape(B, T, -1)), cache

    def dispatch(self, x: torch.Tensor) -> str:
        """The implementation the kernel runs for the training form's causal self-attention on x (B, T, D), e.g.
        'sdpa:flash' (recorded with results), as ``Attention.dispatch`` answers for grouped attention."""
        q, k, v, bias = self._expanded_inputs(*self._queries(x, 0), True, None)
        return self.kernel.dispatch(q, k, v, causal=True, bias=bias, scale=self._scale())

    def _bias(self, cache, T: int, S: int, past: int, dtype, device, causal: bool, key_padding):
        """The bias of T queries over S keys, the first ``past`` of them cached: the cache's (the position's, as
        every cache gives it), with padded keys masked."""
        bias = cache.bias(self, T, S, past, dtype, device, causal)
        return with_key_padding(bias, key_padding, dtype) if key_padding is not None else bias

    def _expanded_inputs(self, q_c, q_r, c, k_r, causal, key_padding):
        """The paper's training form as the kernel takes it: queries [q^C; q^R], per-head keys [W_UK c; k^R] and values
        W_UV c, each (B, H, ., d_h + d_h^R) (kernels take one head size, so the values are padded with d_h^R zeros),
        and the position's bias."""
        B, H, T, dh = q_c.shape
        S, dr = c.shape[2], self.rope_dim
        k_c = self.k_up(c[:, 0]).view(B, S, H, dh).transpose(1, 2)  # (B, H, S, dh)
        v = self.v_up(c[:, 0]).view(B, S, H, dh).transpose(1, 2)  # (B, H, S, dh)
        k = torch.cat((k_c, k_r.expand(B, H, S, dr)), dim=-1)  # (B, H, S, dh + dr)
        v = torch.cat((v, v.new_zeros(B, H, S, dr)), dim=-1)
        bias = self._bias(NoCache(), T, S, S - T, q_c.dtype, q_c.device, causal, key_padding)
        return torch.cat((q_c, q_r), dim=-1), k, v, bias

    def _expanded(self, q_c, q_r, c, k_r, causal, key_padding) -> torch.Tensor:
        """The paper's training form: attention over the expanded keys and values -> (B, H, T, d_h)."""
        q, k, v, bias = self._expanded_inputs(q_c, q_r, c, k_r, causal, key_padding)
        return self.kernel.attend(q, k, v, causal=causal, bias=bias, scale=self._scale())[..., : self.head_dim]

    def absorbed_query(self, q_c: torch.Tensor) -> torch.Tensor:
        """q^C (B, H, T, d_h) -> W_UK^T q^C (B, H, T, d_c): each head's query in the latent's coordinates."""
        w_uk = self.k_up.weight.view(self.n_heads, self.head_dim, self.latent_dim)  # (H, dh, dc)
        return torch.einsum("bhtd,hdc->bhtc", q_c, w_uk)

    def _absorbed(self, q_c, q_r, latent, cache, causal, key_padding) -> torch.Tensor:
        """Attention over the cached latent (B, 1, S, d_c + d_h^R), W_UK and W_UV absorbed -> (B, H, T, d_h)."""
        T, S, dc = q_c.shape[2], latent.shape[2], self.latent_dim
        q = torch.cat((self.absorbed_query(q_c), q_r), dim=-1)  # (B, H, T, dc + dr)
        bias = self._bias(cache, T, S, S - T, q.dtype, q.device, causal, key_padding)
        # one key/value head for all H query heads (an MQA call); the values are the same buffer as the keys
        pooled = self.kernel.attend(q, latent, latent, causal=causal, bias=bias, scale=self._scale())[..., :dc]
        w_uv = self.v_up.weight.view(self.n_heads, self.head_dim, dc)  # (H, dh, dc)
        return torch.einsum("bhtc,hdc->bhtd", pooled, w_uv)  # (B, H, T, dh)
