"""The key/value cache of autoregressive decoding: its size, what it really occupies, and greedy generation.

Decoding one token at a time, each layer keeps the keys and values of every earlier token so a step
attends to them without recomputing them: 2 (K and V) x layers x kv_heads x head_dim x tokens x batch
x bytes per element. Grouped-query and multi-query attention (Ainslie et al. 2023, arXiv 2305.13245;
Shazeer 2019) shrink it by the number of query heads per key/value head.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import torch
from torch import nn

KVCache = Tuple[torch.Tensor, torch.Tensor]  # (B, Hkv, S, Dh) keys and values of one layer


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, tokens: int, batch: int = 1, bytes_per_element: int = 2) -> int:
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
PUBLISHED: Dict[str, ModelShape] = {
    "Llama-2-7B": ModelShape(layers=32, d_model=4096, heads=32, kv_heads=32, head_dim=128),
    "Llama-2-13B": ModelShape(layers=40, d_model=5120, heads=40, kv_heads=40, head_dim=128),
    "Llama-2-70B": ModelShape(layers=80, d_model=8192, heads=64, kv_heads=8, head_dim=128),
}


def measured_cache_bytes(caches: List[KVCache]) -> int:
    """Bytes of the distinct storages behind the cache tensors (a view of a larger buffer counts it whole)."""
    storages = {}
    for k, v in caches:
        for t in (k, v):
            storage = t.untyped_storage()
            storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def empty_caches(model: nn.Module, batch: int, dtype: Optional[torch.dtype] = None, device=None) -> List[KVCache]:
    """One (K, V) pair of zero length per layer of a DecoderLM: (B, Hkv, 0, Dh) each."""
    spec = model.spec
    param = next(model.parameters())
    shape = (batch, spec.kv_heads, 0, spec.head_dim)
    dtype, device = dtype or param.dtype, device or param.device
    return [(torch.zeros(shape, dtype=dtype, device=device), torch.zeros(shape, dtype=dtype, device=device))
            for _ in range(spec.n_layers)]


@torch.inference_mode()
def greedy_generate(model: nn.Module, prompt: torch.Tensor, steps: int, use_cache: bool) -> Tuple[torch.Tensor, float]:
    """``steps`` greedy tokens after ``prompt`` (B, P): (tokens (B, steps), smallest top-1 minus top-2 logit).

    With the cache, the prompt is encoded once and each step feeds one token; without it, each step
    runs the whole sequence again. The margin says how close a step came to a tie (where two exact
    computations may round to different tokens).
    """
    tokens, out, margin = prompt, [], float("inf")
    caches = empty_caches(model, prompt.shape[0]) if use_cache else None
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
