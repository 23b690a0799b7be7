"""What a trained recurrent (mixer) LM costs at inference: its state, prefill and decoding, as model_cost.py measures
a Transformer's.

- ``state_bytes``: the bytes of the live state tensors a model carries per sequence after x tokens, fed one step at
  a time (batch 1), at x = L and 8L; failed unless equal to the model's own count (``state_numel``, variants/mixer/):
  flat for a recurrence, growing for a hybrid's attention blocks.
- ``kv_cache_bytes_per_token``: what the state grows by per token of context, (state at 8L - state at L) / 7L: 0
  for a recurrence, the attention blocks' keys and values for a hybrid; the quantity a Transformer's cache row gives.
- ``prefill_latency``: one forward over L prompt tokens (the chunked training form) (ms).
- ``decode_latency``: one step that brings the sequence to c tokens from the state after c - 1, at c = L and 8L
  (ms/token); its logits are first checked against a full forward's last position.

Timings as model_cost.py's (harness/measure.py ``timed``, model_cost.TIMING), batch 1, the job's threads.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import torch

from harness.contract import Measurement, Metric
from harness.measure import seconds, timed
from suites.common.model_cost import DECODE_MULTIPLIERS, TIMING, checked_bytes, logits_differ, prompt_tokens
from variants.kernel import tolerance

#: the metric this module adds to model_cost.METRICS
METRICS = {
    m.name: m
    for m in (
        Metric(
            "state_bytes", "B", False, "bytes of the state a recurrent LM carries per sequence after x tokens (batch 1)"
        ),
    )
}


def _tensors(state: Any) -> list[torch.Tensor]:
    """Every tensor of a (nested) state."""
    if torch.is_tensor(state):
        return [state]
    if isinstance(state, (list, tuple)):
        return [t for part in state for t in _tensors(part)]
    return []


def live_bytes(states: Any) -> int:
    """Bytes of the distinct storages behind a state's tensors."""
    storages = {}
    for t in _tensors(states):
        storage = t.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def run_steps(model, tokens: torch.Tensor):
    """(the logits of the last token (B, V), the states after every token of ``tokens`` (B, n)), one step at a time."""
    states = model.initial_states(tokens.shape[0])
    logits = None
    for t in range(tokens.shape[1]):
        logits, states = model.step(tokens[:, t], states)
    return logits, states


def state_inference_costs(
    model,
    vocab_size: int,
    train_len: int,
    device: str,
    dtype: torch.dtype,
    seed: int,
    multipliers: Sequence[int] = DECODE_MULTIPLIERS,
) -> list[Measurement]:
    """state_bytes, kv_cache_bytes_per_token, prefill_latency and decode_latency of a MixerLM in eval mode."""
    tokens = prompt_tokens(vocab_size, train_len, multipliers, seed, device)  # (1, 8L)
    element = torch.finfo(dtype).bits // 8
    t0 = time.perf_counter()
    out: list[Measurement] = []
    sizes = {}
    with torch.inference_mode():
        for mult in multipliers:
            context = train_len * mult
            sizes[context], measured = _at_context(model, tokens, context, mult, device, dtype, element)
            out += measured
        short, long = min(sizes), max(sizes)
        growth = (sizes[long] - sizes[short]) / (long - short) if long > short else 0.0
        out.insert(
            0,
            Measurement(
                "kv_cache_bytes_per_token",
                float(growth),
                extra={
                    "tokens": train_len,
                    "state_bytes_at": {str(k): v for k, v in sizes.items()},
                    "bytes_per_element": element,
                    "meaning": "growth of the state per token of context (0 for a recurrence)",
                },
            ),
        )
        prompt = tokens[:, :train_len]
        out.insert(
            1,
            timed(
                "prefill_latency",
                lambda: model(prompt),
                device,
                **TIMING,
                where=dict(x=float(train_len), x_name="context", extra={"batch": 1}),
            ),
        )
    for m in out:
        m.extra["threads"] = torch.get_num_threads()
    out[0].extra["measure_time_s"] = time.perf_counter() - t0
    return out


def _at_context(
    model, tokens: torch.Tensor, context: int, mult: int, device: str, dtype: torch.dtype, element: int
) -> tuple[int, list[Measurement]]:
    """(the state's bytes after ``context`` tokens, [state_bytes against the model's count, the decode step that
    brings the sequence to ``context`` tokens, timed after its logits are checked against a full forward's])."""
    full = model(tokens[:, :context]).float()[:, -1]  # (1, V)
    _, before = run_steps(model, tokens[:, : context - 1])
    step = tokens[:, context - 1]
    first, (logits, after) = seconds(lambda: model.step(step, before), device)
    measured, formula = live_bytes(after), model.state_numel(context) * element
    facts = {"tokens": context, "state_bytes_formula": formula, "bytes_per_element": element}
    where = dict(x=float(context), x_name="context")
    why = f"the state tensors occupy {measured} B, the model's count gives {formula} B"
    out = [checked_bytes("state_bytes", float(measured), measured, formula, why, extra=facts, **where)]
    error = float((logits.float() - full).abs().max())
    allowed = tolerance(dtype).allowed(full)
    extra = {"multiplier": mult, "batch": 1, "cached": context - 1, "max_error_vs_full": error}
    if error > allowed:
        return measured, out + [logits_differ(error, allowed, extra=extra, **where)]
    step_time = timed(
        "decode_latency",
        lambda: model.step(step, before)[0],
        device,
        **TIMING,
        where=dict(where, extra=extra),
        first=first,
    )
    return measured, out + [step_time]
