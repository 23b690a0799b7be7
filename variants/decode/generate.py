"""Greedy generation of a decoder language model, with or without its KV caches.

``empty_caches`` asks each layer of the model for its own empty cache (variants/attention/: a grown, rolling or
latent cache), and ``greedy_generate`` decodes through them, or without them by running the whole sequence again
at every step: the two must give the same tokens.
"""

from __future__ import annotations

import torch
from torch import nn

from .kv_cache import KVCache


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
