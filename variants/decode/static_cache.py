"""The cache of a decode step that can be captured in a CUDA graph: fixed buffers, the position held on the device.

A captured step must have the same shapes and the same host work at every position, so this cache never grows and
never slices by a host length: its step writes at a DevicePosition (variants/position/_tables.py) with
``index_copy_``, and attention reads every slot with those past the position masked (variants/decode/static_decode.py
drives it). It keeps the protocol of every KV cache (variants/decode/kv_cache.py): ``update`` and ``bias``.
"""

from __future__ import annotations

import torch


class StaticLayerCache:
    """Keys and values of one attention layer for a decode step that can be captured in a CUDA graph: buffers
    (B, Hkv, capacity, Dh) and the step's position held on the device (a DevicePosition shared by every layer).

    ``append`` writes the step's K/V at that position with ``index_copy_``, and attention reads the whole
    buffers with ``mask`` (-inf at the slots past the position): the shapes, and the host's work, are the
    same at every position. Positions 0 .. index - 1 must hold the earlier tokens (a prefill through a
    LayerCache over the same buffers writes them, variants/decode/static_decode.py)."""

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
