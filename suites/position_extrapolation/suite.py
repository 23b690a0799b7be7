"""Length extrapolation: train a character LM at length L, measure perplexity at L x {1, 2, 4, 8, 16}.

Press, Smith & Lewis 2022, "Train Short, Test Long" (arXiv 2108.12409): sinusoidal positions degrade
soon after the training length, rotary later, and ALiBi stays flat. Each variant is trained on the
same text with the same budget; held-out text is scored at every evaluation length on the same tokens,
under a named protocol (non-overlapping windows by default, sliding windows as an option).

RoPE context extension (Chen et al. 2023, arXiv 2306.15595; Peng et al. 2023, arXiv 2309.00071): the
variants ``rope+pi``, ``rope+ntk``, ``rope+yarn`` and ``rope+yarn_rlinear`` evaluate the weights of ``rope``
(trained once, kept in results/<suite>/.checkpoints/ for every job of that training: suites/common/checkpoints.py)
with the scaling applied at every length, s = length / L; a scaling with free parameters (YaRN's alpha and
beta, NTK-aware's headroom over s) has them chosen first on validation text at 4L, the length the verdicts
read (tuning.py).
``rope+dynamic_ntk`` scores as ``rope+ntk`` at headroom 1 on windows of the evaluation length, so the
standard profile does not run it twice. ``set.finetune_steps=N`` adds a second score after N steps of
fine-tuning at each length past L. More position encodings: ``t5_bias`` (Raffel et al. 2020) and
``randomized`` (Ruoss et al. 2023), scored as its paper does, at positions drawn at test time too (the mean
of ``TEST_DRAWS`` fixed-seed draws), and at 0..T-1 as a labelled extra (``consecutive_loss``). The default
variants stay the five of the quick profile (its 3-minute budget); a full standard run is
``bench run suite=position_extrapolation profile=standard`` (its variants: ``profile_variants``).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import JobContext, Measurement, Suite, suites
from harness.rules import at_least, one_of
from harness.suite_file import SuiteFile
from harness.train import train
from suites.common.char_lm_suite import CharLMCorpus
from suites.common.checkpoints import train_job_once, training_key
from suites.common.data.char_lm import check_fits
from suites.common.finetune import finetune_settings, tokens_batch
from suites.common.finetune import with_weights as _with_weights
from suites.common.lm import PROTOCOLS, evaluate_nll, lm_loss, random_batch
from suites.common.metrics import COMMON
from suites.common.model_cost import METRICS as COST_METRICS
from suites.common.model_cost import inference_costs, training_costs, training_throughput
from suites.common.profile_parts import CharLMText, ModelSize, TrainingBudget
from suites.position_extrapolation.tuning import TUNE_MULTIPLIER, choose, grid_points, validation_ids
from suites.position_extrapolation.window_span import span_measurements
from variants.models.transformer import build
from variants.rope_scaling import scale_factor
from variants.spec import TransformerSpec


@dataclass(frozen=True)
class ExtrapolationRecipe(ModelSize, TrainingBudget, CharLMText):
    """The model and its training, which decide the trained weights (attention_heads reads the same models)."""


@dataclass(frozen=True)
class ExtrapolationProfile(ExtrapolationRecipe):
    """Model size, training budget and evaluation plan of one run."""

    eval_multipliers: tuple[int, ...] = (1, 2, 4, 8, 16)
    #: held-out tokens scored at every length (at most the held-out split, a multiple of the longest length)
    eval_tokens: int = 32768
    protocol: str = "nonoverlapping"
    #: sliding-window stride in tokens (0 = the training length)
    stride: int = 0
    #: steps of fine-tuning at each evaluation length past L, then a second score (0: none); Chen et al. 2023
    #: fine-tune PI for about 1000 steps
    finetune_steps: int = 0

    rules = {
        "protocol": one_of(*PROTOCOLS),
        "stride": at_least(0, "0 = the training length"),
        "finetune_steps": at_least(0, "0 = no fine-tuning"),
    }
    added_later = {**ExtrapolationRecipe.added_later, "finetune_steps": 0}  # after version 2's records

    def problems(self) -> list[str]:
        out = []
        longest = self.train_len * max(self.eval_multipliers)
        if self.eval_tokens < longest:
            out.append(
                f"set.eval_tokens={self.eval_tokens} is below the longest evaluation length {longest} "
                f"(set.train_len={self.train_len} x {max(self.eval_multipliers)}, the largest of set.eval_multipliers); "
                f"give at least {longest}."
            )
        shortest = self.train_len * min(self.eval_multipliers)
        if self.stride > shortest:
            out.append(
                f"set.stride={self.stride} exceeds the shortest evaluation length {shortest}; "
                f"set.stride takes a whole number from 0 (the training length) to {shortest}."
            )
        return out + super().problems()


#: profile settings that change only the evaluation, not the trained weights
EVAL_SETTINGS = ("eval_multipliers", "eval_tokens", "protocol", "stride", "finetune_steps")
#: randomized positions are scored as the mean loss over this many test-time draws, generator seeds 0, 1, ...
#: (the same for every trained model and length; Ruoss et al.'s evaluation draws from a PRNG seeded with 1)
TEST_DRAWS = 4


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(ExtrapolationProfile)


class PositionExtrapolation(CharLMCorpus, Suite):
    """Perplexity at 1-16x the training length for each position encoding (Press et al. 2022)."""

    version = 3  # each job records its own training and inference cost (suites/common/model_cost.py)
    metrics = SuiteFile.of(__file__).metrics({**COMMON, **COST_METRICS})
    profiles = PROFILES
    default_variants = ("none", "sinusoidal", "learned", "rope", "alibi")
    #: the reference profile adds the relative biases and randomized positions that came after ALiBi, and the RoPE
    #: extensions, last: they evaluate the rope weights trained earlier in the sweep and train nothing
    #: (rope+dynamic_ntk is left out: on windows of the evaluation length it is rope+ntk at headroom 1, one
    #: measurement; rope+pi2 is PI at a fixed s = 2, scored at L for its short-length cost; rope+yarn_rlinear is the
    #: paper's r-linear ramp beside the authors' code's, for comparison)
    profile_variants = {
        "standard": default_variants
        + ("t5_bias", "randomized", "rope+pi", "rope+pi2", "rope+ntk", "rope+yarn", "rope+yarn_rlinear")
    }
    options = {"data": None, "protocol": PROTOCOLS}
    dtypes = ("float32", "bfloat16")

    def check_data(self, profile: ExtrapolationProfile, options: dict[str, Any]) -> None:
        check_fits(
            options.get("data") or profile.data,
            profile.heldout_fraction,
            profile.train_len,
            profile.train_len * max(profile.eval_multipliers),
            "set.train_len x the largest of set.eval_multipliers",
        )

    def run_job(
        self, spec: TransformerSpec, profile: ExtrapolationProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        data = self._data(profile, ctx.options)
        train_ids = data.train_ids.to(ctx.device)  # once: each step's batch is gathered there
        eval_ids = data.eval_ids(profile.eval_tokens, profile.train_len * max(profile.eval_multipliers))
        n_eval = eval_ids.numel() - 1  # the same tokens are scored at every length

        # a RoPE scaling changes no weight: train with plain RoPE (once per training: suites/common/checkpoints.py)
        train_spec = spec.without_rope_scaling()
        torch.manual_seed(seed)
        model = build(train_spec).to(ctx.device)
        with self._autocast(ctx):  # the backend training runs: SDPA picks by dtype (cuDNN or flash for bfloat16)
            backend = model.attention_dispatch(profile.batch_size, profile.train_len)
        ctx.facts.update(
            parameters=model.num_parameters(),
            eval_chars=n_eval,
            protocol=profile.protocol,
            lr=profile.lr,
            steps=profile.steps,
            train_passes=data.passes(profile.steps * profile.batch_size * profile.train_len),
            **data.facts(),
            attention_backend=backend,
        )
        gen = torch.Generator().manual_seed(seed)

        def step_loss(m, step):
            x, y = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
            with self._autocast(ctx):
                return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

        settings = {k: v for k, v in profile.settings().items() if k not in EVAL_SETTINGS}
        key = training_key(self.name, train_spec, settings, seed, ctx.device, ctx.dtype, data.corpus.checksum)
        out = train_job_once(model, key, ctx, step_loss, profile.train_settings(), spec.position).measurements()
        state = model.state_dict()
        model = _with_weights(spec, state, ctx.device)  # the variant itself, RoPE scaling included
        out += self._tuned_scaling(model, spec, data, eval_ids, profile, ctx)  # its free parameters, on validation text
        for mult in profile.eval_multipliers:
            length = profile.train_len * mult
            tune = profile.finetune_steps > 0 and mult > 1
            problem = model.length_problem(length)
            if problem:
                for metric in ("loss", "perplexity") + (("finetuned_loss", "finetuned_perplexity") if tune else ()):
                    out.append(
                        Measurement(
                            metric,
                            None,
                            status="unsupported",
                            reason=problem,
                            x=float(length),
                            x_name="eval_length",
                            extra={"multiplier": mult},
                        )
                    )
                continue
            out += self._scored(model, eval_ids, length, mult, profile, ctx)
            if tune:
                tuned = self._finetuned(
                    spec, state, length, profile, seed, train_ids, ctx, getattr(model.position, "scaling", None)
                )
                out += self._scored(tuned, eval_ids, length, mult, profile, ctx, prefix="finetuned_")
        out += span_measurements(model, spec.n_layers, spec.window, profile.train_len, ctx.device)  # window models
        return out + self._costs(model, train_spec, state, train_ids, profile, seed, ctx)

    def _costs(
        self,
        model,
        train_spec: TransformerSpec,
        state,
        train_ids: torch.Tensor,
        profile: ExtrapolationProfile,
        seed: int,
        ctx: JobContext,
    ) -> list[Measurement]:
        """The trained model's own training and inference cost (suites/common/model_cost.py): the variant itself
        (its RoPE scaling applied at each length) for inference, the weights it was trained as for training."""
        t0 = time.perf_counter()
        trained = _with_weights(train_spec, state, ctx.device)
        x, y = random_batch(train_ids, profile.batch_size, profile.train_len, torch.Generator().manual_seed(seed))
        autocast = lambda: self._autocast(ctx)  # noqa: E731
        out = training_costs(
            trained,
            lambda m: lm_loss(m, x, y),
            x.numel(),
            profile.steps,
            ctx.device,
            profile.train_settings(),
            autocast,
        )
        out += _inference(model, profile, seed, ctx, autocast)
        ctx.facts.update(cost_time_s=time.perf_counter() - t0)
        return out

    retimes = True

    def retime_job(
        self, spec: TransformerSpec, profile: ExtrapolationProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        """Training throughput (of the weights it trains as) and the inference latencies of the variant itself, the
        model of ``spec`` and ``seed`` untrained."""
        train_ids = self._data(profile, ctx.options).train_ids.to(ctx.device)
        train_spec = spec.without_rope_scaling()
        torch.manual_seed(seed)
        trained = build(train_spec).to(ctx.device)
        x, y = random_batch(train_ids, profile.batch_size, profile.train_len, torch.Generator().manual_seed(seed))
        autocast = lambda: self._autocast(ctx)  # noqa: E731
        out = [
            training_throughput(
                trained, lambda m: lm_loss(m, x, y), x.numel(), ctx.device, profile.train_settings(), autocast
            )
        ]
        return out + _inference(_with_weights(spec, trained.state_dict(), ctx.device), profile, seed, ctx, autocast)

    @staticmethod
    def _autocast(ctx: JobContext):
        # weights stay float32; bfloat16 runs the matmuls under autocast (mixed precision)
        return torch.autocast(ctx.device.split(":")[0], dtype=ctx.dtype, enabled=ctx.dtype != torch.float32)

    def _scored(
        self,
        model,
        eval_ids: torch.Tensor,
        length: int,
        mult: int,
        profile: ExtrapolationProfile,
        ctx: JobContext,
        prefix: str = "",
    ) -> list[Measurement]:
        """Held-out loss and perplexity at ``length`` (a RoPE scaling with rope_scale=auto takes s = length / L).

        Randomized positions: the mean loss over TEST_DRAWS fixed-seed test-time draws (Ruoss et al.'s protocol),
        then the loss at positions 0..T-1 as ``consecutive_loss``."""
        model.set_context_length(length)
        t0 = time.perf_counter()
        draws = hasattr(model.position, "draw_at_test")
        losses = []
        for k in range(TEST_DRAWS if draws else 1):
            if draws:
                model.position.draw_at_test(torch.Generator().manual_seed(k))
            nll, count = self._nll(model, eval_ids, length, profile, ctx)
            losses.append(nll / count)
        loss = sum(losses) / len(losses)
        extra = {"multiplier": mult, "scored_tokens": count, "eval_time_s": time.perf_counter() - t0}
        if draws:
            extra.update(
                positions="sorted draws of 0..%d" % (model.position.max_position - 1),
                draws=len(losses),
                draw_losses=losses,
            )
        where = dict(x=float(length), x_name="eval_length", extra=extra)
        out = [Measurement(prefix + "loss", loss, **where), Measurement(prefix + "perplexity", _exp(loss), **where)]
        if draws:
            model.position.draw_at_test(None)  # 0..T-1, which training never showed in order
            nll, count = self._nll(model, eval_ids, length, profile, ctx)
            where = dict(
                x=float(length),
                x_name="eval_length",
                extra={"multiplier": mult, "scored_tokens": count, "positions": f"0..{length - 1}"},
            )
            out += [
                Measurement(prefix + "consecutive_loss", nll / count, **where),
                Measurement(prefix + "consecutive_perplexity", _exp(nll / count), **where),
            ]
        return out

    def _nll(self, model, ids: torch.Tensor, length: int, profile: ExtrapolationProfile, ctx: JobContext):
        """(total nll, scored tokens) of ``ids`` in windows of ``length`` under the profile's protocol."""
        with self._autocast(ctx):
            return evaluate_nll(
                model,
                ids,
                length,
                protocol=profile.protocol,
                stride=profile.stride or profile.train_len,
                device=ctx.device,
            )

    def _tuned_scaling(
        self, model, spec: TransformerSpec, data, eval_ids: torch.Tensor, profile: ExtrapolationProfile, ctx: JobContext
    ) -> list[Measurement]:
        """Give ``model``'s RoPE scaling the grid point with the lowest validation loss at TUNE_MULTIPLIER x L
        (suites/position_extrapolation/tuning.py); one ``validation_loss`` record per point (none without a grid)."""
        points = grid_points(spec.rope_scaling) if spec.rope_scaling else []
        if not points:
            return []
        length = TUNE_MULTIPLIER * profile.train_len
        ids, source = validation_ids(data.train_ids, data.heldout_ids, eval_ids.numel() - 1, length)
        position = model.position
        scaling, scale = position.scaling, position.scale

        def loss_of(candidate) -> float:
            position.scale_rope(candidate, scale)
            model.set_context_length(length)
            nll, count = self._nll(model, ids, length, profile, ctx)
            return nll / count

        best, scored = choose(
            scaling, points, spec.head_dim, profile.train_len, scale_factor(scale, length, profile.train_len), loss_of
        )
        position.scale_rope(dataclasses.replace(scaling, **best), scale)
        ctx.facts.update(rope_params=best, validation=f"{ids.numel() - 1} {source}, at {length} characters")
        return [
            Measurement(
                "validation_loss",
                loss,
                x=float(i),
                x_name="grid_point",
                extra={"params": point, "eval_length": length, "chosen": point == best},
            )
            for i, (point, loss) in enumerate(scored)
        ]

    def _finetuned(
        self,
        spec: TransformerSpec,
        state,
        length: int,
        profile: ExtrapolationProfile,
        seed: int,
        train_ids: torch.Tensor,
        ctx: JobContext,
        scaling=None,
    ):
        """The trained weights after ``finetune_steps`` steps at ``length``, the variant's scaling applied (as PI
        fine-tunes; ``scaling``: the one chosen on validation)."""
        torch.manual_seed(seed + length)
        model = _with_weights(spec, state, ctx.device)
        if scaling is not None:
            model.position.scale_rope(scaling, model.position.scale)
        model.set_context_length(length)
        batch = tokens_batch(profile.batch_size, profile.train_len, length)  # about the training's tokens per step
        gen = torch.Generator().manual_seed(seed + length)

        def step_loss(m, step):
            x, y = random_batch(train_ids, batch, length, gen)
            with self._autocast(ctx):
                return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

        settings = finetune_settings(profile.finetune_steps, profile.lr, profile.grad_clip)
        train(
            model,
            step_loss,
            settings,
            progress=ctx.progress,
            desc=f"{ctx.label or spec.position} fine-tune at {length}",
        )
        return model


def _exp(loss: float) -> float:
    return float(torch.tensor(loss).exp())


def _inference(model, profile: ExtrapolationProfile, seed: int, ctx: JobContext, autocast) -> list[Measurement]:
    """The variant's inference costs (suites/common/model_cost.py), its random positions drawn as 0..n-1."""
    if hasattr(model.position, "draw_at_test"):
        model.position.draw_at_test(None)  # decoding reads positions 0..n-1
    return inference_costs(model, model.spec.vocab_size, profile.train_len, ctx.device, ctx.dtype, seed, autocast)


suites.add("position_extrapolation", PositionExtrapolation())
