"""What a trained encoder-decoder costs at inference, measured in the job that trained it: encoding a source and
decoding one target token with the encoder's memory.

For a source of S tokens (a test sentence of the median source length):
- ``prefill_latency``: encoding it (``model.start``), ms, x = S;
- ``kv_cache_bytes_per_token``: a Transformer decoder's self-attention cache per target token, measured from the
  buffers a decode step writes into (bytes per slot), failed unless equal to 2 x layers x kv_heads x head_dim x
  bytes per element; ``extra`` gives the cross-attention K/V of the memory per source token too. A recurrent
  decoder keeps a fixed-size state instead: unsupported, with the state's bytes;
- ``decode_latency``: the step that brings the target to c tokens (c - 1 decoded), at c = S and 8S, with the
  memory of the S-token source; its log-probabilities are first checked against a teacher-forced forward's.

Timed as suites/common/model_cost.py times (the kv_cache suite's discipline), batch 1, the job's threads.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from harness.contract import Measurement
from harness.measure import seconds, timed
from suites.common.model_cost import DECODE_MULTIPLIERS, TIMING
from variants.decode.cache_size import kv_cache_bytes
from variants.decode.kv_cache import LayerCache
from variants.kernel import tolerance
from variants.seq2seq_spec import BOS


def _bytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def _self_buffers(state) -> list[str]:
    """The keys of a Transformer state's self-attention buffers (k0, v0, k1, ...), in layer order."""
    return sorted((k for k in state if k[:1] in ("k", "v") and k[1:].isdigit()), key=lambda k: (int(k[1:]), k[0]))


def seq2seq_inference_costs(
    model,
    source: Sequence[int],
    vocab_size: int,
    device: str,
    seed: int,
    multipliers: Sequence[int] = DECODE_MULTIPLIERS,
) -> list[Measurement]:
    """Prefill (encode), cache bytes per target token and decode latency at each multiple of the source length."""
    src = torch.tensor([list(source)], dtype=torch.long, device=device)  # (1, S)
    length = src.shape[1]
    gen = torch.Generator().manual_seed(seed)
    targets = torch.randint(4, vocab_size, (1, length * max(multipliers)), generator=gen).to(device)
    targets[:, 0] = BOS
    out: list[Measurement] = []
    with torch.inference_mode():
        out.append(
            timed(
                "prefill_latency",
                lambda: model.start(src),
                device,
                **TIMING,
                where=dict(x=float(length), x_name="source_tokens", extra={"batch": 1}),
            )
        )
        out.append(_cache_bytes(model, src, targets))
        for mult in multipliers:
            out.append(_decode(model, src, targets, length * mult, mult, device))
    for m in out:
        m.extra["threads"] = torch.get_num_threads()
    return out


def _cache_bytes(model, src: torch.Tensor, targets: torch.Tensor) -> Measurement:
    state = model.start(src)
    _, state = model.step(state, targets[:, 0])
    keys = _self_buffers(state)
    if not keys:
        held = _bytes(v for v in state.values() if torch.is_tensor(v))
        return Measurement(
            "kv_cache_bytes_per_token",
            None,
            status="unsupported",
            extra={"state_bytes": held},
            reason=f"a recurrent decoder carries a fixed-size state ({held} B with the source's memory), "
            "no per-token cache",
        )
    spec = model.spec
    capacity = state[keys[0]].shape[2]
    per_slot = _bytes(state[k] for k in keys) / capacity
    element = state[keys[0]].element_size()
    analytic = kv_cache_bytes(spec.n_layers, spec.kv_heads, spec.head_dim, 1, 1, element)
    cross = _bytes(v for k, v in state.items() if k.startswith(("ck", "cv")) and torch.is_tensor(v)) / src.shape[1]
    extra = {
        "capacity": capacity,
        "layers": spec.n_layers,
        "kv_heads": spec.kv_heads,
        "head_dim": spec.head_dim,
        "bytes_per_element": element,
        "cache_bytes_analytic": analytic,
        "memory_bytes_per_source_token": cross,
    }
    if per_slot != analytic:
        return Measurement(
            "kv_cache_bytes_per_token",
            per_slot,
            status="failed",
            extra=extra,
            reason=f"the self-attention buffers hold {per_slot:g} B per slot, the formula gives {analytic} B",
        )
    return Measurement("kv_cache_bytes_per_token", per_slot, extra=extra)


def _decode(model, src: torch.Tensor, targets: torch.Tensor, context: int, mult: int, device: str) -> Measurement:
    """The step that brings the target to ``context`` tokens, with the source's memory, timed after a check."""
    where = dict(
        x=float(context),
        x_name="target_tokens",
        extra={"multiplier": mult, "batch": 1, "cached": context - 1, "source_tokens": src.shape[1]},
    )
    problem = model.length_problem(context) if hasattr(model, "length_problem") else None
    if problem:
        return Measurement("decode_latency", None, status="unsupported", reason=problem, **where)
    full = torch.log_softmax(model(src, targets[:, :context])[:, -1].float(), dim=-1)  # (1, V), teacher-forced
    state = model.start(src)
    for i in range(context - 1):
        _, state = model.step(state, targets[:, i])
    for k in _self_buffers(state):  # room for the timed step: it writes in place, never grows a buffer
        if state[k].shape[2] < context:
            state[k] = LayerCache(state[k], state[k], state["length"]).reserve(context).key_buffer
    token = targets[:, context - 1]
    first, logp = seconds(lambda: model.step(state, token)[0], device)
    error = float((logp.float() - full).abs().max())
    where["extra"]["max_error_vs_full"] = error
    allowed = tolerance(torch.float32).allowed(full)
    if error > allowed:
        return Measurement(
            "decode_latency",
            None,
            status="failed",
            reason=f"the decode step's log-probabilities "
            f"differ from the teacher-forced forward's by {error:.2e} > {allowed:g}",
            **where,
        )
    return timed("decode_latency", lambda: model.step(state, token)[0], device, **TIMING, where=where, first=first)
