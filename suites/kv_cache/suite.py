"""KV cache: bytes, per-token decode latency and bandwidth with and without it, and four ways to read a grouped cache.

Autoregressive generation with a key/value cache encodes each token once; without it every step runs
the whole sequence again. For MHA, GQA and MQA (Ainslie et al. 2023, arXiv 2305.13245) with RoPE or
ALiBi positions this suite measures the bytes the cache tensors occupy against 2 x layers x kv_heads x
head_dim x tokens x batch x bytes per element (they must agree exactly), the per-token latency against
context length with and without the cache, the cached step's tokens/s and the bandwidth it achieves
(bytes of weights and cache it reads / its latency) against the device's measured copy bandwidth (a step
at small batch is memory-bound: Pope et al. 2022, arXiv 2211.05102), whether greedy generation gives the
same tokens both ways, and four exact decode-step paths over a grouped cache (repeat K/V, SDPA
enable_gqa, grouped queries, split-KV). Past grouped heads: multi-head latent attention (``mla``, DeepSeek-V2,
arXiv 2405.04434) caches (d_c + d_h^R) values per token and layer and decodes with its up-projections absorbed,
and a sliding window (``window<W>``, Mistral 7B, arXiv 2310.06825) keeps a rolling cache of W slots; each
formula is the attention layer's own (``variants.decode.cache_size.spec_cache_bytes``).
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import JobContext, Measurement, Suite, TimesOnly, suites
from harness.measure import copy_bandwidth, read_bandwidth, threads, timed
from harness.measure import seconds as _seconds
from harness.rules import at_least
from harness.suite_file import SuiteFile
from suites.common.metrics import COMMON
from suites.common.model_cost import checked_bytes
from suites.common.profile_parts import ModelSize, Timing
from suites.kv_cache.paths import path_measurements
from suites.kv_cache.state_steps import context_measurements, greedy_match, greedy_result, no_paths
from variants.decode.cache_size import measured_cache_bytes, spec_cache_bytes
from variants.decode.generate import empty_caches, greedy_generate
from variants.decode.static_decode import StaticDecoder
from variants.hf_config import read as read_config
from variants.hf_config import spec_fields
from variants.kernel import tolerance, use_grouped_decode
from variants.models.mixer_lm import MixerSpec
from variants.models.mixer_lm import build as build_mixer_lm
from variants.models.transformer import build
from variants.spec import TransformerSpec, preset_fields, resolve


def hf_path(model: str) -> str:
    """The PATH of ``model=hf:PATH``; a UsageError for any other form."""
    from harness.errors import UsageError

    if not model.startswith("hf:") or len(model) == 3:
        raise UsageError(f"model={model} is not hf:PATH; give hf: and a local config.json (or its folder).")
    return model[3:]


@dataclass(frozen=True)
class KVCacheProfile(ModelSize, Timing):
    """Model size, contexts and timing budget of one run (a measurement whose first call takes over max_call_s is not timed)."""

    #: tokens of the (untrained) model's vocabulary
    vocab_size: int = 256
    #: sequences decoded together
    batch: int = 1
    #: cached tokens at which a decode step is timed and the cache is measured
    contexts: tuple[int, ...] = (128, 512, 2048)
    #: the generation check: prompt tokens, then tokens generated with and without the cache
    prompt_len: int = 16
    generate: int = 24
    #: decode-path comparison: query heads, head dimension and cached tokens (K/V heads from the variant)
    path_heads: int = 32
    path_head_dim: int = 128
    path_contexts: tuple[int, ...] = (256, 1024, 4096)
    #: intra-op threads while measuring (0: torch's default)
    threads: int = 0
    #: MiB of the copy and the reduction whose rates are the device's memory ceilings (larger than its caches)
    copy_mib: int = 256

    rules = {
        "vocab_size": at_least(2),
        "threads": at_least(0, "0 = torch's default"),
        "max_call_s": at_least(0, "0 = time no call"),
    }


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(KVCacheProfile)


class KVCache(TimesOnly, Suite):
    """KV-cache bytes (measured = analytic), per-token latency with and without it, and GQA decode paths."""

    version = 2  # bandwidth metrics and the split-KV path
    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    default_variants = (
        "rope",
        "rope+gqa2",
        "rope+mqa",
        "alibi",
        "alibi+gqa2",
        "alibi+mqa",
        "mla",
        "rope+window64",
        "mamba2",
        "gated_deltanet",
        "deltanet",
        "gla",
        "mamba2+hybrid2",
    )
    #: the model's weights, cache and decode-path inputs are made in the job's dtype
    dtypes = ("float32", "bfloat16")

    #: model=hf:PATH: the shapes of a local Hugging Face config.json in place of the profile's (variants/hf_config.py)
    options = {"model": None}

    def variants_for(self, profile: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        """The config's own architecture (``baseline``) when ``model=hf:PATH`` names one; else the defaults."""
        return ("baseline",) if (options or {}).get("model") else super().variants_for(profile, options)

    def check_data(self, profile: KVCacheProfile, options: dict[str, Any]) -> None:
        """``model`` must be hf:PATH of a config whose architecture bench reads (one sentence, before compute)."""
        if options.get("model"):
            spec_fields(hf_path(options["model"]))

    def data_checksum(self, profile: KVCacheProfile, options: dict[str, Any]) -> str:
        """With ``model=hf:PATH``, the config's content: runs of two configs are two groups of records."""
        if not options.get("model"):
            return ""
        return hashlib.sha256(json.dumps(read_config(hf_path(options["model"])), sort_keys=True).encode()).hexdigest()

    def base_spec(self, profile: KVCacheProfile, options: dict[str, Any]) -> TransformerSpec:
        longest = max(max(profile.contexts), profile.prompt_len + profile.generate) + 1
        if options.get("model"):  # a real architecture's shapes, at the profile's contexts
            return TransformerSpec(**spec_fields(hf_path(options["model"])), max_len=longest, kernel="sdpa")
        return TransformerSpec(
            vocab_size=profile.vocab_size,
            d_model=profile.d_model,
            n_layers=profile.n_layers,
            n_heads=profile.n_heads,
            max_len=longest,
            position="rope",
            kernel="sdpa",
        )

    def spec_for(self, variant: str, profile: KVCacheProfile, options: dict[str, Any]):
        """A Transformer on the base spec; a variant that sets a ``mixer`` a mixer LM of the same width, depth and heads
        (state_steps.py measures what it keeps in place of a cache)."""
        if "mixer" in preset_fields(variant):
            return resolve(
                variant,
                MixerSpec(
                    vocab_size=profile.vocab_size,
                    d_model=profile.d_model,
                    n_layers=profile.n_layers,
                    n_heads=profile.n_heads,
                ),
            )
        return resolve(variant, self.base_spec(profile, options))

    def run_job(self, spec: TransformerSpec, profile: KVCacheProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        torch.manual_seed(seed)
        if isinstance(spec, MixerSpec):
            return self._state_job(spec, profile, seed, ctx)
        model = build(spec).to(device=ctx.device, dtype=ctx.dtype).eval()  # random weights: cost needs no training
        fast = use_grouped_decode(copy.deepcopy(model))  # the same weights; single-token steps by grouped queries
        with threads(profile.threads) as count, torch.inference_mode():
            ctx.facts["timing_threads"] = count
            ctx.facts.update(
                parameters=model.num_parameters(),
                kv_heads=spec.kv_heads,
                head_dim=spec.head_dim,
                batch=profile.batch,
                position=spec.position,
                kernel=spec.kernel,
            )
            out = self._greedy(model, fast, profile, seed, ctx) + self._bandwidths(profile, ctx)
            for context in profile.contexts:
                out += self._context(model, fast, spec, profile, context, seed, ctx)
            for context in profile.path_contexts:
                out += path_measurements(
                    spec,
                    profile,
                    context,
                    seed,
                    ctx.device,
                    ctx.dtype,
                    lambda metric, fn, where: self._timed(metric, fn, profile, where, ctx.device),
                )
            return out

    def _state_job(self, spec: MixerSpec, profile: KVCacheProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        """A recurrent LM's state against the context, its decode step and greedy check (state_steps.py)."""
        model = build_mixer_lm(spec).to(device=ctx.device, dtype=ctx.dtype).eval()
        with threads(profile.threads) as count, torch.inference_mode():
            ctx.facts.update(
                timing_threads=count, parameters=model.num_parameters(), batch=profile.batch, mixer=spec.mixer
            )
            out = [greedy_match(model, profile, seed, ctx.device), *self._bandwidths(profile, ctx)]
            for context in profile.contexts:
                out += context_measurements(
                    model,
                    profile,
                    context,
                    seed,
                    ctx.device,
                    ctx.dtype,
                    lambda metric, fn, where, first: self._timed(metric, fn, profile, where, ctx.device, first),
                )
            return out + no_paths(profile.path_contexts)

    def _timed(
        self, metric: str, fn, profile: KVCacheProfile, where: dict[str, Any], device: str, first: float | None = None
    ) -> Measurement:
        """Time ``fn`` unless one call (``first``, or a warm-up call now) is over the profile's budget."""
        return timed(
            metric,
            fn,
            device,
            min_repeats=profile.min_repeats,
            min_run_time=profile.min_run_time,
            max_call_s=profile.max_call_s,
            where=where,
            first=first,
        )

    def _bandwidths(self, profile: KVCacheProfile, ctx: JobContext) -> list[Measurement]:
        """The device's memory ceilings (harness/measure.py), each over ``copy_mib`` MiB: one copy (bytes read and
        written) and one reduction (bytes read only, what a decode step does; recorded since issue 37)."""
        timing = dict(min_repeats=profile.min_repeats, min_run_time=profile.min_run_time, max_call_s=profile.max_call_s)
        return [probe(ctx.device, profile.copy_mib, **timing) for probe in (copy_bandwidth, read_bandwidth)]

    def _greedy(self, model, fast, profile: KVCacheProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        gen = torch.Generator().manual_seed(seed)
        prompt = torch.randint(0, profile.vocab_size, (profile.batch, profile.prompt_len), generator=gen).to(ctx.device)
        cached, margin_c = greedy_generate(fast, prompt, profile.generate, use_cache=True)
        full, margin_f = greedy_generate(model, prompt, profile.generate, use_cache=False)
        same = (cached == full).all(dim=0)  # (steps,) every sequence of the batch agrees
        extra = {"tokens": profile.generate, "prompt_len": profile.prompt_len, "min_margin": min(margin_c, margin_f)}
        return [greedy_result(same, extra, "with and without the cache")]

    def _context(
        self, model, fast, spec: TransformerSpec, profile: KVCacheProfile, context: int, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        gen = torch.Generator().manual_seed(seed + context)
        tokens = torch.randint(0, profile.vocab_size, (profile.batch, context + 1), generator=gen).to(ctx.device)
        where = dict(x=float(context), x_name="context")
        _, caches = model(tokens[:, :context], caches=empty_caches(model, profile.batch))
        element = torch.empty((), dtype=ctx.dtype).element_size()
        out = _cache_sizes(spec, caches, context, profile.batch, element, where)
        # the timed step writes in place: the prefill's exact buffers get room for it (one copy, before timing), so
        # no repeat of the step copies the cache as a cache without room would
        caches = [cache.reserve(context + 1) for cache in caches]
        # check before timing: a cached step must give the full forward's last logits (these calls warm up)
        step = tokens[:, context:]
        uncached_s, full = _seconds(lambda: model(tokens), ctx.device)
        steps = {
            "decode_latency": lambda: fast(step, caches=caches)[0][:, -1],  # each returns the logits (B, V)
            "decode_latency_kernel": lambda: model(step, caches=caches)[0][:, -1],
        }
        problem = fast.position.static_problem() or _static_cache_problem(spec)
        if ctx.device.startswith("cuda") and problem:
            out.append(Measurement("decode_latency_graph", None, status="unsupported", reason=problem, **where))
        elif ctx.device.startswith("cuda"):  # the same step as one CUDA-graph replay (variants/decode/static_decode.py)
            decoder = StaticDecoder(fast, profile.batch, context + 1)
            decoder.prefill(tokens[:, :context])
            decoder.token.copy_(step)
            steps["decode_latency_graph"] = lambda: (decoder.replay(), decoder.logits)[1]
        for metric, call in steps.items():
            measured = self._checked_step(metric, call, full[:, -1], profile, where, ctx)
            out.append(measured)
            if metric != "decode_latency_kernel" and measured.status == "ok":
                suffix = "_graph" if metric == "decode_latency_graph" else ""
                out += _decode_rates(measured, model, spec, profile.batch, context, element, where, suffix)
        out.append(self._timed("uncached_latency", lambda: model(tokens), profile, dict(where), ctx.device, uncached_s))
        return out

    def _checked_step(
        self, metric: str, call, want: torch.Tensor, profile: KVCacheProfile, where: dict[str, Any], ctx: JobContext
    ) -> Measurement:
        """The cached step ``call`` timed, once its logits are within the kernel layer's tolerance of the full
        forward's last ones (``want``); failed where they are not."""
        first, logits = _seconds(call, ctx.device)
        error = float((logits - want).abs().max())
        extra = {"max_error_vs_full": error}
        allowed = tolerance(ctx.dtype).allowed(want)  # the kernel layer's, as every "matches" check
        if error > allowed:
            return Measurement(
                metric,
                None,
                status="failed",
                reason=f"cached step logits differ from the full forward by {error:.2e} > {allowed:g}",
                **where,
                extra=extra,
            )
        return self._timed(metric, call, profile, {**where, "extra": extra}, ctx.device, first)


def _cache_sizes(
    spec: TransformerSpec, caches, context: int, batch: int, element: int, where: dict[str, Any]
) -> list[Measurement]:
    """cache_bytes_analytic, the attention layer's own formula, and cache_bytes, the storages behind the prefill's
    caches (failed unless equal to it)."""
    analytic = spec_cache_bytes(spec, context, batch, element)  # per attention layer (variants/attention/)
    measured = measured_cache_bytes(caches)
    facts = {
        "extra": {
            "layers": spec.n_layers,
            "kv_heads": spec.kv_heads,
            "head_dim": spec.head_dim,
            "attention": spec.attention,
            "window": spec.window,
            "values_per_token_layer": analytic / (spec.n_layers * context * batch * element),
            "bytes_per_element": element,
            "batch": batch,
        }
    }
    why = f"cache tensors occupy {measured} B, analytic size is {analytic} B"
    return [
        Measurement("cache_bytes_analytic", float(analytic), **where, **facts),
        checked_bytes("cache_bytes", float(measured), measured, analytic, why, **where, **facts),
    ]


def _static_cache_problem(spec: TransformerSpec) -> str | None:
    """Why a decode step of this spec cannot be captured in a CUDA graph by StaticDecoder, or None."""
    if spec.attention != "grouped":
        return f"the captured step writes a grouped K/V cache, and attention '{spec.attention}' caches a latent"
    if spec.window is not None:
        return "the captured step writes a full-length K/V cache, not a rolling buffer of W slots"
    return None


def weight_bytes(model: torch.nn.Module) -> int:
    """Bytes of the model's distinct parameters (the tied embedding once): what one decode step reads of them."""
    return sum(p.numel() * p.element_size() for p in model.parameters())


def _decode_rates(
    step: Measurement,
    model,
    spec: TransformerSpec,
    batch: int,
    context: int,
    element: int,
    where: dict[str, Any],
    suffix: str = "",
) -> list[Measurement]:
    """Tokens/s and achieved bandwidth of a timed cached step (``suffix`` "_graph": the CUDA-graph replay): every
    weight and the K/V of the context + 1 tokens are read once per step (activations, a few KiB, are left out)."""
    seconds = step.value * 1e-3
    weights = weight_bytes(model)
    cache = spec_cache_bytes(spec, context + 1, batch, element)
    extra = {"weight_bytes": weights, "cache_bytes_read": cache, "step_ms": step.value}
    return [
        Measurement("decode_tokens_per_s" + suffix, batch / seconds, **where, extra=extra),
        Measurement("decode_bandwidth" + suffix, (weights + cache) / seconds / 1e9, **where, extra=extra),
    ]


suites.add("kv_cache", KVCache())
