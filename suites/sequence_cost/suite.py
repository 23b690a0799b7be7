"""Sequence cost: one LSTM, GRU or Transformer layer of the same width, latency and device utilisation against length.

Recurrence against attention on the same hardware (Vaswani et al. 2017, arXiv 1706.03762, Table 1: per
layer O(n d^2) work and O(n) sequential operations for a recurrent layer, O(n^2 d) work and O(1)
sequential operations for self-attention). For one layer of width d at a fixed batch: the LSTM
(Hochreiter & Schmidhuber 1997) and GRU (Cho et al. 2014, arXiv 1406.1078) as the library's fused module
and as a Python loop over their cells, against a causal Transformer block with SDPA attention (Dao et al.
2022, arXiv 2205.14135); forward and forward+backward latency (torch.utils.benchmark), tokens/s, FLOP/s
as a share of the measured matmul peak, the ATen operators one call dispatches and the sequential steps
on its critical path. Every layer is checked against a float64 reference before it is timed.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from harness.contract import JobContext, Measurement, Suite, TimesOnly, suites
from harness.env import sm_clock_mhz
from harness.measure import count_flops, matmul_peak, synchronize, time_call, warm_up_tools
from harness.rules import one_of
from harness.suite_file import SuiteFile
from suites.common.metrics import COMMON
from suites.common.profile_parts import Timing, heads_problems, untimed
from suites.sequence_cost.attention_share import share_measurement
from suites.sequence_cost.decode import decode_measurements
from variants.kernel import tolerance
from variants.models.mixer_layer import MixerLayerSpec
from variants.models.mixer_layer import build as build_mixer_layer
from variants.models.sequence_layer import RecurrentLayerSpec, build_layer, num_parameters
from variants.spec import TransformerSpec, preset_fields, resolve

PASSES = ("fwd", "fwd+bwd")
CASE_METRICS = ("latency", "tokens_per_s", "flops", "throughput", "peak_fraction", "dispatched_ops", "sequential_steps")


@dataclass(frozen=True)
class SequenceCostProfile(Timing):
    """The layer's width, the batch, the lengths swept and the timing budget of each case.

    A case whose first call takes longer than max_call_s is not timed, and longer lengths of the same pass
    are skipped.
    """

    #: width of the layer's input and output
    d_model: int = 256
    #: attention heads of the Transformer block (head size d_model / n_heads)
    n_heads: int = 4
    #: sequences per call
    batch: int = 8
    #: sequence lengths in tokens
    lengths: tuple[int, ...] = (64, 128, 256, 512, 1024)
    #: fwd, or fwd+bwd (the gradients of the input and the weights)
    passes: tuple[str, ...] = PASSES
    #: length of the check against the float64 reference (before any timing)
    check_len: int = 32
    #: square matmul sizes whose best FLOP/s is the device's peak in this dtype
    matmul_sizes: tuple[int, ...] = (512, 1024)
    #: context lengths at which one decoding step is timed (suites/sequence_cost/decode.py)
    decode_contexts: tuple[int, ...] = (64, 256, 1024, 4096)

    #: records from before decoding was timed ran without it
    added_later = {**Timing.added_later, "decode_contexts": ()}

    rules = {"passes": one_of(*PASSES)}

    def problems(self) -> list[str]:
        return heads_problems(self.d_model, self.n_heads) + super().problems()


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(SequenceCostProfile)


class _OpCounter(TorchDispatchMode):
    """Counts the ATen operators dispatched while it is active (forward and autograd's backward alike)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


def dispatched_ops(fn: Callable[[], Any]) -> int:
    """How many ATen operators one call of ``fn`` dispatches (a fused kernel is one; a Python loop adds its steps')."""
    with _OpCounter() as counter:
        fn()
    return counter.count


def useful_flops(spec, batch: int, length: int, backward: bool) -> float:
    """Matmul FLOPs of one call, counted by torch.utils.flop_counter on the meta device.

    A recurrent layer is counted as its step loop (the same products the fused module computes): one step and
    two steps are counted and the per-step difference extended to ``length`` steps, exact since every step
    is the same. The Transformer block is counted with the naive kernel, then the masked half of the score
    and value products removed (the causal share (T + 1) / 2T is the useful one, as in attention_cost).
    """
    if isinstance(spec, RecurrentLayerSpec):
        one, two = (_count(dataclasses.replace(spec, recurrence="loop"), batch, t, backward) for t in (1, 2))
        return one + (length - 1) * (two - one)
    if isinstance(spec, MixerLayerSpec):  # the parallel form's products (linear attention's T x T ones in full)
        return _count(dataclasses.replace(spec, recurrence="parallel"), batch, length, backward)
    counted = _count(dataclasses.replace(spec, kernel="naive"), batch, length, backward)
    from variants.kernel import kernels

    def attention():
        shape = (batch, spec.n_heads, length, spec.head_dim)
        q, k, v = (torch.empty(shape, device="meta", requires_grad=backward) for _ in range(3))
        out = kernels.get("naive").attend(q, k, v, causal=True)
        return torch.autograd.grad(out, (q, k, v), torch.empty_like(out)) if backward else out

    scores = count_flops(attention)[0]
    return counted - scores * (1 - (length + 1) / (2 * length))


def _build(spec):
    """The layer of a mixer spec (variants/models/mixer_layer.py), else of a recurrent or Transformer one."""
    return build_mixer_layer(spec) if isinstance(spec, MixerLayerSpec) else build_layer(spec)


def _count(spec, batch: int, length: int, backward: bool) -> float:
    with torch.device("meta"):
        layer = _build(spec)
        x = torch.empty(batch, length, spec.d_model, requires_grad=backward)

    def run():  # .backward(), not autograd.grad: the counter's module hooks refuse the latter
        y = layer(x)
        if backward:
            y.backward(torch.empty_like(y))
        return y

    return float(count_flops(run)[0])


class SequenceCost(TimesOnly, Suite):
    """Latency, tokens/s and share of the matmul peak of one LSTM/GRU (fused and stepped) or Transformer layer."""

    version = 2  # the Transformer block's forward cases also time its attention core alone (attention_share.py)
    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    default_variants = (
        "lstm",
        "gru",
        "lstm+loop",
        "gru+loop",
        "transformer",
        "mingru",
        "mingru+loop",
        "linear_attention",
        "gated_deltanet",
        "gated_deltanet+loop",
        "deltanet",
        "deltanet+loop",
        "gla",
        "gla+loop",
        "mamba2",
        "mamba2+loop",
    )
    dtypes = ("float32", "bfloat16")
    #: forward passes are measured on their own; the fwd+bwd cases time the backward pass too
    trains = False

    def base_spec(self, profile: SequenceCostProfile, options: dict[str, Any]) -> TransformerSpec:
        """One causal Transformer block of the profile's width, no position encoding, SDPA attention."""
        return TransformerSpec(
            d_model=profile.d_model,
            n_heads=profile.n_heads,
            n_layers=1,
            position="none",
            kernel="sdpa",
            max_len=max(profile.lengths),
        )

    def spec_for(self, variant: str, profile: SequenceCostProfile, options: dict[str, Any]):
        """Expressions with a recurrent cell (``lstm``, ``gru+loop``) build a RecurrentLayerSpec; others a block."""
        if "cell" in preset_fields(variant):
            return resolve(variant, RecurrentLayerSpec(d_model=profile.d_model))
        if "mixer" in preset_fields(variant):  # mingru, linear_attention, mamba2, ... (+loop: the recurrent form)
            return resolve(variant, MixerLayerSpec(d_model=profile.d_model, n_heads=profile.n_heads))
        return resolve(variant, self.base_spec(profile, options))

    def run_job(self, spec, profile: SequenceCostProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        device, dtype = ctx.device, ctx.dtype
        warm_up_tools()
        peak, peak_detail = matmul_peak(device, dtype, profile.matmul_sizes)
        torch.manual_seed(seed)
        layer = _build(spec).to(device=device, dtype=dtype)
        ctx.facts.update(
            parameters=num_parameters(layer),
            d_model=profile.d_model,
            batch=profile.batch,
            layer=_kind(spec),
            matmul_peak_gflops=peak / 1e9,
        )
        out = [
            Measurement("matmul_peak", peak / 1e9, extra={"sizes": peak_detail, "sm_clock_mhz": sm_clock_mhz(device)})
        ]
        error, allowed = _check(layer, spec, profile, seed, device, dtype)
        check = {"check_len": profile.check_len, "allowed_error": allowed}
        if not error <= allowed:
            reason = f"differs from the float64 reference by {error:.3g} (allowed {allowed:.3g}) at length {profile.check_len}"
            out.append(Measurement("max_error", error, status="failed", reason=reason, extra=check))
            return out + [
                Measurement(m, None, x=float(n), x_name="seq_len", status="failed", reason=reason, extra={"pass": p})
                for p in profile.passes
                for n in profile.lengths
                for m in CASE_METRICS
            ]
        out.append(Measurement("max_error", error, extra=check))
        gen = torch.Generator(device=device).manual_seed(seed)
        for pass_ in profile.passes:
            stop: str | None = None
            for length in profile.lengths:
                where = dict(x=float(length), x_name="seq_len", extra={"pass": pass_})
                if stop:
                    out += [Measurement(m, None, status="skipped", reason=stop, **where) for m in CASE_METRICS]
                    continue
                measured, stop = self._case(layer, spec, profile, length, pass_, peak, gen, ctx, where)
                out += measured
        return out + decode_measurements(layer, spec, profile, ctx, seed)

    def _case(
        self,
        layer,
        spec,
        profile: SequenceCostProfile,
        length: int,
        pass_: str,
        peak: float,
        gen: torch.Generator,
        ctx: JobContext,
        where: dict[str, Any],
    ):
        """Measurements of one (length, pass) and, if it went over budget, why to stop."""
        backward = pass_ == "fwd+bwd"
        x = torch.randn(profile.batch, length, profile.d_model, device=ctx.device, generator=gen).to(ctx.dtype)
        x.requires_grad_(backward)
        grad = torch.randn(x.shape, device=ctx.device, generator=gen).to(ctx.dtype)
        params = [p for p in layer.parameters()]

        def call():
            if not backward:
                with torch.no_grad():
                    return layer(x)
            y = layer(x)
            return torch.autograd.grad(y, [x, *params], grad)

        steps = layer.sequential_steps(length) * (2 if backward else 1)
        flops = useful_flops(spec, profile.batch, length, backward)
        ops = dispatched_ops(call)
        synchronize(ctx.device)
        start = time.perf_counter()
        call()
        synchronize(ctx.device)
        first_call_s = time.perf_counter() - start
        extra = {**where["extra"], "first_call_s": first_call_s}
        where = {**where, "extra": extra}
        out = [
            Measurement("flops", flops / 1e9, **where),
            Measurement("dispatched_ops", float(ops), **where),
            Measurement("sequential_steps", float(steps), **where),
        ]
        skipped = untimed(
            first_call_s, profile, length, ("latency", "tokens_per_s", "throughput", "peak_fraction"), where
        )
        if skipped:
            return out + skipped[0], skipped[1]
        timing = time_call(
            call, min_repeats=profile.min_repeats, min_run_time=profile.min_run_time, expected_s=first_call_s
        )
        median = timing.median
        out += [
            Measurement("latency", median * 1e3, **{**where, "extra": {**extra, **timing.summary()}}),
            Measurement("tokens_per_s", profile.batch * length / median, **where),
            Measurement("throughput", flops / median / 1e9, **where),
            Measurement("peak_fraction", 100.0 * flops / median / peak, **where),
        ]
        if _kind(spec).startswith("Transformer") and not backward:  # the attention core's share of the block
            out.append(share_measurement(layer, spec, profile, length, flops, ctx, gen, where))
        return out, None


def _kind(spec) -> str:
    """'LSTM, fused', 'GRU, step loop' or 'Transformer block, sdpa'."""
    if isinstance(spec, RecurrentLayerSpec):
        return f"{spec.cell.upper()}, {'step loop' if spec.recurrence == 'loop' else 'fused'}"
    if isinstance(spec, MixerLayerSpec):
        return f"{spec.mixer}, {'step loop' if spec.recurrence == 'loop' else 'parallel form'}"
    return f"Transformer block, {spec.kernel}"


def _check(
    layer, spec, profile: SequenceCostProfile, seed: int, device: str, dtype: torch.dtype
) -> tuple[float, float]:
    """(largest error of the output and the input gradient against a float64 reference, the error allowed).

    The reference is the same weights in float64: a recurrent layer's step loop, or the block with the naive
    kernel. Allowed: atol + rtol x the largest reference magnitude (the kernel layer's tolerance of the dtype).
    """
    reference_spec = (
        dataclasses.replace(spec, recurrence="loop")
        if isinstance(spec, (RecurrentLayerSpec, MixerLayerSpec))
        else dataclasses.replace(spec, kernel="naive")
    )
    reference = _build(reference_spec).to(device=device, dtype=torch.float64)
    reference.load_state_dict({k: v.to(torch.float64) for k, v in layer.state_dict().items()})
    gen = torch.Generator(device=device).manual_seed(seed + 1)
    x64 = torch.randn(
        profile.batch, profile.check_len, profile.d_model, device=device, dtype=torch.float64, generator=gen
    )
    g64 = torch.randn(x64.shape, device=device, dtype=torch.float64, generator=gen)
    got_x = x64.to(dtype).requires_grad_(True)
    got = layer(got_x)
    (got_grad,) = torch.autograd.grad(got, got_x, g64.to(dtype))
    want_x = x64.clone().requires_grad_(True)
    want = reference(want_x)
    (want_grad,) = torch.autograd.grad(want, want_x, g64)
    atol, rtol = tolerance(dtype)
    error, allowed = 0.0, 0.0
    for a, b in ((got, want), (got_grad, want_grad)):
        error = max(error, float((a.detach().double() - b.detach()).abs().max()))
        allowed = max(allowed, atol + rtol * float(b.detach().abs().max()))
    return error, allowed


suites.add("sequence_cost", SequenceCost())
