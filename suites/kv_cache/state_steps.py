"""The kv_cache measurements of a recurrent (mixer) LM: the state it keeps in place of a cache, and its decode step.

A recurrence (Mamba-2, GLA, DeltaNet, Gated DeltaNet, minGRU, linear attention) carries a fixed state from token to
token; a hybrid adds its attention blocks' keys and values. At each context the job feeds the tokens one step at a
time and records ``cache_bytes``, the bytes of the live state tensors (batch included), against
``cache_bytes_analytic``, the model's own count (``state_numel``) x batch x bytes per element: they must agree
exactly, as a Transformer's cache must agree with its formula. ``decode_latency`` times one step from that state,
after its logits are checked against a full forward's last position; ``uncached_latency`` the full forward. Greedy
generation by steps must give the tokens a full forward gives. The grouped decode paths read a K/V cache, which a
recurrence does not keep: unsupported, with that reason.
"""

from __future__ import annotations

import torch

from harness.contract import Measurement
from harness.measure import seconds
from suites.common.model_cost import checked_bytes, logits_differ
from suites.common.state_cost import live_bytes, run_steps
from suites.kv_cache.paths import unsupported
from variants.kernel import tolerance


def greedy_match(model, profile, seed: int, device: str) -> Measurement:
    """Greedy tokens by steps from the carried state against greedy tokens by full forwards."""
    gen = torch.Generator().manual_seed(seed)
    prompt = torch.randint(0, profile.vocab_size, (profile.batch, profile.prompt_len), generator=gen).to(device)
    logits, states = run_steps(model, prompt)
    stepped, full, tokens, margin = [], [], prompt, float("inf")
    for _ in range(profile.generate):
        nxt = logits.argmax(-1)  # (B,)
        stepped.append(nxt)
        last = model(tokens)[:, -1].float()
        top = last.topk(2, dim=-1).values
        margin = min(margin, float((top[:, 0] - top[:, 1]).min()))
        full.append(last.argmax(-1))
        tokens = torch.cat([tokens, full[-1][:, None]], 1)
        logits, states = model.step(full[-1], states)  # both continue from the full forward's token
    same = (torch.stack(stepped, 1) == torch.stack(full, 1)).all(dim=0)
    extra = {"tokens": profile.generate, "prompt_len": profile.prompt_len, "min_margin": margin}
    return greedy_result(same, extra, "by steps and by full forwards")


def greedy_result(same: torch.Tensor, extra: dict, how: str) -> Measurement:
    """greedy_match of the per-step agreement ``same`` (steps,): 1 where every step's tokens agree, else failed from
    the first step that differs; ``how``: the two ways the tokens were made, ``extra`` holds their ``min_margin``."""
    if bool(same.all()):
        return Measurement("greedy_match", 1.0, extra=extra)
    first = int((~same).nonzero()[0])
    return Measurement(
        "greedy_match",
        float(same.float().mean()),
        status="failed",
        extra=extra,
        reason=f"greedy tokens {how} differ from step {first} on "
        f"(smallest top-1 vs top-2 logit gap {extra['min_margin']:.2e})",
    )


def context_measurements(
    model, profile, context: int, seed: int, device: str, dtype: torch.dtype, timed
) -> list[Measurement]:
    """cache_bytes (live state) = cache_bytes_analytic (the model's count), decode_latency and uncached_latency after
    ``context`` tokens; ``timed(metric, fn, where, first)`` times a call as the suite does."""
    gen = torch.Generator().manual_seed(seed + context)
    tokens = torch.randint(0, profile.vocab_size, (profile.batch, context + 1), generator=gen).to(device)
    where = dict(x=float(context), x_name="context")
    _, states = run_steps(model, tokens[:, :context])
    element = torch.empty((), dtype=dtype).element_size()
    analytic = model.state_numel(context) * profile.batch * element
    measured = live_bytes(states)
    facts = {
        "extra": {
            "layers": model.spec.n_layers,
            "mixer": model.spec.mixer,
            "bytes_per_element": element,
            "batch": profile.batch,
            "state": "recurrent",
        }
    }
    why = f"the state tensors occupy {measured} B, the model's count gives {analytic} B"
    out = [
        Measurement("cache_bytes_analytic", float(analytic), **where, **facts),
        checked_bytes("cache_bytes", float(measured), measured, analytic, why, **where, **facts),
    ]
    step = tokens[:, context]
    uncached_s, full = seconds(lambda: model(tokens), device)
    first, (logits, _) = seconds(lambda: model.step(step, states), device)
    error = float((logits.float() - full[:, -1].float()).abs().max())
    allowed = tolerance(dtype).allowed(full[:, -1])
    if error > allowed:
        out.append(logits_differ(error, allowed, extra={"max_error_vs_full": error}, **where))
    else:
        out.append(
            timed(
                "decode_latency",
                lambda: model.step(step, states)[0],
                {**where, "extra": {"max_error_vs_full": error}},
                first,
            )
        )
    out.append(timed("uncached_latency", lambda: model(tokens), dict(where), uncached_s))
    return out


def no_paths(contexts) -> list[Measurement]:
    """The grouped decode paths, unsupported: they read a K/V cache a recurrence does not keep."""
    why = "the decode-path comparison reads a grouped K/V cache, which a recurrent state does not keep"
    return [m for c in contexts for m in unsupported(dict(x=float(c), x_name="cached_tokens"), why)]
