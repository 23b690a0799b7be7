"""Streaming: a text many times the training length through a bounded cache, four policies (Xiao et al. 2023, StreamingLLM).

One character LM is trained on windows of L characters, then held-out streams of many L are fed one token at a
time through a cache of C entries under each policy of ``policies.py``: dense (everything cached), window (the
last C), attention sinks (the first k = 4 and the last C - k) and sliding-window recomputation (the last C tokens
run again at every step). Recorded per policy: perplexity against position (bins of L / 2), perplexity past the
cache size and past twice the training length (each stream's too, for paired verdicts), the cost of one step at
the end of the text (ms per token, tokens and bytes held), and per layer the attention on the cache's first slot,
which StreamingLLM finds large in all but the lowest layers (its "attention sink"). ``rope+sink_token`` trains
the model with a dedicated sink token first in every window (StreamingLLM 3.3; sink_token.py), whose sink policy
keeps that one token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import JobContext, Measurement, Suite, suites
from harness.measure import threads, timed
from harness.rules import at_least
from harness.suite_file import SuiteFile
from harness.train import train
from suites.common.char_lm_suite import CharLMCorpus
from suites.common.lm import lm_loss, random_batch
from suites.common.metrics import COMMON
from suites.common.profile_parts import CharLMText, ModelSize, TrainingBudget
from suites.streaming.policies import POLICIES, StreamState, binned, kept_positions, stream_nll, stream_step
from suites.streaming.sink_token import led_by_sink, sink_id, split_sink, with_sink
from variants.models.transformer import build
from variants.spec import TransformerSpec, resolve


@dataclass(frozen=True)
class StreamingProfile(ModelSize, TrainingBudget, CharLMText):
    """The model, its training budget, and the streams fed through the cache."""

    d_model: int = 128
    n_layers: int = 3
    n_heads: int = 8
    train_len: int = 64
    batch_size: int = 32
    steps: int = 400
    lr: float = 3e-3
    warmup_steps: int = 40
    #: held-out streams fed at once (a batch), each from its own stretch of the held-out text
    streams: int = 8
    #: characters per stream (the quick profile's 1024 = 16 L)
    stream_len: int = 1024
    #: cache entries, the step's own token included (C; 0 = the training length)
    capacity: int = 0
    #: first tokens the sink policy keeps (StreamingLLM: 4)
    sinks: int = 4
    #: positions per bin of the perplexity-against-position curve (0 = half the training length)
    bin_width: int = 0
    #: timing of one step per policy
    min_repeats: int = 5
    min_run_time: float = 0.1
    max_call_s: float = 2.0
    #: intra-op threads while streaming (0: torch's default)
    threads: int = 0

    rules = {
        "streams": at_least(1),
        "stream_len": at_least(2),
        "capacity": at_least(0, "0 = the training length"),
        "sinks": at_least(0),
        "bin_width": at_least(0, "0 = half the training length"),
        "threads": at_least(0, "0 = torch's default"),
    }

    def problems(self) -> list[str]:
        out = super().problems()
        cache = self.capacity or self.train_len
        if self.sinks >= cache:
            out.append(
                f"set.sinks={self.sinks} leaves no room for recent tokens in a cache of {cache}; give fewer than {cache}."
            )
        if self.capacity >= self.stream_len:  # nothing is ever evicted: every cache policy is then the dense one
            out.append(
                f"set.capacity={self.capacity} is not below the stream's length set.stream_len={self.stream_len}: "
                f"nothing would ever be evicted, so no cache policy is tested; give less than {self.stream_len}."
            )
        if self.bin_width >= self.stream_len:  # one bin: no curve of loss against position
            out.append(
                f"set.bin_width={self.bin_width} is not below the stream's length set.stream_len="
                f"{self.stream_len}: the stream would be one bin, with no curve over position; give less than "
                f"{self.stream_len}."
            )
        if self.stream_len <= 2 * self.train_len:
            out.append(
                f"set.stream_len={self.stream_len} does not reach past twice the training length "
                f"{self.train_len}; give more than {2 * self.train_len}."
            )
        return out


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(StreamingProfile)


class Streaming(CharLMCorpus, Suite):
    """A long text through a bounded cache: dense, window, attention sinks and recomputation (StreamingLLM)."""

    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    default_variants = ("rope",)
    #: the standard profile also trains the model with a dedicated sink token (sink_token.py); the quick one keeps
    #: its 3-minute budget with one model (`variants=[rope,rope+sink_token]` adds it)
    profile_variants = {"standard": ("rope", "rope+sink_token")}
    options = {"data": None}

    def base_spec(self, profile: StreamingProfile, options: dict[str, Any]) -> TransformerSpec:
        return super().base_spec(profile, options, position="rope")

    def spec_for(self, variant: str, profile: StreamingProfile, options: dict[str, Any]) -> TransformerSpec:
        """Presets on the base spec; a ``sink_token`` part trains the model with a dedicated sink token (sink_token.py)."""
        variant, sink = split_sink(variant)
        return with_sink(resolve(variant, self.base_spec(profile, options)), sink)

    def check_data(self, profile: StreamingProfile, options: dict[str, Any]) -> None:
        from suites.common.data.char_lm import check_fits

        check_fits(
            options.get("data") or profile.data,
            profile.heldout_fraction,
            profile.train_len,
            profile.streams * profile.stream_len,
            "set.streams x set.stream_len",
        )

    def spec_problems(self, spec: TransformerSpec, profile: StreamingProfile) -> list[str]:
        reason = _unsupported(spec)
        return [reason] if reason else []

    def run_job(
        self, spec: TransformerSpec, profile: StreamingProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        data = self._data(profile, ctx.options)
        train_ids = data.train_ids.to(ctx.device)
        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        gen = torch.Generator().manual_seed(seed)

        sink = sink_id(spec)

        def step_loss(m, step):
            x, y = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
            if sink is not None:  # the sink first, then the window's first L - 1 characters, each predicting the next
                x, y = led_by_sink(x, sink), x
            return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

        result = train(model, step_loss, profile.train_settings(), progress=ctx.progress, desc=ctx.label or "train")
        model.eval()
        capacity, width = profile.capacity or profile.train_len, profile.bin_width or max(1, profile.train_len // 2)
        ids = data.eval_ids(profile.streams * profile.stream_len, profile.stream_len)
        streams = ids[: profile.streams * profile.stream_len].view(-1, profile.stream_len).to(ctx.device)  # (S, N)
        streams = led_by_sink(streams, sink)  # a sink-token model's streams begin with its token, as its training did
        sinks = profile.sinks if sink is None else 1  # such a model keeps only its dedicated token
        ctx.facts.update(
            parameters=model.num_parameters(),
            steps=profile.steps,
            capacity=capacity,
            sinks=sinks,
            streams=int(streams.shape[0]),
            stream_len=profile.stream_len,
            **data.facts(),
            train_passes=data.passes(profile.steps * profile.batch_size * profile.train_len),
        )
        out = [
            Measurement("train_loss", result.final_loss),
            Measurement("train_time", result.wall_time_s, extra={**result.load, "tokens_per_s": result.tokens_per_s}),
        ]
        with threads(profile.threads) as count:
            ctx.facts["timing_threads"] = count
            for policy in POLICIES:
                out += self._policy(model, streams, policy, capacity, width, sinks, profile, ctx)
        return out

    def _policy(
        self,
        model,
        streams: torch.Tensor,
        policy: str,
        capacity: int,
        width: int,
        sinks: int,
        profile: StreamingProfile,
        ctx: JobContext,
    ) -> list[Measurement]:
        shares: dict[int, list[float]] = {}
        nll, state = stream_nll(
            model, streams, policy, capacity, sinks, shares, share_from=capacity, lead=sink_id(model.spec)
        )
        extra = {"policy": policy, "sinks": sinks} if policy == "sinks" else {"policy": policy}
        out = [
            Measurement("stream_ppl", ppl, x=float(start), x_name="position", extra=extra)
            for start, ppl in binned(nll, width)
        ]
        for metric, start in (("ppl_past_cache", capacity - 1), ("ppl_past_training", 2 * profile.train_len - 1)):
            part = nll[:, start:]  # targets at positions start + 1 .. : their contexts reach past the cache / 2 L
            per_stream = [math.exp(float(row.mean())) for row in part]
            out.append(
                Measurement(
                    metric,
                    math.exp(float(part.mean())),
                    extra={**extra, "per_stream": per_stream, "from_position": start + 1},
                )
            )
        for layer, values in sorted(shares.items()):
            out.append(
                Measurement(
                    "first_slot_share",
                    sum(values) / len(values),
                    x=float(layer),
                    x_name="layer",
                    extra={**extra, "uniform": 1.0 / capacity},
                )
            )
        held = capacity if state is None else len(state.positions)
        cache_bytes = _bytes(model, streams.shape[0], capacity) if state is None else state.cached_bytes()
        out += [
            Measurement("cache_tokens", float(held), extra=extra),
            Measurement("cache_bytes", float(cache_bytes), extra=extra),
        ]
        out.append(
            timed(
                "decode_ms",
                _step(model, streams, policy, capacity, sinks, state),
                ctx.device,
                min_repeats=profile.min_repeats,
                min_run_time=profile.min_run_time,
                max_call_s=profile.max_call_s,
                where={"extra": dict(extra)},
            )
        )
        return out


def _unsupported(spec: TransformerSpec):
    """Why the streaming step cannot run a spec (it rotates cached keys at their slots: RoPE or no positions)."""
    if spec.position not in ("rope", "none") or spec.attention != "grouped" or spec.window is not None:
        return (
            f"the streaming step re-positions cached keys within the cache, which it does for RoPE (or no positions) "
            f"and grouped attention without a window; {spec.position}/{spec.attention} is not that"
        )
    return None


def _bytes(model, batch: int, tokens: int) -> int:
    """K/V bytes of ``tokens`` tokens (what recomputation holds while it runs a step)."""
    spec, param = model.spec, next(model.parameters())
    return 2 * spec.n_layers * spec.kv_heads * spec.head_dim * tokens * batch * param.element_size()


def _step(model, streams: torch.Tensor, policy: str, capacity: int, sinks: int, state):
    """One step at the end of the text, repeatable: the next token against a copy of the final cache (evicted as the
    policy does), or, for recompute, one forward over the last ``capacity`` tokens."""
    last, position = streams[:, -1], streams.shape[1] - 1
    if state is None:
        window = streams[:, -capacity:]
        return lambda: model(window)[:, -1]
    keep = kept_positions(policy, state.positions, capacity, sinks)

    def step():
        copy = StreamState(list(state.keys), list(state.values), list(state.positions))
        copy.evict(keep)
        return stream_step(model, last, copy, position)

    return step


suites.add("streaming", Streaming())
