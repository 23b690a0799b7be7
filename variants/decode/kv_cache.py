"""The key/value-cache protocol of autoregressive decoding, and the caches that grow with every token.

Decoding one token at a time, each layer keeps the keys and values of every earlier token so a step
attends to them without recomputing them (its size, by formula and as measured: variants/decode/cache_size.py).

Every cache a self-attention layer decodes with keeps one protocol (``KVCache``, as Hugging Face's ``Cache.update``),
so attention asks no cache what it is: ``update(keys, values, ordered)`` takes a step's keys and values (B, Hkv, T, Dh)
and returns (the cache after the step, the keys and values the step attends to, each (B, Hkv, S, Dh)), and
``bias(attention, T, S, past, dtype, device, causal)`` the score bias the step adds (the position's, with what the
cache's layout needs: a sliding window's cut, or the unwritten slots of a static buffer); a cache of buffers also
takes ``reserve(n)``, room for n tokens in one copy. Each layer makes its own empty cache (``empty_cache``,
variants/attention/), so nothing else names the cache types.

Here: ``NoCache``, a forward that keeps none (training, full sequences); ``PairCache``, a plain (K, V) pair extended
by concatenation; and ``LayerCache``, preallocated buffers. A decode step reads a LayerCache; it does not copy it:
its keys and values live in buffers of (B, Hkv, capacity, Dh) allocated once (``empty_caches(..., capacity=N)``,
variants/decode/generate.py) and written in place, one slice per step, and attention reads the first ``length``
positions as views of them. A cache without room grows to at least twice its capacity (one copy per doubling, not
one per token); a cache started empty, as the kv_cache suite starts it, is allocated at exactly its prefill, so its
bytes still equal the formula. The other caches each have a module: rolling (a sliding window), static (a step
captured in a CUDA graph) and latent (multi-head latent attention).
"""

from __future__ import annotations

from typing import Any, Protocol

import torch

from ..score_bias import with_window


class KVCache(Protocol):
    """What attention asks of the cache of one self-attention layer, whatever the cache is."""

    @property
    def length(self) -> Any:
        """Positions already cached: an int, or a DevicePosition in a captured step."""

    def update(
        self, keys: torch.Tensor, values: torch.Tensor, ordered: bool = False
    ) -> tuple[KVCache, torch.Tensor, torch.Tensor]:
        """(the cache after the step, the keys and the values the step attends to)."""

    def bias(self, attention: Any, q_len: int, k_len: int, past: Any, dtype: torch.dtype, device: Any, causal: bool):
        """The score bias the step adds (a ScoreBias, a tensor or None)."""


def grown_bias(attention, q_len: int, k_len: int, past, dtype, device, causal: bool):
    """The bias of a step whose keys are every position so far (0 .. S - 1): the position's, and the attention's
    sliding window's cut when it has one and attends causally."""
    bias = attention.position.attention_bias(q_len, k_len, past, dtype, causal=causal)  # of (H, T, S), or None
    if attention.window is not None and causal:
        bias = with_window(bias, q_len, k_len, attention.window, dtype, device)
    return bias


class NoCache:
    """A forward that keeps no cache (training, a full sequence): the step attends to its own keys and values, and
    returns them as a (K, V) pair."""

    length = 0

    def update(self, keys: torch.Tensor, values: torch.Tensor, ordered: bool = False):
        return PairCache((keys, values)), keys, values

    bias = staticmethod(grown_bias)


class PairCache(tuple):
    """A (K, V) pair of (B, Hkv, S, Dh) tensors as a cache (still a tuple): a step concatenates its keys and values
    after them (a fresh copy each step; preallocated buffers are ``LayerCache``'s)."""

    @classmethod
    def of(cls, cache):
        """A cache object as it is; a (K, V) pair (tuple or list) as a PairCache."""
        return cls(cache) if isinstance(cache, (tuple, list)) and not isinstance(cache, cls) else cache

    @property
    def length(self) -> int:
        return self[0].shape[2]

    def update(self, keys: torch.Tensor, values: torch.Tensor, ordered: bool = False):
        k, v = torch.cat((self[0], keys), dim=2), torch.cat((self[1], values), dim=2)  # (B, Hkv, S, Dh)
        return PairCache((k, v)), k, v

    bias = staticmethod(grown_bias)


class LayerCache:
    """Keys and values of one attention layer: buffers (B, Hkv, capacity, Dh) holding ``length`` tokens.

    ``keys`` and ``values`` are views of the first ``length`` positions. ``append(k, v)`` writes k, v
    (B, Hkv, T, Dh) at positions length .. length + T - 1 in place and returns the cache of length + T
    over the same buffers; this object keeps its length, so appending to it again writes the same slots
    (a step can be repeated, as timing does) but overwrites what a later cache of the same buffers held
    there: one cache is one timeline. Iterating gives (keys, values), as the (K, V) pairs it replaces did.
    """

    __slots__ = ("key_buffer", "value_buffer", "length")

    def __init__(self, key_buffer: torch.Tensor, value_buffer: torch.Tensor, length: int = 0) -> None:
        self.key_buffer, self.value_buffer, self.length = key_buffer, value_buffer, length

    @classmethod
    def empty(cls, batch: int, kv_heads: int, head_dim: int, capacity: int = 0, dtype=None, device=None) -> LayerCache:
        """No tokens yet, room for ``capacity`` (allocated now, uninitialised)."""
        shape = (batch, kv_heads, capacity, head_dim)
        return cls(torch.empty(shape, dtype=dtype, device=device), torch.empty(shape, dtype=dtype, device=device))

    @classmethod
    def of(cls, cache) -> LayerCache:
        """A cache object as is (LayerCache, StaticLayerCache, RollingCache, LatentCache), or a (K, V) pair of
        (B, Hkv, S, Dh) tensors as a full cache of S tokens."""
        if not isinstance(cache, (tuple, list)):
            return cache
        keys, values = cache
        return cls(keys, values, keys.shape[2])

    @property
    def capacity(self) -> int:
        return self.key_buffer.shape[2]

    @property
    def keys(self) -> torch.Tensor:
        """(B, Hkv, length, Dh), a view of the buffer."""
        return self.key_buffer[:, :, : self.length]

    @property
    def values(self) -> torch.Tensor:
        return self.value_buffer[:, :, : self.length]

    def __iter__(self):
        return iter((self.keys, self.values))

    def __getitem__(self, index: int) -> torch.Tensor:
        return (self.keys, self.values)[index]

    def __len__(self) -> int:
        return 2

    def append(self, keys: torch.Tensor, values: torch.Tensor) -> LayerCache:
        """The cache with ``keys``, ``values`` (B, Hkv, T, Dh) written after its ``length`` tokens."""
        start, end = self.length, self.length + keys.shape[2]
        if torch.is_grad_enabled() and (keys.requires_grad or values.requires_grad):
            # a graph that may be differentiated keeps every step's tensors intact: concatenate, as before
            return LayerCache(torch.cat((self.keys, keys), dim=2), torch.cat((self.values, values), dim=2), end)
        # no room: grow to at least twice the capacity, keeping the tokens held (one copy per doubling)
        grown = self if end <= self.capacity else self.reserve(max(end, 2 * self.capacity))
        grown.key_buffer[:, :, start:end] = keys
        grown.value_buffer[:, :, start:end] = values
        return LayerCache(grown.key_buffer, grown.value_buffer, end)

    def update(self, keys: torch.Tensor, values: torch.Tensor, ordered: bool = False):
        """Written in place after ``length`` (nothing already cached is copied); attends to views of the buffers."""
        cache = self.append(keys, values)
        return cache, cache.keys, cache.values

    bias = staticmethod(grown_bias)

    def reserve(self, capacity: int) -> LayerCache:
        """This cache's tokens in new buffers with room for ``capacity`` (one copy), or itself if it has that room:
        steps appended to a cache with room write in place, without copying what it holds."""
        if capacity <= self.capacity:
            return self
        shape = (*self.key_buffer.shape[:2], capacity, self.key_buffer.shape[3])
        key_buffer = self.key_buffer.new_empty(shape)
        value_buffer = self.value_buffer.new_empty(shape)
        key_buffer[:, :, : self.length] = self.keys
        value_buffer[:, :, : self.length] = self.values
        return LayerCache(key_buffer, value_buffer, self.length)
