"""Language modelling: one character-level LM per attention/block variant, held-out perplexity at its budget.

Each variant is a Transformer decoder that differs from a shared baseline (scaled_dot scores, MHA, Pre-LN,
LayerNorm, GELU) on one axis: scoring (Vaswani et al. 2017; Luong et al. 2015; Bahdanau et al. 2014), head
grouping (Shazeer 2019; Ainslie et al. 2023), norm placement (Xiong et al. 2020), norm type (Zhang &
Sennrich 2019) or feed-forward layer (Shazeer 2020). All train on the same text with the same steps, and
each is scored on the same held-out characters at the training length, beside its parameter count and
training FLOPs, so that a variant that wins by being bigger is visible as such. Grouped key/value heads
(``gqa<g>``, ``mqa``) and multi-head latent attention (``mla``, DeepSeek-V2) are compared at matched parameters:
their FFN width is set until the model is within 2% of the same spec with MHA (``variants/models/param_match.py``);
``gqa2+unmatched`` keeps the default FFN.

The standard profile adds control arms: ``post_ln+no_warmup`` and ``no_warmup``, Post-LN and Pre-LN trained without
warm-up (Xiong et al.'s setting), ``post_ln+long_warmup``, Post-LN warmed up over half the steps (``schedule.py``), and the scorings with absolute sinusoidal positions (``sinusoidal``, ``sinusoidal+dot``,
``sinusoidal+additive+naive``), the setting of Vaswani et al. 2017; RoPE rotates q and k, which keeps the
relative-position property only for dot products, so the RoPE comparison is kept as a second, labelled arm.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import JobContext, Measurement, Suite, suites
from harness.errors import UsageError
from harness.rules import Rule, one_of
from harness.suite_file import SuiteFile
from harness.train import train
from suites.common.char_lm_suite import CharLMCorpus
from suites.common.families import build
from suites.common.lm import evaluate_nll, lm_loss, random_batch
from suites.common.metrics import COMMON
from suites.common.model_cost import METRICS as COST_METRICS
from suites.common.model_cost import inference_costs, training_costs, training_throughput
from suites.common.profile_parts import ModelSize, ScoredText, TrainingBudget
from suites.common.state_cost import METRICS as STATE_METRICS
from suites.common.state_cost import state_inference_costs
from suites.language_modeling.depth import split_depth
from suites.language_modeling.mixers import mixer_spec
from suites.language_modeling.schedule import settings_for, split_schedule, split_steps, with_warmup
from variants.models.init_scheme import INIT_SCHEMES
from variants.models.mixer_lm import MixerSpec
from variants.models.param_match import match_head_grouping
from variants.spec import TransformerSpec, preset_fields, resolve

PROTOCOL = "nonoverlapping"


@dataclass(frozen=True)
class LanguageModelingProfile(ModelSize, TrainingBudget, ScoredText):
    """Model size, training budget and evaluation of one run."""

    #: held-out characters scored (at most the whole held-out split), in non-overlapping windows of train_len
    eval_tokens: int = 65536
    #: the baseline's position encoding (RoPE, Su et al. 2021: the modern default; every variant keeps it)
    position: str = "rope"
    #: weight initialisation (variants/models/init_scheme.py): N(0, 1/fan_in), the scale GPT-2's and Llama's 0.02 has at
    #: their widths (d 768-4096); at d 128, 0.02 is 4.4x smaller than 1/sqrt(d) and every arm trained 500 steps
    #: ended about 17% higher in perplexity (version 3's records; set.init=gpt2 reproduces them)
    init: str = "fan_in"

    rules = {"position": Rule(check=lambda key, value: _unknown_position(key, value)), "init": one_of(*INIT_SCHEMES)}


def _unknown_position(key: str, value: str) -> str | None:
    from variants.position import positions

    names = positions.names()
    return None if value in names else f"{key}={value} is not a position encoding; choose one of {', '.join(names)}."


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(LanguageModelingProfile)


class LanguageModeling(CharLMCorpus, Suite):
    """Held-out perplexity, parameters and training FLOPs of each attention/block variant against a shared baseline."""

    version = 4  # fan-in initialisation (version 3: GPT-2's N(0, 0.02)); each job records its own cost since version 3
    metrics = SuiteFile.of(__file__).metrics({**COMMON, **COST_METRICS, **STATE_METRICS})
    profiles = PROFILES
    #: the slowest first (additive scores a T x T x d tensor), so that workers=N does not end on it alone
    default_variants = (
        "additive+naive",
        "baseline",
        "dot",
        "general",
        "gqa2",
        "mqa",
        "mla",
        "post_ln",
        "rmsnorm",
        "relu",
        "swiglu",
    )
    #: with the control arms of two claims (the module docstring), the slowest first again
    with_controls = (
        ("additive+naive", "sinusoidal+additive+naive")
        + default_variants[1:]
        + ("post_ln+long_warmup", "post_ln+no_warmup", "no_warmup", "sinusoidal", "sinusoidal+dot")
    )
    #: the arms that read a claim along a declared axis: Xiong et al.'s warm-up claim at their depth (depth.py), and
    #: DeepSeek-V2's MLA claim at 4x the profile's budget (schedule.py); the 4x-budget jobs first, the slowest
    with_axes = (
        ("mla+steps2000", "steps2000")
        + with_controls
        + ("no_warmup+depth6", "post_ln+no_warmup+depth6", "post_ln+long_warmup+depth6", "depth6")
    )
    profile_variants = {"standard": with_axes, "large": with_controls}
    options = {"data": None}

    def base_spec(self, profile: LanguageModelingProfile, options: dict[str, Any]) -> TransformerSpec:
        return super().base_spec(profile, options, position=profile.position, init=profile.init)

    def spec_for(self, variant: str, profile: LanguageModelingProfile, options: dict[str, Any]) -> TransformerSpec:
        """Presets on the base spec; a gqa<g>/mqa spec gets the d_ff that matches its MHA twin's parameter count.

        An expression that sets d_ff itself (``unmatched`` sets the default) keeps it: the unmatched comparison.
        A ``long_warmup`` or ``no_warmup`` part gives the spec its own warm-up, a ``steps<N>`` part its own budget
        (schedule.py), a ``depth<N>`` part its own number of layers (depth.py).
        """
        variant, n_layers = split_depth(variant)
        variant, steps = split_steps(variant)
        variant, warmup_fraction = split_schedule(variant)
        base = self.base_spec(profile, options)
        if n_layers is not None:
            base = dataclasses.replace(base, n_layers=n_layers)
        if "mixer" in preset_fields(variant):
            if warmup_fraction is not None or steps is not None:
                raise UsageError(
                    f"variant {variant!r} with a warm-up or steps part: those parts apply to Transformer "
                    "arms only; drop them from the mixer arm."
                )
            return mixer_spec(variant, base)
        spec = resolve(variant, base)
        spec = spec if "d_ff" in preset_fields(variant) else match_head_grouping(spec)
        return with_warmup(spec, warmup_fraction, steps)

    def run_job(
        self, spec: TransformerSpec, profile: LanguageModelingProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        data = self._data(profile, ctx.options)
        train_ids = data.train_ids.to(ctx.device)  # once: each step's batch is gathered there
        eval_ids = data.eval_ids(profile.eval_tokens, profile.train_len)
        n_eval = eval_ids.numel() - 1

        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        gen = torch.Generator().manual_seed(seed)
        settings = settings_for(spec, profile.train_settings())
        if settings.warmup_steps != profile.warmup_steps:  # only a variant with its own warm-up records it
            ctx.facts.update(warmup_steps=settings.warmup_steps)
        mixer = isinstance(spec, MixerSpec)
        ctx.facts.update(
            parameters=model.num_parameters(),
            eval_chars=n_eval,
            protocol=PROTOCOL,
            lr=profile.lr,
            steps=settings.steps,
            train_passes=data.passes(settings.steps * profile.batch_size * profile.train_len),
            **data.facts(),
            attention_backend="chunked mixer"
            if mixer
            else model.attention_dispatch(profile.batch_size, profile.train_len),
        )

        def step_loss(m, step):
            x, y = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
            return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

        result = train(model, step_loss, settings, progress=ctx.progress, desc=ctx.label or "train")
        t0 = time.perf_counter()
        nll, count = evaluate_nll(model, eval_ids, profile.train_len, protocol=PROTOCOL, device=ctx.device)
        where = dict(
            x=float(profile.train_len),
            x_name="eval_length",
            extra={"scored_tokens": count, "eval_time_s": time.perf_counter() - t0},
        )
        loss = nll / count
        return [
            Measurement("train_loss", result.final_loss, extra={"curve": result.curve()}),
            Measurement("train_time", result.wall_time_s, extra=dict(result.load)),
            Measurement("train_throughput", result.tokens_per_s, extra=dict(result.load)),
            Measurement("loss", loss, **where),
            Measurement("perplexity", float(torch.tensor(loss).exp()), **where),
        ] + self._costs(model, profile, settings, train_ids, seed, ctx)

    retimes = True

    def retime_job(self, spec, profile: LanguageModelingProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        """Training throughput and the inference latencies of the untrained model of ``spec`` and ``seed``."""
        train_ids = self._data(profile, ctx.options).train_ids.to(ctx.device)
        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        x, y = random_batch(train_ids, profile.batch_size, profile.train_len, torch.Generator().manual_seed(0))
        out = [
            training_throughput(
                model, lambda m: lm_loss(m, x, y), x.numel(), ctx.device, settings_for(spec, profile.train_settings())
            )
        ]
        return out + _inference(model, profile, seed, ctx)

    @staticmethod
    def _costs(
        model, profile: LanguageModelingProfile, settings, train_ids: torch.Tensor, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        """The trained model's own training and inference cost (suites/common/model_cost.py), on one training batch."""
        t0 = time.perf_counter()
        x, y = random_batch(train_ids, profile.batch_size, profile.train_len, torch.Generator().manual_seed(0))
        out = training_costs(model, lambda m: lm_loss(m, x, y), x.numel(), settings.steps, ctx.device, settings)
        out += _inference(model, profile, seed, ctx)
        ctx.facts.update(cost_time_s=time.perf_counter() - t0)
        return out


def _inference(model, profile: LanguageModelingProfile, seed: int, ctx: JobContext) -> list[Measurement]:
    """The model's inference costs in eval mode: a recurrence's fixed state (suites/common/state_cost.py), else its
    KV cache (suites/common/model_cost.py)."""
    model.eval()
    costs = state_inference_costs if isinstance(model.spec, MixerSpec) else inference_costs
    return costs(model, model.spec.vocab_size, profile.train_len, ctx.device, ctx.dtype, seed)


suites.add("language_modeling", LanguageModeling())
