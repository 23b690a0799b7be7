"""Streaming a text through a bounded cache: four cache policies, the positions each keeps, and one cached step.

StreamingLLM (Xiao et al. 2023, arXiv 2309.17453, section 3) compares, for a model trained on windows of L tokens
and fed a text many times longer:
- ``full``: dense attention, every earlier token cached (memory grows; positions run past the training length);
- ``window``: the last C tokens' keys and values (a rolling cache; the first tokens are evicted at C);
- ``sinks``: the first k tokens (attention sinks, k = 4 in the paper) and the last C - k;
- ``recompute``: sliding-window recomputation, the last C tokens run again from scratch at every step (the quality
  bound of a bounded context, at C times the work).
Positions are those *within the cache* (section 3.2): a cached key is stored before its rotation and rotated at its
slot when read, the query at the last slot, so distances stay below C whatever the text position; with ``full``
the slots are the text's positions. A step attends with explicit scores (naive attention, float32), which also
gives each layer's attention weights, from which the share on the first slot is read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

POLICIES = ("full", "window", "sinks", "recompute")


def kept_positions(policy: str, held: list[int], capacity: int, sinks: int) -> list[int]:
    """The positions a cache holding ``held`` (text positions, oldest first) keeps for the next step, whose own token
    then fills it to at most ``capacity`` entries: all (full), the last capacity - 1 (window), or the first ``sinks``
    positions of the text and the last capacity - 1 - sinks (sinks)."""
    if policy == "full":
        return list(held)
    room = capacity - 1
    if policy == "window":
        return list(held[-room:]) if room > 0 else []
    if policy == "sinks":
        first = [p for p in held if p < sinks][:sinks]
        recent = [p for p in held if p >= sinks]
        keep = room - len(first)
        return first + (recent[-keep:] if keep > 0 else [])
    raise ValueError(f"policy {policy!r} keeps no cache; choose one of full, window, sinks")


@dataclass
class StreamState:
    """Per layer the un-rotated keys and the values held, (B, Hkv, n, Dh) each, and the text positions they hold."""

    keys: list[torch.Tensor | None]
    values: list[torch.Tensor | None]
    positions: list[int] = field(default_factory=list)

    @classmethod
    def empty(cls, layers: int) -> StreamState:
        return cls([None] * layers, [None] * layers, [])

    def evict(self, keep: list[int]) -> None:
        """Keep only the entries at text positions ``keep`` (a subset of ``positions``, in order)."""
        if keep == self.positions:
            return
        index = torch.tensor([self.positions.index(p) for p in keep], dtype=torch.long)
        for layer, (k, v) in enumerate(zip(self.keys, self.values)):
            if k is not None:
                self.keys[layer] = k.index_select(2, index.to(k.device))
                self.values[layer] = v.index_select(2, index.to(v.device))
        self.positions = list(keep)

    def cached_bytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in self.keys + self.values if t is not None)


def _attend(attn, x: torch.Tensor, state: StreamState, layer: int, shares: dict[int, list[float]] | None):
    """One token's self-attention of one layer (an ``Attention`` of variants/attention/grouped.py with RoPE or no positions)
    over the cache plus itself, keys rotated at their slots: x (B, 1, D) -> (B, 1, D)."""
    B = x.shape[0]
    H, Hkv, Dh = attn.n_heads, attn.n_kv_heads, attn.head_dim
    q = attn.q_proj(x).view(B, 1, H, Dh).transpose(1, 2)  # (B, H, 1, Dh)
    k, v = attn._keys_values(x)  # (B, Hkv, 1, Dh) each, not rotated
    keys = k if state.keys[layer] is None else torch.cat((state.keys[layer], k), dim=2)  # (B, Hkv, n, Dh)
    values = v if state.values[layer] is None else torch.cat((state.values[layer], v), dim=2)
    state.keys[layer], state.values[layer] = keys, values
    n = keys.shape[2]
    q, rotated = attn.position.rotate(q, keys, q_offset=n - 1, k_offset=0)  # slots 0 .. n-1, the query at the last
    q = attn.scoring.query(q)
    groups = H // Hkv
    rotated, values = rotated.repeat_interleave(groups, dim=1), values.repeat_interleave(groups, dim=1)  # (B, H, n, Dh)
    scale = attn.scoring.scale()
    weights = torch.softmax((q @ rotated.transpose(-2, -1)) * scale, dim=-1)  # (B, H, 1, n)
    if shares is not None:
        shares.setdefault(layer, []).append(float(weights[..., 0].mean()))  # the first slot's share, mean over B, H
    y = (weights @ values).transpose(1, 2).reshape(B, 1, H * Dh)
    return attn.out_proj(y)


@torch.inference_mode()
def stream_step(
    model, token: torch.Tensor, state: StreamState, position: int, shares: dict[int, list[float]] | None = None
) -> torch.Tensor:
    """Feed one token (B,) at text position ``position`` through every layer, appending to ``state``; its logits (B, V).

    The positions of a cached model's embedding hook (none for RoPE) read the slot too."""
    slot = len(state.positions)
    x = model.position.embed(model.embed(token[:, None]) * model.embed_scale, offset=slot)  # (B, 1, D)
    for layer, block in enumerate(model.blocks):
        a = _attend(block.attn, block.norm1_in(x), state, layer, shares)
        x = block.norm1_out(x + a)
        x = block.norm2_out(x + block.ffn(block.norm2_in(x)))
    state.positions.append(position)
    return model.head(model.norm(x))[:, 0]


@torch.inference_mode()
def stream_nll(
    model,
    tokens: torch.Tensor,
    policy: str,
    capacity: int,
    sinks: int,
    shares: dict[int, list[float]] | None = None,
    share_from: int = 0,
    lead: int | None = None,
) -> tuple[torch.Tensor, StreamState]:
    """Per-position negative log-likelihood (B, N - 1) of tokens (B, N) streamed under ``policy`` with a cache of
    ``capacity`` entries (the step's own token included), and the final state (None for recompute). ``shares``
    collects each layer's attention on the first slot from step ``share_from`` on. ``lead``: a dedicated sink token
    (suites/streaming/sink_token.py) that begins the stream, and that recomputation puts first in every window, as
    the model saw it in training."""
    B, N = tokens.shape
    out = torch.empty(B, N - 1)
    if policy == "recompute":
        for t in range(N - 1):
            start = max(0, t + 1 - capacity)
            window = tokens[:, start : t + 1]  # the last ``capacity`` tokens from scratch, slots 0 ..
            if lead is not None and start > 0:
                window = torch.cat((torch.full_like(window[:, :1], lead), window[:, 1:]), dim=1)
            logits = model(window)[:, -1]
            out[:, t] = torch.nn.functional.cross_entropy(logits.float(), tokens[:, t + 1], reduction="none")
        return out, None
    state = StreamState.empty(len(model.blocks))
    for t in range(N - 1):
        state.evict(kept_positions(policy, state.positions, capacity, sinks))
        logits = stream_step(model, tokens[:, t], state, t, shares if t >= share_from else None)
        out[:, t] = torch.nn.functional.cross_entropy(logits.float(), tokens[:, t + 1], reduction="none")
    return out, state


def binned(nll: torch.Tensor, width: int) -> list[tuple[int, float]]:
    """(first position of the bin, perplexity over the bin's tokens and streams) for bins of ``width`` positions."""
    rows = []
    for start in range(0, nll.shape[1], width):
        part = nll[:, start : start + width]
        rows.append((start, math.exp(float(part.mean()))))
    return rows
