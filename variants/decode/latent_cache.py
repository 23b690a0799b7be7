"""The cache of multi-head latent attention: one latent and one RoPE key per token (DeepSeek-V2, arXiv 2405.04434).

The attention layer is variants/attention/mla.py; this cache keeps the protocol of every KV cache
(variants/decode/kv_cache.py), so the layer decodes through ``update`` and ``bias`` as grouped attention does.
"""

from __future__ import annotations

import torch

from .kv_cache import grown_bias


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

    bias = staticmethod(grown_bias)

    def reserve(self, capacity: int) -> LatentCache:
        """This cache's tokens in a new buffer with room for ``capacity`` (one copy), or itself if it has that room."""
        if capacity <= self.capacity:
            return self
        buffer = self.buffer.new_empty((*self.buffer.shape[:2], capacity, self.buffer.shape[3]))
        buffer[:, :, : self.length] = self.keys
        return LatentCache(buffer, self.length)
