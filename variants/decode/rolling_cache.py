"""The cache of sliding-window attention: a rolling buffer of W slots (Jiang et al. 2023, Mistral 7B, arXiv 2310.06825).

It keeps the protocol of every KV cache (variants/decode/kv_cache.py): ``update`` writes a step, ``bias`` adds the
window's cut to the position's bias, ``reserve(n)`` makes room for min(n, W) slots.
"""

from __future__ import annotations

import torch

from ..score_bias import with_window


class RollingCache:
    """Keys and values of one sliding-window attention layer: a rolling buffer of W slots (Jiang et al. 2023,
    Mistral 7B, arXiv 2310.06825, 2: "Rolling Buffer Cache"), position p kept in slot p mod W.

    A query at position i sees keys i - W + 1 .. i, so nothing older than W tokens is ever read again and the
    buffers (B, Hkv, min(tokens, W), Dh) stop growing at W slots. ``length`` counts every token seen (the next
    position). ``attend(k, v)`` writes T new keys/values and returns what the T queries attend to: for one token
    the filled slots themselves, in slot order (softmax over keys does not depend on their order, and RoPE rotated
    each key at its own position before it was cached), nothing copied; otherwise, or when ``ordered`` is asked (a
    score bias reads key order), the cached keys oldest first and then the new ones (at most W - 1 + T), which the
    window mask restricts further.
    """

    __slots__ = ("key_buffer", "value_buffer", "length", "window")

    def __init__(self, key_buffer: torch.Tensor, value_buffer: torch.Tensor, length: int, window: int) -> None:
        self.key_buffer, self.value_buffer, self.length, self.window = key_buffer, value_buffer, length, window

    @classmethod
    def empty(
        cls, batch: int, kv_heads: int, head_dim: int, window: int, capacity: int = 0, dtype=None, device=None
    ) -> RollingCache:
        """No tokens yet, room for min(capacity, window) slots (allocated now)."""
        shape = (batch, kv_heads, min(capacity, window), head_dim)
        return cls(
            torch.empty(shape, dtype=dtype, device=device), torch.empty(shape, dtype=dtype, device=device), 0, window
        )

    @property
    def capacity(self) -> int:
        return self.key_buffer.shape[2]

    @property
    def held(self) -> int:
        """Tokens the buffers hold: min(length, W)."""
        return min(self.length, self.window)

    def positions(self) -> torch.Tensor:
        """(held,) the position each filled slot holds, in slot order."""
        held, start = self.held, self.length - self.held
        slots = torch.arange(held)
        return start + (slots - start) % self.window if self.length > self.window else slots

    def _ordered(self, buffer: torch.Tensor) -> torch.Tensor:
        """(B, Hkv, held, Dh): the held tokens oldest first (a view until the buffer has wrapped)."""
        if self.length <= self.window:
            return buffer[:, :, : self.length]
        start = self.length % self.window  # the oldest held token's slot
        return torch.cat((buffer[:, :, start:], buffer[:, :, :start]), dim=2)

    @property
    def keys(self) -> torch.Tensor:
        """(B, Hkv, held, Dh), oldest first."""
        return self._ordered(self.key_buffer)

    @property
    def values(self) -> torch.Tensor:
        return self._ordered(self.value_buffer)

    def __iter__(self):
        """(keys, values) as whole buffers: what the cache occupies (measured_cache_bytes reads their storages)."""
        return iter((self.key_buffer, self.value_buffer))

    def reserve(self, capacity: int) -> RollingCache:
        """This cache with room for min(capacity, W) slots (one copy), or itself if it has it."""
        capacity = min(capacity, self.window)
        if capacity <= self.capacity:
            return self
        shape = (*self.key_buffer.shape[:2], capacity, self.key_buffer.shape[3])
        key_buffer, value_buffer = self.key_buffer.new_empty(shape), self.value_buffer.new_empty(shape)
        key_buffer[:, :, : self.held] = self.key_buffer[:, :, : self.held]  # not wrapped yet: capacity < W
        value_buffer[:, :, : self.held] = self.value_buffer[:, :, : self.held]
        return RollingCache(key_buffer, value_buffer, self.length, self.window)

    def attend(self, keys: torch.Tensor, values: torch.Tensor, ordered: bool = False):
        """(cache with ``keys``, ``values`` (B, Hkv, T, Dh) written, keys and values the T queries attend to).

        Returned keys are oldest first unless T == 1 and not ``ordered``; the last T are always the new ones'
        (in slot order the new one sits in its slot, and one query sees every held key)."""
        T, end = keys.shape[2], self.length + keys.shape[2]
        single = T == 1 and not ordered
        if single and end <= self.window:
            grown = self.reserve(max(end, 2 * self.capacity))
            grown = RollingCache(grown.key_buffer, grown.value_buffer, self.length, self.window)
            grown._write(keys, values)
            return grown, grown.key_buffer[:, :, :end], grown.value_buffer[:, :, :end]
        if single and self.capacity == self.window:
            out = RollingCache(self.key_buffer, self.value_buffer, self.length, self.window)
            out._write(keys, values)
            return out, self.key_buffer, self.value_buffer  # every slot filled; the one query sees all W
        k_all, v_all = torch.cat((self.keys, keys), dim=2), torch.cat((self.values, values), dim=2)
        grown = self.reserve(max(min(end, self.window), 2 * self.capacity))
        out = RollingCache(grown.key_buffer, grown.value_buffer, self.length, self.window)
        out._write(keys, values)
        return out, k_all, v_all

    def update(self, keys: torch.Tensor, values: torch.Tensor, ordered: bool = False):
        """``attend``: the last W positions at most, oldest first where ``ordered`` (a score bias reads distances)."""
        return self.attend(keys, values, ordered=ordered)

    def bias(self, attention, q_len: int, k_len: int, past, dtype, device, causal: bool):
        """The position's bias over the S keys held (the first of them S - T positions before the step), with the
        window's cut."""
        bias = attention.position.attention_bias(q_len, k_len, k_len - q_len, dtype, causal=causal)
        return with_window(bias, q_len, k_len, attention.window, dtype, device)

    def _write(self, keys: torch.Tensor, values: torch.Tensor) -> None:
        """Write the last min(T, W) of ``keys``, ``values`` (B, Hkv, T, Dh) into their slots; length += T."""
        T = keys.shape[2]
        kept = min(T, self.window)
        positions = torch.arange(self.length + T - kept, self.length + T)
        slots = (positions % self.window).to(self.key_buffer.device)
        self.key_buffer.index_copy_(2, slots, keys[:, :, T - kept :])
        self.value_buffer.index_copy_(2, slots, values[:, :, T - kept :])
        self.length += T
