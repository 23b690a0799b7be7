"""How each kernel masks: a key masked by an additive fill of -inf, -1e9, the dtype's most negative number or -1e4,
in float32, bfloat16 and float16, for a fully masked query row (padding) and partly masked rows.

Masking is a score bias here as in every kernel's ``attend`` (variants/kernel/_base.py): 0 where a key may be read,
the fill where it may not. The mask is written in float32 and cast to the inputs' dtype, as SDPA requires of a float
mask (``masked_fill`` of -1e9 into a float16 tensor refuses to overflow; the cast saturates), so -1e9 becomes -inf
in float16 (its largest magnitude is 65504) and stays finite in float32 and bfloat16. What the arithmetic predicts:
softmax over a row of -inf is 0/0, NaN, unless a kernel special-cases it; a finite fill never gives NaN, and a fully
masked row under it spends all its probability on the masked keys (padding); a partly masked row puts no
probability on its masked keys whatever the fill (exp(fill - max) underflows to 0).

The probability is read through the values: with every value 1 the fully masked row's output is the probability it
spends at all (1: on padding; 0: a kernel that returns zeros for such a row); with the masked keys' values 1 and
the readable keys' 0 a partly masked row's output is the probability that leaks to masked keys.
"""

from __future__ import annotations

import math

import torch

from harness.contract import Measurement
from variants.kernel import AttentionKernel

#: the fills, by name: -inf, the large finite constant many codebases use, the dtype's most negative value, and
#: BERT's -10000
FILLS = ("-inf", "-1e9", "dtype_min", "-1e4")
DTYPES = (torch.float32, torch.bfloat16, torch.float16)
#: queries and keys of the probe: query 0 sees no key, queries 1.. see the first half of the keys
QUERIES, KEYS = 4, 8
METRICS = ("mask_full_row_nan", "mask_full_row_mass", "mask_partial_nan", "mask_leak")


def fill_value(name: str, dtype: torch.dtype) -> float:
    """The fill ``name`` as a Python float before the cast to ``dtype``."""
    return {"-inf": -math.inf, "-1e9": -1e9, "dtype_min": torch.finfo(dtype).min, "-1e4": -1e4}[name]


def mask_bias(name: str, dtype: torch.dtype, device: str) -> torch.Tensor:
    """(1, 1, QUERIES, KEYS) in ``dtype``: row 0 all fill, the other rows fill on the second half of the keys; written
    in float32 and cast."""
    masked = torch.zeros(QUERIES, KEYS, dtype=torch.bool)
    masked[0] = True
    masked[1:, KEYS // 2 :] = True
    bias = torch.zeros(QUERIES, KEYS).masked_fill(masked, fill_value(name, dtype)).to(dtype)
    return bias[None, None].to(device)


def probe(
    kernel: AttentionKernel, heads: int, kv_heads: int, head_dim: int, dtype, device: str, seed: int, fill: str
) -> tuple[torch.Tensor, torch.Tensor]:
    """(the probability the fully masked row spends, (1, H, Dh); the probability each partly masked row leaks to
    masked keys, (1, H, QUERIES - 1, Dh)), float32, NaN where the kernel gives NaN."""
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(1, heads, QUERIES, head_dim, generator=gen).to(device, dtype)
    k = torch.randn(1, kv_heads, KEYS, head_dim, generator=gen).to(device, dtype)
    ones = torch.ones(1, kv_heads, KEYS, head_dim, dtype=dtype, device=device)
    leaky = ones.clone()
    leaky[:, :, : KEYS // 2] = 0  # the readable keys of the partly masked rows carry 0, the masked ones 1
    bias = mask_bias(fill, dtype, device)
    with torch.no_grad():
        spent = kernel.attend(q, k, ones, causal=False, bias=bias).float()[:, :, 0]
        leaked = kernel.attend(q, k, leaky, causal=False, bias=bias).float()[:, :, 1:]
    return spent, leaked


def masking_measurements(
    kernel: AttentionKernel, heads: int, kv_heads: int, head_dim: int, device: str, seed: int
) -> list[Measurement]:
    """The four masking metrics for every dtype the kernel takes on ``device`` and every fill; a dtype it does not
    take is recorded as unsupported with the reason."""
    out: list[Measurement] = []
    for dtype in DTYPES:
        dname = str(dtype).replace("torch.", "")
        if dtype not in kernel.dtypes_on(device) or not kernel.takes_score_bias_on(device):
            reason = f"kernel takes no {'score bias' if kernel.takes_score_bias_on(device) else dname} on {device}"
            for name in FILLS:
                extra = {"dtype": dname, "fill": name}
                out += [Measurement(m, None, status="unsupported", reason=reason, extra=extra) for m in METRICS]
            continue
        for name in FILLS:
            cast = float(torch.tensor(fill_value(name, dtype)).to(dtype))
            extra = {"dtype": dname, "fill": name, "fill_in_dtype": repr(cast)}
            try:
                full, partial = probe(kernel, heads, kv_heads, head_dim, dtype, device, seed, name)
            except Exception as exc:  # a kernel that cannot take this probe says why; the other cases still run
                reason = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
                out += [Measurement(m, None, status="unsupported", reason=reason, extra=extra) for m in METRICS]
                continue
            full_nan, partial_nan = bool(full.isnan().any()), bool(partial.isnan().any())
            out += [
                Measurement("mask_full_row_nan", float(full_nan), extra=extra),
                Measurement("mask_partial_nan", float(partial_nan), extra=extra),
            ]
            if not full_nan:
                out.append(Measurement("mask_full_row_mass", float(full.mean()), extra=extra))
            if not partial_nan:
                out.append(Measurement("mask_leak", float(partial.max()), extra=extra))
    return out
