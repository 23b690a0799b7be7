"""What a trained model costs, measured in the job that trained it, on its device and in its dtype.

The quality a job records (held-out perplexity, BLEU) and the cost recorded beside it then belong to one
model, so the index's quality x cost table never joins one model's quality with another's cost:

- ``train_flops``: matrix-product FLOPs of one training step (forward and backward, torch.utils.flop_counter
  on a twin with the ``naive`` kernel, whose FLOPs are the attention math: PyTorch's fused CPU kernel is opaque
  to the counter; a fused CPU LSTM through harness/rnn_flops.py's formulas) x steps; ``extra`` gives FLOPs per
  step and per training token. A recurrent model on CUDA (cuDNN's fused RNN, no formula) records it unsupported.
- ``peak_train_memory``: the most bytes one training step (forward, backward, AdamW update from a fresh
  optimiser, so its two moments are allocated) holds at once beyond the weights, plus the weights; on CPU the
  profiler's allocator events, as the cost suites measure (harness/measure.py ``peak_memory``).
- ``kv_cache_bytes_per_token``: the bytes of the storages behind the cache a prefill of L tokens fills, over L;
  failed unless equal to the spec's formula (variants/decode/cache_size.py ``spec_cache_bytes``: 2 x layers x kv_heads x
  head_dim x min(L, W) x bytes per element for grouped attention, W a sliding window; (d_c + d_h^R) per token and
  layer for latent attention).
- ``prefill_latency``: one forward over L prompt tokens into an empty cache with room for them (ms).
- ``decode_latency``: one cached step, the one that brings the sequence to c tokens (c - 1 cached, buffers
  preallocated so the step writes in place), at c = L and 8L (ms/token); its logits are first checked against
  a full forward's. A model that cannot take 8L tokens (a learned table of L) records it as unsupported.

Timings follow the kv_cache suite's discipline (harness/measure.py ``timed``: a warm-up call, a cap on one
call, at least TIMING["min_repeats"] repeats, repeats during which another process held a CPU dropped, the
quartiles kept); batch 1, the job's threads. A RoPE scaling with s = length / L applies at each length, as it
does when the same model is scored there.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

import torch

from harness.contract import Measurement, Metric
from harness.flops import count_flops
from harness.measure import peak_memory, seconds, timed
from harness.train import make_optimizer
from variants.decode.cache_size import measured_cache_bytes, spec_cache_bytes
from variants.decode.generate import empty_caches
from variants.kernel import tolerance

#: the kv_cache quick profile's timing settings: enough for a CPU step of a few ms, about 0.2 s per timing
TIMING = dict(min_repeats=5, min_run_time=0.15, max_call_s=2.0)
#: the decode contexts, as multiples of the training length L
DECODE_MULTIPLIERS = (1, 8)

Autocast = Callable[[], AbstractContextManager]

#: the metrics these functions record, for a suite.yaml's ``common`` entries (with suites/common/metrics.py's COMMON)
METRICS = {
    m.name: m
    for m in (
        Metric("train_flops", "FLOP", False, "matrix-product FLOPs of one training step (forward + backward) x steps"),
        Metric("peak_train_memory", "B", False, "weights + the most bytes one training step holds at once"),
        Metric("kv_cache_bytes_per_token", "B", False, "bytes of the cache a prefill of L tokens fills, over L"),
        Metric("prefill_latency", "ms", False, "one forward over L prompt tokens into an empty cache (batch 1)"),
        Metric("decode_latency", "ms/token", False, "the cached step that brings the sequence to x tokens (batch 1)"),
    )
}


def _none() -> AbstractContextManager:
    return contextlib.nullcontext()


def training_costs(
    model: torch.nn.Module,
    loss_of: Callable[[torch.nn.Module], torch.Tensor],
    tokens_per_step: int,
    steps: int,
    device: str,
    settings=None,
    autocast: Autocast = _none,
) -> list[Measurement]:
    """``train_flops`` and ``peak_train_memory`` of one training step of ``model``'s architecture.

    ``loss_of(m)`` returns the loss of one training batch under ``m`` (the same batch each call); ``settings``
    (TrainSettings) builds the optimiser whose update the memory peak includes. ``model`` itself is not changed."""
    twin = copy.deepcopy(model)
    if getattr(twin.spec, "kernel", "naive") != "naive":
        naive = type(model)(dataclasses.replace(twin.spec, kernel="naive")).to(device)
        naive.load_state_dict(twin.state_dict())
        counted = naive
    else:
        counted = twin
    counted.train()
    with autocast():
        flops = count_flops(lambda: loss_of(counted))
    recurrent = any(isinstance(m, torch.nn.RNNBase) for m in counted.modules())
    counted = None  # the twin's memory freed before the peak is measured
    extra = {
        "flops_per_step": flops,
        "flops_per_token": flops / tokens_per_step,
        "tokens_per_step": tokens_per_step,
        "counted_with_kernel": "naive",
    }
    if recurrent and device != "cpu":  # cuDNN's fused RNNs have no formula in the counter: it would undercount
        out = [
            Measurement(
                "train_flops",
                None,
                status="unsupported",
                extra=extra,
                reason=f"torch.utils.flop_counter does not count cuDNN's fused kernels of nn.LSTM, nn.GRU and "
                f"nn.RNN on {device} (it saw {flops:.3g} FLOPs per step, the layers around them)",
            )
        ]
    else:
        out = [Measurement("train_flops", float(flops * steps), extra=extra)]
    twin.train()
    for p in twin.parameters():
        p.grad = None
    optimizer = make_optimizer(twin, settings) if settings is not None else None

    def step():
        with autocast():
            loss = loss_of(twin)
        loss.backward()
        if optimizer is not None:
            optimizer.step()

    weights = sum(p.numel() * p.element_size() for p in twin.parameters())
    peak, _, method = peak_memory(step, device)
    out.append(
        Measurement(
            "peak_train_memory",
            float(peak + weights),
            extra={
                "step_peak_bytes": peak,
                "weight_bytes": weights,
                "method": method,
                "optimizer": settings.optimizer if optimizer is not None else "none",
                "includes": "weights + the most bytes one step (forward, backward, optimiser update "
                "from a fresh optimiser) holds at once",
            },
        )
    )
    return out


def training_throughput(
    model: torch.nn.Module,
    loss_of: Callable[[torch.nn.Module], torch.Tensor],
    tokens_per_step: int,
    device: str,
    settings,
    autocast: Autocast = _none,
) -> Measurement:
    """``train_throughput`` re-taken without training (bench/run/retime.py): training tokens per second of one optimiser
    step of a copy of ``model`` (forward, backward, clipping, the optimiser update), timed as ``timed`` times (clean
    repeats, their quartiles), where the training run's own figure is its tokens over its wall time."""
    twin = copy.deepcopy(model)
    twin.train()
    optimizer = make_optimizer(twin, settings)
    params = list(twin.parameters())

    def step():
        with autocast():
            loss = loss_of(twin)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, settings.grad_clip)
        optimizer.step()

    one = timed("train_step", step, device, **TIMING)
    if one.status != "ok":
        return Measurement("train_throughput", None, status=one.status, reason=one.reason)
    return Measurement(
        "train_throughput",
        tokens_per_step / (one.value / 1e3),
        extra={
            **one.extra,
            "step_ms": one.value,
            "tokens_per_step": tokens_per_step,
            "method": "re-timed: tokens of one training step over its median time, the model untrained",
        },
    )


def _element_size(dtype: torch.dtype) -> int:
    return torch.empty((), dtype=dtype).element_size()


def prompt_tokens(vocab_size: int, train_len: int, multipliers: Sequence[int], seed: int, device: str) -> torch.Tensor:
    """(1, L x the largest multiplier) random tokens of ``seed``: the prompt and every decode context are cut from it."""
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab_size, (1, train_len * max(multipliers)), generator=gen).to(device)


def checked_bytes(metric: str, value: float, measured: int, formula: int, why: str, **fields) -> Measurement:
    """``metric`` of ``value``, failed with the reason ``why`` unless the ``measured`` bytes equal the ``formula``'s
    (a cache or a state's storages against its count)."""
    if measured != formula:
        return Measurement(metric, value, status="failed", reason=why, **fields)
    return Measurement(metric, value, **fields)


def logits_differ(error: float, allowed: float, what: str = "the step's", **fields) -> Measurement:
    """A failed ``decode_latency``: ``what`` logits differ from the full forward's by ``error`` > ``allowed``."""
    return Measurement(
        "decode_latency",
        None,
        status="failed",
        reason=f"{what} logits differ from the full forward's by {error:.2e} > {allowed:g}",
        **fields,
    )


def inference_costs(
    model,
    vocab_size: int,
    train_len: int,
    device: str,
    dtype: torch.dtype,
    seed: int,
    autocast: Autocast = _none,
    multipliers: Sequence[int] = DECODE_MULTIPLIERS,
) -> list[Measurement]:
    """KV-cache bytes per token, prefill latency at L and decode latency at each multiple of L of a DecoderLM (in eval
    mode, batch 1), each a Measurement (failed, skipped or unsupported with its reason)."""
    spec = model.spec
    tokens = prompt_tokens(vocab_size, train_len, multipliers, seed, device)  # (1, 8L)
    element = _element_size(dtype)
    t0 = time.perf_counter()
    out: list[Measurement] = []
    with torch.inference_mode(), autocast():
        model.set_context_length(train_len)
        _, caches = model(tokens[:, :train_len], caches=empty_caches(model, 1, dtype=dtype))
        measured = measured_cache_bytes(caches)
        # the formula of the spec's own attention layer: 2 x kv_heads x head_dim x min(L, W) per layer for grouped
        # attention (W its sliding window), (d_c + d_h^R) x L for latent attention (variants/decode/cache_size.py)
        analytic = spec_cache_bytes(spec, train_len, 1, element)
        facts = {
            "tokens": train_len,
            "cache_bytes": measured,
            "cache_bytes_analytic": analytic,
            "layers": spec.n_layers,
            "kv_heads": spec.kv_heads,
            "head_dim": spec.head_dim,
            "bytes_per_element": element,
        }
        why = f"the cache tensors occupy {measured} B, the formula gives {analytic} B"
        out.append(
            checked_bytes("kv_cache_bytes_per_token", measured / train_len, measured, analytic, why, extra=facts)
        )
        prompt = tokens[:, :train_len]
        out.append(
            timed(
                "prefill_latency",
                lambda: model(prompt, caches=empty_caches(model, 1, dtype=dtype, capacity=train_len))[0],
                device,
                **TIMING,
                where=dict(x=float(train_len), x_name="context", extra={"batch": 1}),
            )
        )
        for mult in multipliers:
            out.append(_decode(model, tokens, train_len * mult, mult, device, dtype))
        model.set_context_length(train_len)
    timing_s = time.perf_counter() - t0
    for m in out:
        m.extra["threads"] = torch.get_num_threads()
    out[0].extra["measure_time_s"] = timing_s
    return out


def _decode(model, tokens: torch.Tensor, context: int, mult: int, device: str, dtype: torch.dtype) -> Measurement:
    """The cached step that brings the sequence to ``context`` tokens, timed after its logits are checked."""
    where: dict = dict(
        x=float(context), x_name="context", extra={"multiplier": mult, "batch": 1, "cached": context - 1}
    )
    problem = model.length_problem(context)
    if problem:
        return Measurement("decode_latency", None, status="unsupported", reason=problem, **where)
    model.set_context_length(context)
    full = model(tokens[:, :context]).float()[:, -1]  # (1, V): the last position of a full forward
    _, caches = model(tokens[:, : context - 1], caches=empty_caches(model, 1, dtype=dtype, capacity=context))
    step = tokens[:, context - 1 : context]
    first, logits = seconds(lambda: model(step, caches=caches)[0][:, -1], device)
    error = float((logits.float() - full).abs().max())
    where["extra"]["max_error_vs_full"] = error
    allowed = tolerance(dtype).allowed(full)
    if error > allowed:
        return logits_differ(error, allowed, "the cached step's", **where)
    return timed(
        "decode_latency", lambda: model(step, caches=caches)[0][:, -1], device, **TIMING, where=where, first=first
    )
