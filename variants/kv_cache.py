"""The key/value cache of autoregressive decoding: the caches one layer decodes with, and greedy generation.

Decoding one token at a time, each layer keeps the keys and values of every earlier token so a step
attends to them without recomputing them (its size, by formula and as measured: variants/cache_size.py).

A decode step reads the cache; it does not copy it. Each layer's keys and values live in buffers of
(B, Hkv, capacity, Dh) allocated once (``empty_caches(..., capacity=N)``) and written in place, one slice
per step, and attention reads the first ``length`` positions as views of them. A cache without room grows
to at least twice its capacity (one copy per doubling, not one per token); a cache started empty, as the
kv_cache suite starts it, is allocated at exactly its prefill, so its bytes still equal the formula.

Every cache a self-attention layer decodes with keeps one protocol (as Hugging Face's ``Cache.update``), so attention
asks no cache what it is: ``update(keys, values, ordered)`` takes a step's keys and values (B, Hkv, T, Dh) and
returns (the cache after the step, the keys and values the step attends to, each (B, Hkv, S, Dh)), and
``bias(attention, T, S, past, dtype, device, causal)`` the score bias the step adds (the position's, with what the
cache's layout needs: a sliding window's cut, or the unwritten slots of a static buffer). ``NoCache`` is a forward
that keeps none (training, full sequences) and ``PairCache`` a plain (K, V) pair extended by concatenation.
"""

from __future__ import annotations

import torch
from torch import nn

from .score_bias import with_window


def _grown_bias(attention, q_len: int, k_len: int, past, dtype, device, causal: bool):
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

    bias = staticmethod(_grown_bias)


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

    bias = staticmethod(_grown_bias)


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

    bias = staticmethod(_grown_bias)

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


class StaticLayerCache:
    """Keys and values of one attention layer for a decode step that can be captured in a CUDA graph: buffers
    (B, Hkv, capacity, Dh) and the step's position held on the device (a DevicePosition shared by every layer).

    ``append`` writes the step's K/V at that position with ``index_copy_``, and attention reads the whole
    buffers with ``mask`` (-inf at the slots past the position): the shapes, and the host's work, are the
    same at every position. Positions 0 .. index - 1 must hold the earlier tokens (a prefill through a
    LayerCache over the same buffers writes them, variants/static_decode.py)."""

    __slots__ = ("key_buffer", "value_buffer", "position")

    def __init__(self, key_buffer: torch.Tensor, value_buffer: torch.Tensor, position) -> None:
        self.key_buffer, self.value_buffer, self.position = key_buffer, value_buffer, position

    @property
    def length(self):
        """The step's position (a DevicePosition): where position hooks take an offset."""
        return self.position

    @property
    def capacity(self) -> int:
        return self.key_buffer.shape[2]

    @property
    def keys(self) -> torch.Tensor:
        """(B, Hkv, capacity, Dh): every slot, those past the position masked by ``mask``."""
        return self.key_buffer

    @property
    def values(self) -> torch.Tensor:
        return self.value_buffer

    def __iter__(self):
        return iter((self.keys, self.values))

    def append(self, keys: torch.Tensor, values: torch.Tensor) -> StaticLayerCache:
        """Write ``keys``, ``values`` (B, Hkv, T, Dh) at positions index .. index + T - 1, in place."""
        slots = self.position.rows(keys.shape[2])
        self.key_buffer.index_copy_(2, slots, keys)
        self.value_buffer.index_copy_(2, slots, values)
        return self

    def update(self, keys: torch.Tensor, values: torch.Tensor, ordered: bool = False):
        """Written at the step's position; attends to the whole buffers (fixed shapes: the step can be captured)."""
        cache = self.append(keys, values)
        return cache, cache.keys, cache.values

    def bias(self, attention, q_len: int, k_len: int, past, dtype, device, causal: bool):
        """The position's score bias over every slot, plus ``mask`` (-inf at the slots past the step's position)."""
        position = attention.position.score_bias(q_len, self.capacity, past, dtype)  # (H, T, capacity) or None
        mask = self.mask(q_len, dtype)  # (1, T, capacity)
        return mask if position is None else position + mask

    def mask(self, q_len: int, dtype: torch.dtype) -> torch.Tensor:
        """(1, T, capacity) additive mask: 0 where query t (at index + t) may attend the slot, -inf elsewhere."""
        slot = torch.arange(self.capacity, device=self.key_buffer.device)
        visible = slot[None, :] <= self.position.rows(q_len)[:, None]  # (T, capacity)
        zero = torch.zeros((), dtype=dtype, device=slot.device)
        return torch.where(visible, zero, torch.full((), float("-inf"), dtype=dtype, device=slot.device))[None]


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


class LatentCache:
    """The cache of one multi-head latent attention layer (DeepSeek-V2, arXiv 2405.04434): one buffer (B, 1,
    capacity, d_c + d_h^R) holding each token's latent c and its RoPE key k^R, written in place.

    It keeps the protocol of the other caches: ``update(latent, latent)`` writes a step's latents and returns the
    view absorbed attention reads as its single key/value head, both as keys and as values (one buffer, never
    two), ``bias`` the position's bias over every token so far, ``reserve(n)`` room for n tokens. Iterating gives
    that view twice, so measured_cache_bytes counts its storage once.
    """

    __slots__ = ("buffer", "length")

    def __init__(self, buffer: torch.Tensor, length: int = 0) -> None:
        self.buffer, self.length = buffer, length

    @classmethod
    def empty(cls, batch: int, width: int, capacity: int = 0, dtype=None, device=None) -> LatentCache:
        return cls(torch.empty((batch, 1, capacity, width), dtype=dtype, device=device))

    @property
    def capacity(self) -> int:
        return self.buffer.shape[2]

    @property
    def keys(self) -> torch.Tensor:
        """(B, 1, length, d_c + d_h^R), a view of the buffer."""
        return self.buffer[:, :, : self.length]

    values = keys

    def __iter__(self):
        return iter((self.keys, self.keys))

    def append(self, latent: torch.Tensor) -> LatentCache:
        """The cache with ``latent`` (B, 1, T, d_c + d_h^R) written after its ``length`` tokens."""
        start, end = self.length, self.length + latent.shape[2]
        if torch.is_grad_enabled() and latent.requires_grad:
            return LatentCache(torch.cat((self.keys, latent), dim=2), end)
        grown = self if end <= self.capacity else self.reserve(max(end, 2 * self.capacity))
        grown.buffer[:, :, start:end] = latent
        return LatentCache(grown.buffer, end)

    def update(self, keys: torch.Tensor, values: torch.Tensor, ordered: bool = False):
        """``keys`` and ``values`` are the one latent (B, 1, T, d_c + d_h^R) of the step: written in place after
        ``length``; the step attends to the view of every latent so far, as keys and as values."""
        if values is not keys:
            raise ValueError("a latent cache holds one latent per token: pass it as both keys and values")
        cache = self.append(keys)
        return cache, cache.keys, cache.values

    bias = staticmethod(_grown_bias)

    def reserve(self, capacity: int) -> LatentCache:
        """This cache's tokens in a new buffer with room for ``capacity`` (one copy), or itself if it has that room."""
        if capacity <= self.capacity:
            return self
        buffer = self.buffer.new_empty((*self.buffer.shape[:2], capacity, self.buffer.shape[3]))
        buffer[:, :, : self.length] = self.keys
        return LatentCache(buffer, self.length)


KVCache = LayerCache


def empty_caches(
    model: nn.Module, batch: int, dtype: torch.dtype | None = None, device=None, capacity: int = 0
) -> list[KVCache]:
    """One empty cache per layer of a DecoderLM, each its self-attention layer's own (``empty_cache``), with room for
    ``capacity`` tokens: grouped attention's (B, Hkv, capacity, Dh) buffers, a sliding window's RollingCache of at
    most W slots, latent attention's LatentCache.

    With the default 0 the first call allocates exactly the tokens it writes (the prefill) and a later
    one that does not fit grows the buffers; give the whole length to decode without any copy.
    """
    param = next(model.parameters())
    dtype, device = dtype or param.dtype, device or param.device
    # each self-attention layer knows what it caches (variants/attention/): no cache type is named here
    return [block.attn.empty_cache(batch, capacity, dtype, device) for block in model.blocks]


@torch.inference_mode()
def greedy_generate(model: nn.Module, prompt: torch.Tensor, steps: int, use_cache: bool) -> tuple[torch.Tensor, float]:
    """``steps`` greedy tokens after ``prompt`` (B, P): (tokens (B, steps), smallest top-1 minus top-2 logit).

    With the cache, the prompt is encoded once and each step feeds one token; without it, each step
    runs the whole sequence again. The margin says how close a step came to a tie (where two exact
    computations may round to different tokens).
    """
    tokens, out, margin = prompt, [], float("inf")
    # room for the whole generation: every step writes its keys and values in place
    caches = empty_caches(model, prompt.shape[0], capacity=prompt.shape[1] + steps) if use_cache else None
    step_input = prompt
    for _ in range(steps):
        if use_cache:
            logits, caches = model(step_input, caches=caches)
        else:
            logits = model(tokens)
        last = logits[:, -1].float()  # (B, V)
        top = last.topk(2, dim=-1).values
        margin = min(margin, float((top[:, 0] - top[:, 1]).min()))
        nxt = last.argmax(dim=-1, keepdim=True)  # (B, 1)
        out.append(nxt)
        tokens = torch.cat((tokens, nxt), dim=1)
        step_input = nxt
    return torch.cat(out, dim=1), margin
