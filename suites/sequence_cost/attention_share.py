"""How much of a Transformer layer's compute is attention: the share of one causal block's forward time spent in its
attention core (softmax(q k^T) v), beside the share of its FLOPs, against n / d_model.

Kaplan et al. 2020 (arXiv 2001.08361, section 2.1, Table 1) count a layer's forward FLOPs per token as about 24 d^2
for the weights (QKV 6 d^2, output 2 d^2, a 4 d FFN 16 d^2) plus the context term 2 n d (for the causal half of
q k^T and of the weighted sum, 4 n d over the full square): attention's share of a causal layer's FLOPs is
n / (12 d + n), half at n = 12 d. They call the context term small "when d_model > n_ctx / 12". The time share is
what a device makes of it: the core is two batched matmuls and a softmax over (n, n) per head, the rest large
matmuls over (n, d), so the core's share of the time can run ahead of its share of the FLOPs.
"""

from __future__ import annotations

import math

import torch

from harness.contract import Measurement
from harness.measure import synchronize, time_call
from variants.kernel import kernels

#: a timing's interquartile range spans this many standard deviations of a normal sample
IQR_SDS = 1.349


def analytic_share(length: int, d_model: int) -> float:
    """Attention's share of a causal layer's forward FLOPs (Kaplan et al.'s count): n / (12 d + n)."""
    return length / (12 * d_model + length)


def core_flops(batch: int, length: int, d_model: int) -> float:
    """Useful FLOPs of the causal core: the lower triangle (the diagonal included) of q k^T and of the weighted sum,
    2 B n (n + 1) d, as the block's count keeps it (suite.py ``useful_flops``)."""
    return 2.0 * batch * length * (length + 1) * d_model


def share_measurement(layer, spec, profile, length: int, block_flops: float, ctx, gen, where) -> Measurement:
    """``attention_share`` at ``length``: the core's median forward time over the block's (the same kernel, shapes
    and dtype), with its relative noise from both timings' repeats, the FLOP share and Kaplan's in ``extra``."""
    batch, d, heads = profile.batch, profile.d_model, spec.n_heads
    x = torch.randn(batch, length, d, device=ctx.device, generator=gen).to(ctx.dtype)
    q, k, v = (
        torch.randn(batch, heads, length, d // heads, device=ctx.device, generator=gen).to(ctx.dtype) for _ in range(3)
    )
    kernel = kernels.get(spec.kernel)

    def block():
        with torch.no_grad():
            return layer(x)

    def core():
        with torch.no_grad():
            return kernel.attend(q, k, v, causal=True)

    synchronize(ctx.device)
    block()
    core()
    timed, contaminated, kept = {}, False, {}
    for name, call in (("block", block), ("core", core)):
        timing = time_call(call, min_repeats=profile.min_repeats, min_run_time=profile.min_run_time)
        q1, q3 = timing.quartiles()
        timed[name] = (timing.median, (q3 - q1) / timing.median / IQR_SDS)  # (median s, relative sd)
        kept[name] = len(timing.kept)
        contaminated = contaminated or bool(timing.summary().get("contaminated"))
    share = timed["core"][0] / timed["block"][0]
    relative_sd = math.hypot(timed["core"][1], timed["block"][1])
    extra = {
        **where["extra"],
        "flops_share": core_flops(batch, length, d) / block_flops,
        "analytic_share": analytic_share(length, d),
        "core_ms": timed["core"][0] * 1e3,
        "block_ms": timed["block"][0] * 1e3,
        "relative_sd": relative_sd,
        # each timing's relative sd and kept repeats: the share's test (share_table.py) reads them
        "core_sd": timed["core"][1],
        "block_sd": timed["block"][1],
        "core_repeats": kept["core"],
        "block_repeats": kept["block"],
        "n_over_d": length / d,
        "contaminated": contaminated,
    }
    return Measurement("attention_share", share, x=where["x"], x_name=where["x_name"], extra=extra)
