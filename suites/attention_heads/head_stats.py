"""What each attention head attends to, read from its attention probabilities.

Clark et al. 2019 (arXiv 1906.04341) describe BERT's heads by where their attention goes: some put most
of it on the previous or next token (a fixed offset), some on delimiters ([SEP], punctuation), some
spread it broadly (high entropy); Xiao et al. 2023 (StreamingLLM, arXiv 2309.17453) find a large share
on the first token whatever it is (an attention sink). ``HeadStats`` accumulates those quantities for
every layer and head from probabilities a of shape (B, H, T, T) (each row a query's distribution over
the T keys), averaged over the batch and the scored queries: positions ``first_query`` .. T-1. The
query at position 0 of a causal model can only attend to itself (no previous token, entropy 0), so by
default it is not scored.

``recorded_attention`` runs a Transformer with every layer's kernel replaced by the naive kernel's
explicit probabilities (variants/kernel/naive.py, ``Naive.weights``), recorded per layer.
"""

from __future__ import annotations

import contextlib
import string
from collections.abc import Iterator

import torch
from torch.nn import functional as F

from variants.kernel import kernels, repeat_kv

#: characters that count as delimiters: whitespace and ASCII punctuation
DELIMITERS = frozenset(" \n\t\r" + string.punctuation)
#: the statistics per head, in report order, with their units
STATS: tuple[tuple[str, str], ...] = (
    ("entropy", "nats"),
    ("mean_distance", "tokens"),
    ("previous_token_share", ""),
    ("first_token_share", ""),
    ("delimiter_share", ""),
    ("offset_share", ""),
)


def delimiter_mask(chars: str) -> torch.Tensor:
    """(len(chars),) bool: which characters are delimiters (space, newline, tab, punctuation)."""
    return torch.tensor([c in DELIMITERS for c in chars], dtype=torch.bool)


def at_offset(weights: torch.Tensor, d: int, first_query: int = 0) -> torch.Tensor:
    """a_i,i-d for the queries i = first_query .. T-1 of probabilities (B, H, T, T): (B, H, T - first_query),
    0 for queries with no key d positions back (i < d)."""
    diag = torch.diagonal(weights, offset=-d, dim1=-2, dim2=-1)  # (B, H, T - d): queries d .. T-1
    values = diag[..., max(0, first_query - d) :]
    return F.pad(values, (max(0, d - first_query), 0))


class HeadStats:
    """Running sums of per-head attention statistics for ``n_layers`` x ``n_heads`` heads.

    Every statistic is a mean over the queries scored (batch x positions ``first_query`` .. T-1):

    - ``entropy``: -sum_j a_ij ln a_ij, nats (a head spread evenly over n keys scores ln n);
    - ``mean_distance``: sum_j a_ij |i - j|, tokens;
    - ``previous_token_share``: a_i,i-1; ``first_token_share``: a_i,0 (the attention sink);
    - ``delimiter_share``: sum of a_ij over keys j that are delimiters;
    - ``offset_share``: the largest, over offsets d >= 0, of the mean of a_i,i-d (0 where i < d), and
      ``best_offset`` the d that attains it (1: previous token, 0: the query itself).

    ``delimiter_base`` is what a head spreading its attention evenly over the keys a causal query may
    see (0 .. i) would put on delimiters: the yardstick a delimiter share is compared with.
    """

    def __init__(self, n_layers: int, n_heads: int, first_query: int = 1):
        self.n_layers, self.n_heads, self.first_query = n_layers, n_heads, first_query
        self.sums: dict[str, torch.Tensor] = {
            name: torch.zeros(n_layers, n_heads, dtype=torch.float64) for name, _ in STATS if name != "offset_share"
        }
        self.offset_sums = torch.zeros(n_layers, n_heads, 0, dtype=torch.float64)  # grows to the longest T seen
        self.queries = torch.zeros(n_layers, dtype=torch.float64)
        self.base_sum, self.base_queries, self.uniform_entropy_sum = 0.0, 0, 0.0

    def add(self, layer: int, weights: torch.Tensor, delimiters: torch.Tensor) -> None:
        """Accumulate one layer's probabilities (B, H, T, T) of inputs whose keys are delimiters where
        ``delimiters`` (B, T) is True."""
        B, H, T, S = weights.shape
        if T != S:
            raise ValueError(f"HeadStats reads self-attention over a whole window (T == S), got T={T}, S={S}")
        if H != self.n_heads or not 0 <= layer < self.n_layers:
            raise ValueError(
                f"layer {layer} with {H} heads is outside this HeadStats ({self.n_layers} x {self.n_heads})"
            )
        if T <= self.first_query:
            return
        full = weights.detach().to(torch.float64)  # (B, H, T, T)
        a = full[:, :, self.first_query :, :]  # (B, H, Q, T): the scored queries
        i = torch.arange(self.first_query, T, dtype=torch.float64, device=a.device)[:, None]  # (Q, 1)
        j = torch.arange(T, dtype=torch.float64, device=a.device)[None, :]  # (1, T)
        per_query = {  # each (B, H, Q)
            "entropy": -torch.special.xlogy(a, a).sum(-1),
            "mean_distance": (a * (i - j).abs()).sum(-1),
            "previous_token_share": at_offset(full, 1, self.first_query),
            "first_token_share": a[..., 0],
            "delimiter_share": (a * delimiters.to(a)[:, None, None, :]).sum(-1),
        }
        for name, values in per_query.items():
            self.sums[name][layer] += values.sum(dim=(0, 2)).cpu()
        self.queries[layer] += B * (T - self.first_query)
        if self.offset_sums.shape[-1] < T:
            grown = torch.zeros(self.n_layers, self.n_heads, T, dtype=torch.float64)
            grown[..., : self.offset_sums.shape[-1]] = self.offset_sums
            self.offset_sums = grown
        for d in range(T):
            self.offset_sums[layer, :, d] += at_offset(full, d, self.first_query).sum(dim=(0, 2)).cpu()
        if layer == 0:  # properties of the inputs, the same for every layer: counted once
            d = delimiters.to(torch.float64)
            seen = torch.cumsum(d, dim=-1) / torch.arange(1, T + 1, dtype=torch.float64, device=d.device)  # (B, T)
            self.base_sum += float(seen[:, self.first_query :].sum())
            self.base_queries += B * (T - self.first_query)
            self.uniform_entropy_sum += B * float(
                torch.log(torch.arange(self.first_query + 1, T + 1, dtype=torch.float64)).sum()
            )

    def result(self) -> dict[str, torch.Tensor]:
        """Every statistic as an (n_layers, n_heads) tensor of means, plus ``best_offset`` (long)."""
        q = self.queries.clamp_min(1)[:, None]
        out = {name: total / q for name, total in self.sums.items()}
        offsets = self.offset_sums / q[..., None]  # (L, H, T)
        out["offset_share"], out["best_offset"] = (
            offsets.max(dim=-1)
            if offsets.shape[-1]
            else (
                torch.zeros(self.n_layers, self.n_heads, dtype=torch.float64),
                torch.zeros(self.n_layers, self.n_heads, dtype=torch.long),
            )
        )
        return out

    @property
    def delimiter_base(self) -> float:
        """The delimiter share of a head attending evenly over the keys a causal query sees."""
        return self.base_sum / max(1, self.base_queries)

    @property
    def uniform_entropy(self) -> float:
        """The mean entropy of a head attending evenly over the keys a causal query sees: mean of ln(i + 1)."""
        return self.uniform_entropy_sum / max(1, self.base_queries)


class _Recorder:
    """A kernel stand-in: the naive kernel's probabilities, kept for its layer, then applied to the values."""

    def __init__(self, layer: int, sink: dict[int, torch.Tensor]):
        self.layer, self.sink, self.naive = layer, sink, kernels.get("naive")

    def attend(self, q, k, v, *, causal: bool, bias=None, scale=None, score_fn=None):
        weights = self.naive.weights(q, k, causal=causal, bias=bias, scale=scale, score_fn=score_fn)  # (B, H, T, S)
        self.sink[self.layer] = weights
        return weights @ repeat_kv(v, q.shape[1])  # (B, H, T, Dh)


@contextlib.contextmanager
def recorded_attention(model) -> Iterator[dict[int, torch.Tensor]]:
    """Within the block, each forward pass of ``model`` (a variants.models.transformer.DecoderLM) leaves layer i's
    attention probabilities (B, H, T, T) in the yielded dict under key i; the kernels are restored after."""
    sink: dict[int, torch.Tensor] = {}
    saved: list = [block.attn.kernel for block in model.blocks]
    try:
        for i, block in enumerate(model.blocks):
            block.attn.kernel = _Recorder(i, sink)
        yield sink
    finally:
        for block, kernel in zip(model.blocks, saved):
            block.attn.kernel = kernel
