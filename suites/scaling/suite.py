"""Scaling: each variant trained at a ladder of model sizes, a law L(C) fitted per variant, its compute multiplier.

Every quality verdict of the other suites comes from one model size; whether a ranking survives scale is the first
question a reviewer asks. Here each variant (a character-level decoder LM, as language_modeling's) is trained at every
rung of a ladder of widths (ladder.py: fixed depth and head size, ``tokens_per_parameter`` tokens per non-embedding
parameter, Hoffmann et al. 2022), at each of a sweep of peak learning rates, keeping the rate whose model scores best
on validation characters (a held-out stretch the scored one never overlaps); where that rate is an end of the sweep,
``extend_edges`` tries rates past it until one is worse (a sweep that brackets the rung's optimum). The scored loss is
kept at intermediate points of training as well as the end (``eval_fractions``), each against the training FLOPs spent
to reach it (counted with torch.utils.flop_counter): the figure shows them, the law never reads them. The report
fits L(C) = E + A C^-alpha per variant to the runs' final losses, one point per run, only on a ladder of enough rungs
and compute (fit.py), gives each variant's compute multiplier at each rung from the paired per-rung difference
(multipliers.py), and judges scale-sensitive claims at every rung.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import Diverged, JobContext, Measurement, Suite, suites
from harness.flops import count_flops
from harness.rules import Rule, at_least, between
from harness.suite_file import SuiteFile
from harness.train import TrainSettings, train
from suites.common.char_lm_suite import CharLMCorpus
from suites.common.families import build
from suites.common.lm import lm_loss, random_batch
from suites.common.metrics import COMMON
from suites.common.profile_parts import CharLMText
from suites.scaling.ladder import estimated_parameters, expand, non_embedding_parameters, split_rung, steps_for
from variants.models.param_match import match_head_grouping
from variants.spec import TransformerSpec, preset_fields, resolve


@dataclass(frozen=True)
class ScalingProfile(CharLMText):
    """The ladder (widths at a fixed depth and head size), the budget rule, the learning-rate sweep and the scoring."""

    #: the width (d_model) of each rung, smallest first
    rungs: tuple[int, ...] = (32, 48, 64)
    #: blocks at every rung (the declared rule: the width grows, the depth stays)
    n_layers: int = 2
    #: dimensions per attention head at every rung (heads = d_model / head_dim)
    head_dim: int = 8
    #: training tokens per non-embedding parameter (Hoffmann et al. 2022: about 20 at the compute-optimal point)
    tokens_per_parameter: float = 20.0
    #: sequences per optimiser step
    batch_size: int = 32
    #: the peak learning rates each rung's model trains at, one model each; the one scoring best on the validation
    #: characters is kept (one rate: a ladder at one rate, flagged as confounded)
    learning_rates: tuple[float, ...] = (3e-3, 1e-2, 3e-2)
    #: the most rates each run tries past an end of its sweep while its kept rate sits at that end, one at a time,
    #: each one step of the sweep's ratio at that end further (a kept 3e-2 of 1e-2, 3e-2 tries 9e-2), none above 1
    #: (0: the sweep as given; a rung whose kept rate stays an end is reported as not bracketed)
    extend_edges: int = 0
    #: linear warm-up over this share of each rung's steps, then cosine decay to 10% of the peak
    warmup_fraction: float = 0.05
    #: AdamW's decoupled weight decay, and the gradient-norm clip
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    #: held-out characters scored, and as many validation characters, in alternate windows of the held-out split
    eval_tokens: int = 8192
    #: shares of each rung's training at which the scored loss is kept (1.0: the end)
    eval_fractions: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)
    #: read by nothing since issue 57 (the law is fitted to each run's final loss alone, one point per run:
    #: fit.py); kept because it is part of every stored job's identity (its hash and its report group)
    fit_from: float = 0.5

    rules = {
        "tokens_per_parameter": between(0, 1e6, low_open=True),
        "warmup_fraction": between(0, 1, high_open=True),
        "weight_decay": at_least(0),
        "eval_fractions": between(0, 1, low_open=True),
        "fit_from": between(0, 1, low_open=True),
        "learning_rates": Rule(low=0, high=1, low_open=True),
        "extend_edges": at_least(0),
        "rungs": at_least(1),
    }
    added_later = {**CharLMText.added_later, "extend_edges": 0}  # every run before it swept its rates as given

    def problems(self) -> list[str]:
        out = []
        if len(self.rungs) < 3:
            out.append(
                f"set.rungs={list(self.rungs)} has {len(self.rungs)} rungs; a law of three parameters (E, A, alpha) "
                "needs at least 3 model sizes; give at least 3 widths."
            )
        if list(self.rungs) != sorted(set(self.rungs)):
            out.append(
                f"set.rungs={list(self.rungs)} must rise from rung to rung; give distinct widths, smallest first."
            )
        odd = [w for w in self.rungs if w % self.head_dim]
        if odd:
            out.append(
                f"set.rungs holds width {odd[0]}, which heads of set.head_dim={self.head_dim} do not divide; give "
                f"widths that are multiples of {self.head_dim}."
            )
        if 1.0 not in self.eval_fractions:
            out.append(f"set.eval_fractions={list(self.eval_fractions)} must include 1.0, the end of training.")
        smallest = steps_for(
            estimated_parameters(min(self.rungs), self.n_layers),
            self.tokens_per_parameter,
            self.batch_size * self.train_len,
        )
        if self.rungs and smallest < 1:
            out.append(
                f"set.tokens_per_parameter={self.tokens_per_parameter} gives the smallest rung (width {min(self.rungs)}, "
                f"about {estimated_parameters(min(self.rungs), self.n_layers)} parameters) under one step of "
                f"{self.batch_size} x {self.train_len} tokens; give more tokens per parameter or a wider first rung."
            )
        return out + super().problems()


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(ScalingProfile)


class Scaling(CharLMCorpus, Suite):
    """A ladder of model sizes per variant: fitted loss-compute laws, compute multipliers and per-rung verdicts."""

    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    default_variants = ("baseline", "mla", "gqa2")
    profile_variants = {"quick": ("baseline", "gqa2")}
    options = {"data": None}

    def expand_variants(self, variants: list[str], profile: ScalingProfile) -> list[str]:
        """Each variant at every rung (``mla`` -> ``mla+rung2``, ``mla+rung1``, ``mla+rung0``); one that names its
        rung as given."""
        return expand(variants, len(profile.rungs))

    def check_data(self, profile: ScalingProfile, options: dict[str, Any]) -> None:
        """The corpus holds a training window, and a scored and a validation stretch of eval_tokens each."""
        from harness.errors import UsageError

        super().check_data(profile, options)
        data = self._data(profile, options)
        windows = profile.eval_tokens // profile.train_len
        need = 2 * windows * (profile.train_len + 1)
        if data.heldout_ids.numel() < need:
            raise UsageError(
                f"set.eval_tokens={profile.eval_tokens} needs {need} held-out characters (as many scored as validation "
                f"windows of set.train_len={profile.train_len}), and data={data.corpus.name} holds "
                f"{data.heldout_ids.numel()}; give a smaller set.eval_tokens."
            )

    def base_spec(self, profile: ScalingProfile, options: dict[str, Any]) -> TransformerSpec:
        """The smallest rung's Transformer (RoPE, Pre-LN, LayerNorm, GELU, MHA), language_modeling's baseline."""
        return self.rung_spec(0, profile, options)

    def rung_spec(self, rung: int, profile: ScalingProfile, options: dict[str, Any]) -> TransformerSpec:
        width = profile.rungs[rung]
        return TransformerSpec(
            vocab_size=self._data(profile, options).vocab.size,
            d_model=width,
            n_layers=profile.n_layers,
            n_heads=width // profile.head_dim,
            max_len=profile.train_len,
            position="rope",
            init="fan_in",
        )

    def spec_for(self, variant: str, profile: ScalingProfile, options: dict[str, Any]) -> TransformerSpec:
        """The variant on its rung's Transformer; a grouped or latent arm at the MHA model's parameter count
        (variants/models/param_match.py), as language_modeling matches them. An expression without a rung part is the
        smallest rung (``bench run`` writes each variant as its rungs first)."""
        from harness.errors import UsageError

        rest, rung = split_rung(variant)
        rung = 0 if rung is None else rung
        if rung >= len(profile.rungs):
            raise UsageError(
                f"variant {variant!r} names rung {rung}, and the ladder has rungs 0 to {len(profile.rungs) - 1} "
                f"(set.rungs={list(profile.rungs)}); give rung0 to rung{len(profile.rungs) - 1}."
            )
        if "mixer" in preset_fields(rest) or "cell" in preset_fields(rest):
            raise UsageError(
                f"variant {rest!r} is not a Transformer; the scaling suite ladders Transformer variants (its rungs "
                "are widths of one block layout)."
            )
        spec = resolve(rest, self.rung_spec(rung, profile, options))
        return spec if "d_ff" in preset_fields(rest) else match_head_grouping(spec)

    def run_job(self, spec: TransformerSpec, profile: ScalingProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        data = self._data(profile, ctx.options)
        train_ids = data.train_ids.to(ctx.device)
        scored, validation = interleaved_windows(data.heldout_ids, profile.train_len, profile.eval_tokens)
        torch.manual_seed(seed)
        probe = build(spec).to(ctx.device)
        parameters = non_embedding_parameters(probe)
        tokens_per_step = profile.batch_size * profile.train_len
        steps = max(1, steps_for(parameters, profile.tokens_per_parameter, tokens_per_step))
        x, y = random_batch(train_ids, profile.batch_size, profile.train_len, torch.Generator().manual_seed(0))
        flops_per_step = count_flops(lambda: lm_loss(probe, x, y))  # forward and backward of one step
        checkpoints = {max(1, round(f * steps)): f for f in sorted(profile.eval_fractions)}
        ctx.facts.update(
            non_embedding_parameters=parameters,
            steps=steps,
            tokens=steps * tokens_per_step,
            flops_per_step=flops_per_step,
            train_passes=data.passes(steps * tokens_per_step),
            learning_rates=list(profile.learning_rates),
            **data.facts(),
        )

        def train_at(lr: float) -> tuple:
            return self._train_at(lr, spec, profile, seed, ctx, train_ids, steps, checkpoints, (scored, validation))

        runs = {lr: train_at(lr) for lr in profile.learning_rates}
        for _ in range(profile.extend_edges):
            beyond = beyond_edge({lr: run[0] for lr, run in runs.items()})
            if beyond is None:
                break
            runs[beyond] = train_at(beyond)
        runs = dict(sorted(runs.items()))
        finished = {lr: run for lr, run in runs.items() if run[0] is not None and math.isfinite(run[0])}
        if not finished:
            raise Diverged(
                "every learning rate of the sweep diverged: " + "; ".join(f"{lr:g}: {r[1]}" for lr, r in runs.items())
            )
        chosen = min(finished, key=lambda lr: finished[lr][0])
        ctx.facts.update(lr=chosen, learning_rates=list(runs))
        out = [
            Measurement("validation_loss", run[0], x=lr, x_name="lr", extra={"chosen": lr == chosen})
            if run[0] is not None
            else Measurement("validation_loss", None, x=lr, x_name="lr", status="diverged", reason=run[1])
            for lr, run in runs.items()
        ]
        _, _, kept, result = finished[chosen]
        out += _curve_measurements(kept, checkpoints, flops_per_step, steps, result)
        ctx.facts.update(chosen_at_edge=chosen in (min(runs), max(runs)) and len(runs) > 1)
        return out

    def _train_at(
        self,
        lr,
        spec,
        profile: ScalingProfile,
        seed: int,
        ctx: JobContext,
        train_ids,
        steps: int,
        checkpoints: dict[int, float],
        windows,
    ) -> tuple:
        """One run of the sweep at peak rate ``lr``: (validation loss or None, why it diverged or None, the scored
        loss at each checkpoint fraction, the training result or None)."""
        scored, validation = windows

        def score(model, windows) -> float:
            return window_loss(model, windows.to(ctx.device))

        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        ctx.facts.setdefault("parameters", model.num_parameters())
        gen = torch.Generator().manual_seed(seed)
        kept: dict[float, float] = {}

        def step_loss(m, step):
            xb, yb = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
            return lm_loss(m, xb, yb), xb.numel()

        def after_step(step):
            if step + 1 in checkpoints:
                kept[checkpoints[step + 1]] = score(model, scored)
                model.train()

        settings = TrainSettings(
            steps=steps,
            lr=lr,
            warmup_steps=max(1, round(profile.warmup_fraction * steps)),
            weight_decay=profile.weight_decay,
            grad_clip=profile.grad_clip,
        )
        try:
            result = train(
                model,
                step_loss,
                settings,
                progress=ctx.progress,
                desc=f"{ctx.label or 'train'} lr={lr:g}",
                after_step=after_step,
            )
        except Diverged as exc:
            return (None, str(exc), kept, None)
        return (score(model, validation), None, kept, result)


def beyond_edge(losses: dict[float, float | None]) -> float | None:
    """The next rate to try past the end of a sweep (rate -> validation loss; None or NaN: diverged) whose best rate
    is that end: one step of the sweep's ratio at that end further (at most 1); None where the best rate lies inside
    the sweep, a rate diverged beyond it, or the sweep has fewer than two rates."""
    rates = sorted(losses)
    finite = {lr: v for lr, v in losses.items() if v is not None and math.isfinite(v)}
    if len(rates) < 2 or not finite:
        return None
    best = min(finite, key=finite.get)
    if best == rates[-1]:
        nxt = float(f"{best * best / rates[-2]:.12g}")  # 0.027, not 0.026999999999999996
        return nxt if nxt <= 1.0 else None
    if best == rates[0]:
        return float(f"{best * best / rates[1]:.12g}")
    return None


def _curve_measurements(
    kept: dict[float, float], checkpoints: dict[int, float], flops_per_step: float, steps: int, result
) -> list[Measurement]:
    """The kept run's scored loss at each checkpoint (against training FLOPs spent), its final perplexity, FLOPs,
    training loss and time."""
    out = []
    for fraction, loss in sorted(kept.items()):
        at = next(s for s, f in checkpoints.items() if f == fraction)
        where = dict(x=float(at * flops_per_step), x_name="train_flops", extra={"fraction": fraction, "step": at})
        out.append(Measurement("loss", loss, **where))
    final = kept[max(kept)]
    return out + [
        Measurement("perplexity", math.exp(final), x=float(steps * flops_per_step), x_name="train_flops"),
        Measurement("train_flops", float(steps * flops_per_step)),
        Measurement("train_loss", result.final_loss, extra={"curve": result.curve()}),
        Measurement("train_time", result.wall_time_s, extra=dict(result.load)),
    ]


def interleaved_windows(heldout: torch.Tensor, length: int, tokens: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(scored, validation) windows, each (tokens // length, length + 1), alternating along the held-out split: the
    two stretches come from the same text and never share a character."""
    n = tokens // length
    starts = torch.arange(2 * n) * (length + 1)  # consecutive windows of length + 1 (inputs and their targets)
    windows = heldout[starts[:, None] + torch.arange(length + 1)]  # (2 n, length + 1)
    return windows[0::2], windows[1::2]


@torch.inference_mode()
def window_loss(model, windows: torch.Tensor, batch: int = 256) -> float:
    """Mean next-character cross-entropy (nats per character) over windows (N, length + 1), in eval mode."""
    model.eval()
    total, count = 0.0, 0
    for i in range(0, len(windows), batch):
        w = windows[i : i + batch]
        total += float(lm_loss(model, w[:, :-1], w[:, 1:])) * w[:, 1:].numel()
        count += w[:, 1:].numel()
    return total / count


suites.add("scaling", Scaling())
