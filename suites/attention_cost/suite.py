"""Attention kernel cost: latency, peak memory and FLOP/s against sequence length, each kernel checked first.

Every registered kernel (naive, SDPA, and any other the registry holds) with one, a few or all key/value
heads (MHA, GQA, MQA), causal or not, forward or forward+backward, at sequence lengths up to 4096 on CPU
and 16384 on GPU. Before a case is timed its output (and gradients) are checked against float64 naive
attention; a mismatch is recorded as a failure, not a timing. FlashAttention (Dao et al. 2022, arXiv
2205.14135) is exact attention with memory linear in sequence length; the naive kernel's is quadratic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import JobContext, Measurement, Suite, TimesOnly, suites
from harness.env import sm_clock_mhz
from harness.measure import (
    available_memory,
    count_flops,
    matmul_peak,
    peak_memory,
    read_bandwidth,
    synchronize,
    threads,
    time_call,
    warm_up_tools,
)
from harness.rules import at_least, one_of
from harness.suite_file import SuiteFile
from suites.attention_cost.check import compare, make_case, reference
from suites.attention_cost.masking import masking_measurements
from suites.common.metrics import COMMON
from suites.common.profile_parts import Timing, untimed
from variants.kernel import AttentionKernel, kernels
from variants.position import positions
from variants.spec import TransformerSpec, stable_hash

PASSES = ("fwd", "fwd+bwd")
#: head groupings of the default variants: MHA, GQA with 2 key/value heads, MQA
GROUPINGS = ("", "+gqa2", "+mqa")
CASE_METRICS = ("latency", "peak_memory", "flops", "throughput", "peak_fraction", "max_error")
#: MiB of float32 summed to measure the device's read bandwidth, the roofline's slope (larger than any cache)
READ_MIB = 256


@dataclass(frozen=True)
class AttentionCostProfile(Timing):
    """Shapes swept and the timing budget of each case.

    A case whose first call takes longer than max_call_s is not timed (memory, FLOPs and the check still
    are), and longer sequences of the same kernel, mask and pass are skipped.
    """

    #: sequences per call
    batch: int = 1
    #: query heads (a variant's grouping sets the key/value heads)
    n_heads: int = 8
    #: size of each head
    head_dim: int = 64
    #: sequence lengths in tokens, queries = keys
    lengths: tuple[int, ...] = (256, 512, 1024, 2048, 4096)
    #: masks: full (False) and causal (True)
    causal: tuple[bool, ...] = (False, True)
    #: fwd, or fwd+bwd (the gradients of q, k and v)
    passes: tuple[str, ...] = PASSES
    #: query rows compared with float64 naive in every case
    check_rows: int = 256
    #: square matmul sizes whose best FLOP/s is the device's peak in this dtype
    matmul_sizes: tuple[int, ...] = (1024, 2048)
    #: intra-op threads while measuring (0: torch's default); 1 is steadier on a shared machine
    threads: int = 0

    rules = {
        "passes": one_of(*PASSES),
        "threads": at_least(0, "0 = torch's default"),
        "max_call_s": at_least(0, "0 = time no call"),
    }


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(AttentionCostProfile)


def _useful_fraction(length: int, causal: bool) -> float:
    """Share of the (T, T) score entries a causal mask keeps: (T + 1) / 2T."""
    return (length + 1) / (2 * length) if causal else 1.0


def _reference_flops(shape_q, shape_kv, causal: bool, backward: bool, bias) -> int:
    """FLOPs torch.utils.flop_counter counts for naive attention of these shapes (run on the meta device)."""
    naive = kernels.get("naive")
    q = torch.empty(shape_q, device="meta", requires_grad=backward)
    k = torch.empty(shape_kv, device="meta", requires_grad=backward)
    v = torch.empty(shape_kv, device="meta", requires_grad=backward)
    b = None if bias is None else torch.empty(bias.shape, device="meta")

    def run():
        out = naive.attend(q, k, v, causal=causal, bias=b)
        return torch.autograd.grad(out, (q, k, v), torch.empty_like(out)) if backward else out

    return count_flops(run)[0]


def _memory_problem(held: tuple[int, float] | None, length: int, device: str) -> str | None:
    """On CPU, why ``length`` would not fit in free memory if memory grew quadratically from the last case.

    On CUDA an out-of-memory error is raised and recorded; on CPU the kernel's OOM killer would end the
    whole sweep instead, so a case that cannot fit is skipped before it runs.
    """
    free = available_memory()
    if device != "cpu" or held is None or free is None:
        return None
    predicted = held[1] * (length / held[0]) ** 2
    if predicted > 0.8 * free:
        return (
            f"predicted peak {predicted / 2**30:.1f} GiB (quadratic growth from {held[1] / 2**30:.2f} GiB at "
            f"length {held[0]}) exceeds 80% of the {free / 2**30:.1f} GiB of available memory"
        )
    return None


class AttentionCost(TimesOnly, Suite):
    """Latency, peak memory and FLOP/s of every attention kernel against sequence length, checked first."""

    version = 2  # each job also probes how its kernel masks padding in three dtypes (masking.py)
    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    #: forward passes are measured even for kernels without a backward pass; fwd+bwd cases say why not
    trains = False
    #: inputs are made in the job's dtype; kernels that do not take it on the device are skipped with the reason
    dtypes = ("float32", "bfloat16")

    @property
    def default_variants(self) -> tuple[str, ...]:
        """Every registered kernel with MHA, GQA (2 key/value heads) and MQA."""
        return tuple(f"{k}{g}" for k in kernels.names() for g in GROUPINGS)

    def base_spec(self, profile: AttentionCostProfile, options: dict[str, Any]) -> TransformerSpec:
        return TransformerSpec(
            d_model=profile.n_heads * profile.head_dim,
            n_heads=profile.n_heads,
            n_layers=1,
            position="none",
            kernel="sdpa",
            max_len=max(profile.lengths),
        )

    def run_job(
        self, spec: TransformerSpec, profile: AttentionCostProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        with threads(profile.threads) as count:
            ctx.facts["timing_threads"] = count
            return self._sweep(spec, profile, seed, ctx)

    def _sweep(
        self, spec: TransformerSpec, profile: AttentionCostProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        kernel = kernels.get(spec.kernel)
        device = ctx.device
        warm_up_tools()
        peak, peak_detail = matmul_peak(device, ctx.dtype, profile.matmul_sizes)
        ctx.facts.update(
            kernel=spec.kernel,
            heads=spec.n_heads,
            kv_heads=spec.kv_heads,
            head_dim=spec.head_dim,
            batch=profile.batch,
            position=spec.position,
            matmul_peak_gflops=peak / 1e9,
        )
        out = [
            Measurement("matmul_peak", peak / 1e9, extra={"sizes": peak_detail, "sm_clock_mhz": sm_clock_mhz(device)})
        ]
        # the roofline's memory ceiling beside its compute ceiling (recorded since issue 37)
        timing = dict(min_repeats=profile.min_repeats, min_run_time=profile.min_run_time, max_call_s=profile.max_call_s)
        out.append(read_bandwidth(device, READ_MIB, **timing))
        pos = positions.get(spec.position)(spec.d_model, spec.n_heads, spec.head_dim, max(profile.lengths))
        cases = [(c, p) for c in profile.causal for p in profile.passes]
        total = len(cases) * len(profile.lengths)
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=ctx.label or spec.kernel, unit="case", disable=not ctx.progress, leave=False)
        for causal, pass_ in cases:
            stop: str | None = None  # why longer sequences of this (mask, pass) are skipped
            held: tuple[int, float] | None = None  # (length, peak bytes) of the last case measured
            if pass_ == "fwd+bwd" and not kernel.trains_on(device):
                stop = f"kernel '{spec.kernel}' has no backward pass on {device} (inference only)"
            for length in profile.lengths:
                where = dict(x=float(length), x_name="seq_len", extra={"causal": causal, "pass": pass_})
                bar.set_postfix_str(f"{pass_} causal={causal} T={length}")
                stop = stop or _memory_problem(held, length, ctx.device)
                if stop:
                    out += [Measurement(m, None, status="skipped", reason=stop, **where) for m in CASE_METRICS]
                else:
                    try:
                        measured, stop = self._case(
                            kernel, spec, profile, pos, length, causal, pass_, seed, peak, ctx, where
                        )
                    except (torch.OutOfMemoryError, MemoryError) as exc:  # e.g. the float64 reference on a GPU
                        reason = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
                        measured = [Measurement(m, None, status="oom", reason=reason, **where) for m in CASE_METRICS]
                        stop = f"out of memory at length {length}"
                        if ctx.device.startswith("cuda"):
                            torch.cuda.empty_cache()
                    out += measured
                    held = next(
                        (
                            (length, m.extra["bytes"])
                            for m in measured
                            if m.metric == "peak_memory" and m.status == "ok"
                        ),
                        held,
                    )
                bar.update()
        bar.close()
        # how the kernel masks, in every dtype it takes (masking.py): a check, not a timing
        return out + masking_measurements(kernel, spec.n_heads, spec.kv_heads, spec.head_dim, device, seed)

    def _case(
        self,
        kernel: AttentionKernel,
        spec: TransformerSpec,
        profile: AttentionCostProfile,
        pos,
        length: int,
        causal: bool,
        pass_: str,
        seed: int,
        peak: float,
        ctx: JobContext,
        where: dict[str, Any],
    ):
        """Measurements of one (length, mask, pass) and, if it went over budget, why to stop."""
        backward = pass_ == "fwd+bwd"
        case = _inputs(spec, profile, pos, length, causal, seed, ctx)
        call = _caller(kernel, case, backward)
        start = time.perf_counter()
        try:
            peak_bytes, (kernel_flops, got), method = _profiled(kernel, call, case, ctx.device)
        except (torch.OutOfMemoryError, MemoryError) as exc:
            return _outcome("oom", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}", where), None
        except NotImplementedError as exc:
            return _outcome("unsupported", f"{type(exc).__name__}: {exc}", where), None
        except Exception as exc:  # the kernel raised on this case: recorded, and the sweep goes on
            return _outcome("failed", f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}", where), None
        first_call_s = time.perf_counter() - start
        check = compare(case, got, reference(case, backward))
        extra = {
            **where["extra"],
            "dispatch": _dispatch(kernel, case, backward),
            "first_call_s": first_call_s,
            "checked_rows": len(case.rows),
            "errors": check.errors,
            "allowed_error": check.allowed,
        }
        where = {**where, "extra": extra}
        if not check.ok:
            return _outcome("failed", check.reason(), where), None
        flops = _reference_flops(case.q.shape, case.k.shape, causal, backward, case.bias) * _useful_fraction(
            length, causal
        )
        out = [
            Measurement("max_error", check.max_abs_error, **where),
            Measurement(
                "peak_memory",
                peak_bytes / 2**20,
                **{**where, "extra": {**extra, "method": method, "bytes": peak_bytes}},
            ),
            Measurement(
                "flops", flops / 1e9, **{**where, "extra": {**extra, "kernel_counted_gflop": kernel_flops / 1e9}}
            ),
        ]
        if first_call_s > profile.max_call_s:  # a second, unprofiled call: one slow call may be another process's doing
            first_call_s = extra["first_call_s"] = min(first_call_s, _call_seconds(call, case, ctx.device))
        skipped = untimed(first_call_s, profile, length, ("latency", "throughput", "peak_fraction"), where)
        if skipped:
            return out + skipped[0], skipped[1]
        timing = time_call(
            call(case.grad_dense),
            min_repeats=profile.min_repeats,
            min_run_time=profile.min_run_time,
            expected_s=first_call_s,
        )
        median = timing.median
        timed = {**where, "extra": {**extra, **timing.summary()}}
        out += [
            Measurement("latency", median * 1e3, **timed),
            Measurement("throughput", flops / median / 1e9, **where),
            Measurement("peak_fraction", 100.0 * flops / median / peak, **where),
        ]
        return out, None


def _inputs(spec: TransformerSpec, profile: AttentionCostProfile, pos, length: int, causal: bool, seed: int, ctx):
    """The case of one (length, mask): q, k, v and the position's score bias (H, T, T) or None, in the job's dtype."""
    bias = pos.score_bias(length, length, 0, ctx.dtype)  # (H, T, T) or None
    return make_case(
        profile.batch,
        spec.n_heads,
        spec.kv_heads,
        spec.head_dim,
        length,
        causal,
        bias,
        ctx.dtype,
        ctx.device,
        seed=int(stable_hash([seed, length, spec.n_heads, spec.kv_heads]), 16) % 2**31,
        rows=profile.check_rows,
    )


def _call_seconds(call, case, device: str) -> float:
    """Seconds of one unprofiled call of the pass (synchronised on a GPU)."""
    synchronize(device)
    start = time.perf_counter()
    call(case.grad_rows)()
    synchronize(device)
    return time.perf_counter() - start


def _outcome(status: str, reason: str, where: dict[str, Any]) -> list[Measurement]:
    """Every metric of a case with the same status and reason (it did not run, or failed its check)."""
    return [Measurement(m, None, status=status, reason=reason, **where) for m in CASE_METRICS]


def _caller(kernel: AttentionKernel, case, backward: bool):
    """``call(grad)``: the function of one call of the pass, returning {'out'} (B, H, T, Dh) and for fwd+bwd also
    {'dq', 'dk', 'dv'} (the gradients for the upstream gradient ``grad``)."""

    def call(grad: torch.Tensor):
        q, k, v = case.inputs(backward)

        def run():
            y = kernel.attend(q, k, v, causal=case.causal, bias=case.bias)
            if not backward:
                return {"out": y}
            dq, dk, dv = torch.autograd.grad(y, (q, k, v), grad)
            return {"out": y, "dq": dq, "dk": dk, "dv": dv}

        return run

    return call


def _profiled(kernel: AttentionKernel, call, case, device: str):
    """(peak bytes, (FLOPs the kernel's own ops count, the outputs to check), the memory method) of one profiled call.

    A compiling kernel first gets an unmeasured call, since compiling is not its cost, and its compiled ops do not
    run under the FLOP counter's dispatch mode, so only naive's count is used (NaN here)."""
    if kernel.compiles:
        call(case.grad_rows)()
        profiled = lambda: (float("nan"), call(case.grad_rows)())  # noqa: E731
    else:
        profiled = lambda: count_flops(call(case.grad_rows))  # noqa: E731
    return peak_memory(profiled, device)


def _dispatch(kernel: AttentionKernel, case, backward: bool) -> str:
    """What runs for this case: for SDPA the backend PyTorch's dispatcher picks ('sdpa:flash'), asked with gradients
    on for fwd+bwd since some backends differ then; else the kernel's name. Bookkeeping only: a dispatcher that
    cannot answer is recorded as such, never failing the case."""
    q, k, v = case.inputs(backward)
    try:
        return kernel.dispatch(q, k, v, causal=case.causal, bias=case.bias)
    except Exception as exc:  # the private chooser's signature moves between torch releases
        return f"not recorded ({type(exc).__name__})"


suites.add("attention_cost", AttentionCost())
