"""How large a key/value cache is: by formula, for a spec or a published model, and as its tensors occupy memory.

2 (K and V) x layers x kv_heads x head_dim x tokens x batch x bytes per element for grouped attention, whose
grouped-query and multi-query forms (Ainslie et al. 2023, arXiv 2305.13245; Shazeer 2019) shrink it by the number
of query heads per key/value head; a sliding window holds min(tokens, W) tokens, latent attention (d_c + d_h^R)
values per token and layer (each attention layer's ``cache_elements``, variants/attention/).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


def kv_cache_bytes(
    layers: int, kv_heads: int, head_dim: int, tokens: int, batch: int = 1, bytes_per_element: int = 2
) -> int:
    """Bytes of a KV cache: 2 x layers x kv_heads x head_dim x tokens x batch x bytes per element."""
    return 2 * layers * kv_heads * head_dim * tokens * batch * bytes_per_element


@dataclass(frozen=True)
class ModelShape:
    """The attention shape of a published model, as far as its KV cache is concerned."""

    layers: int
    d_model: int
    heads: int
    kv_heads: int
    head_dim: int

    def cache_bytes(self, tokens: int, batch: int = 1, bytes_per_element: int = 2) -> int:
        return kv_cache_bytes(self.layers, self.kv_heads, self.head_dim, tokens, batch, bytes_per_element)


#: Touvron et al. 2023 (Llama 2, arXiv 2307.09288): 70B uses GQA with 8 key/value heads
PUBLISHED: dict[str, ModelShape] = {
    "Llama-2-7B": ModelShape(layers=32, d_model=4096, heads=32, kv_heads=32, head_dim=128),
    "Llama-2-13B": ModelShape(layers=40, d_model=5120, heads=40, kv_heads=40, head_dim=128),
    "Llama-2-70B": ModelShape(layers=80, d_model=8192, heads=64, kv_heads=8, head_dim=128),
}


def spec_cache_bytes(spec, tokens: int, batch: int = 1, bytes_per_element: int = 2) -> int:
    """Bytes of a spec's KV cache after ``tokens`` tokens: layers x what its self-attention layer caches per
    sequence (variants/attention/: 2 x kv_heads x head_dim x min(tokens, W) for grouped attention, W its sliding
    window if any; (d_c + d_h^R) x tokens for latent attention) x batch x bytes per element."""
    from ..attention import attentions

    layer = attentions.get(getattr(spec, "attention", "grouped"))
    return spec.n_layers * layer.cache_elements(spec, tokens) * batch * bytes_per_element


def measured_cache_bytes(caches: Iterable) -> int:
    """Bytes of the distinct storages behind the cache tensors of each layer's cache, which unpacks as (keys,
    values) (a view of a larger buffer counts it whole, so a preallocated cache counts its capacity)."""
    storages = {}
    for k, v in caches:
        for t in (k, v):
            storage = t.untyped_storage()
            storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())
