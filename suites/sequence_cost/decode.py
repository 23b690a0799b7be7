"""Decode cost per token against the context length: a recurrent or mixer state of fixed size against a growing KV cache.

One decoding step of one layer for a batch of one token per sequence, after ``context`` tokens: the LSTM/GRU cell
on its (h, c) or h state, a mixer's ``step`` on its state (minGRU: d numbers; linear attention: H (d_h^2 + d_h),
Katharopoulos et al. 2020, arXiv 2006.16236, eq. 18-20), and the Transformer block attending over a KV cache of
``context`` tokens (variants/decode/kv_cache.py's LayerCache, written in place, never copied). The state's bytes per
sequence stay fixed for the first two; the cache grows by 2 d values per token.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from harness.contract import Measurement
from harness.measure import time_call
from variants.decode.kv_cache import LayerCache
from variants.models.mixer_layer import MixerLayerSpec
from variants.models.sequence_layer import RecurrentLayerSpec


def step_call(
    layer, spec, batch: int, context: int, device: str, dtype: torch.dtype, gen: torch.Generator
) -> tuple[Callable[[], object], int]:
    """(one decode step of ``layer`` after ``context`` tokens, the bytes of state it reads per sequence)."""
    d = spec.d_model
    x = torch.randn(batch, d, device=device, generator=gen).to(dtype)
    size = torch.finfo(dtype).bits // 8
    if isinstance(spec, RecurrentLayerSpec):
        h = torch.zeros(batch, d, device=device, dtype=dtype)
        state = (h, h.clone()) if spec.cell == "lstm" else h
        return (lambda: layer.cell(x, state)), (2 if spec.cell == "lstm" else 1) * d * size
    if isinstance(spec, MixerLayerSpec):
        state = layer.mixer.initial_state(batch, device, dtype)
        _, after = layer.mixer.step(x, state)  # the state as decoding carries it, counted from its live tensors
        held = sum(t.numel() for t in (after if isinstance(after, tuple) else (after,))) // batch
        return (lambda: layer.mixer.step(x, state)), held * size
    heads, head_dim = spec.kv_heads, spec.head_dim
    shape = (batch, heads, context + 1, head_dim)
    keys, values = (torch.randn(shape, device=device, generator=gen).to(dtype) for _ in range(2))
    cache = LayerCache(keys, values, context)  # context tokens held, room for this step's
    token = x.unsqueeze(1)  # (B, 1, d)
    return (lambda: layer.block(token, cache)), 2 * context * heads * head_dim * size


@torch.no_grad()
def decode_measurements(layer, spec, profile, ctx, seed: int) -> list[Measurement]:
    """decode_latency (ms per step) and decode_state_bytes (per sequence) at each of the profile's decode contexts."""
    gen = torch.Generator(device=ctx.device).manual_seed(seed + 2)
    out = []
    for context in profile.decode_contexts:
        call, state_bytes = step_call(layer, spec, profile.batch, context, ctx.device, ctx.dtype, gen)
        timing = time_call(call, min_repeats=profile.min_repeats, min_run_time=profile.min_run_time)
        where = dict(x=float(context), x_name="context")
        out.append(Measurement("decode_latency", timing.median * 1e3, extra=timing.summary(), **where))
        out.append(Measurement("decode_state_bytes", float(state_bytes), **where))
    return out
