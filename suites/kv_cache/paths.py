"""The kv_cache decode-path comparison: one decode-step attention over a cache of random K/V, read four exact ways
(variants/kernel ``DECODE_PATHS``: repeat K/V, SDPA enable_gqa, grouped queries, split-KV), each checked against
float64 before it is timed. ``path_heads`` query heads of ``path_head_dim`` (Llama-2-7B's layer shape by default),
the key/value heads of the variant; a layer that keeps no full grouped cache records every path unsupported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from harness.contract import Measurement
from variants.kernel import DECODE_PATHS, tolerance
from variants.position import positions
from variants.spec import TransformerSpec

#: ``timed(metric, fn, where)``: the suite's timing of one call
Timed = Callable[[str, Callable[[], Any], dict[str, Any]], Measurement]


def unsupported(where: dict[str, Any], reason: str) -> list[Measurement]:
    """Every decode path at one context, unsupported for ``reason``."""
    return [
        Measurement("decode_path_latency", None, status="unsupported", **where, extra={"path": p}, reason=reason)
        for p in DECODE_PATHS
    ]


def path_measurements(
    spec: TransformerSpec, profile, context: int, seed: int, device: str, dtype: torch.dtype, timed: Timed
) -> list[Measurement]:
    """``decode_path_latency`` of each path over ``context`` cached tokens (failed where it differs from float64)."""
    heads, dim = profile.path_heads, profile.path_head_dim
    kv_heads = heads if spec.n_kv_heads is None else spec.n_kv_heads
    where = dict(x=float(context), x_name="cached_tokens")
    if spec.attention != "grouped" or spec.window is not None:  # the paths read a full grouped K/V cache
        return unsupported(
            where,
            "the decode-path comparison reads a full grouped K/V cache, which "
            + (
                "latent attention does not keep"
                if spec.attention != "grouped"
                else "a sliding window does not read past its W slots"
            ),
        )
    if heads % kv_heads:
        return unsupported(where, f"{kv_heads} key/value heads do not divide {heads} query heads")
    # drawn where they are used: at 65536 cached tokens K and V of 32 heads x 128 hold 2^31 values each, minutes of
    # single-threaded host sampling and two 8.6 GB copies; on CPU the numbers are those of before
    gen = torch.Generator(device=device).manual_seed(seed + 7 * context)

    def randn(*shape):
        return torch.randn(*shape, generator=gen, device=device).to(dtype=dtype)

    q, k, v = (
        randn(profile.batch, heads, 1, dim),
        randn(profile.batch, kv_heads, context, dim),
        randn(profile.batch, kv_heads, context, dim),
    )
    position = positions.get(spec.position)(heads * dim, heads, dim, context)
    bias = position.score_bias(1, context, context - 1, dtype)  # (H, 1, S) for ALiBi, else None
    bias = None if bias is None else bias.to(device)
    want = DECODE_PATHS["repeat"](q.double(), k.double(), v.double(), None if bias is None else bias.double())
    out = []
    for name, path in DECODE_PATHS.items():
        extra = {"path": name, "heads": heads, "kv_heads": kv_heads, "head_dim": dim, "bias": bias is not None}
        error = float((path(q, k, v, bias).double() - want).abs().max())
        extra["max_error"] = error
        if error > tolerance(dtype).allowed(want):
            out.append(
                Measurement(
                    "decode_path_latency",
                    None,
                    status="failed",
                    **where,
                    extra=extra,
                    reason=f"decode path {name} differs from float64 by {error:.2e}",
                )
            )
            continue
        out.append(timed("decode_path_latency", lambda path=path: path(q, k, v, bias), {**where, "extra": extra}))
    return out
