"""Training stability of Post-LN and Pre-LN Transformers across depth, peak learning rate and warm-up.

Xiong et al. 2020 (arXiv 2002.04745): at initialisation a Post-LN Transformer's gradients are largest near
the output, so a large learning rate throws it off unless it is warmed up; Pre-LN's gradients are
well-behaved and it trains without warm-up. Each variant (a norm placement) is measured at every depth:
the gradient norm of each layer's feed-forward weights at initialisation, averaged over a few batches;
then one character-level LM per (peak learning rate, warm-up) trained with Adam on the same text and
scored on held-out text. A run whose loss becomes non-finite, or ends above its starting value, is
recorded as diverged; of the runs that finish, only those that learned and did not memorise
(suites/common/learning.py) are compared on held-out loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from harness.contract import Diverged, JobContext, Measurement, Suite, suites
from harness.rules import at_least, one_of
from harness.suite_file import SuiteFile
from harness.train import TrainSettings, train
from suites.common.char_lm_suite import CharLMCorpus
from suites.common.lm import evaluate_nll, lm_loss, random_batch, xavier_init
from suites.common.metrics import COMMON
from suites.common.profile_parts import ScoredText
from suites.training_stability.init_probe import init_seeds, is_probe, probe_spec, run_probe, split_probe
from variants.models.transformer import build
from variants.spec import TransformerSpec, resolve

INITS = ("xavier", "model")


@dataclass(frozen=True)
class StabilityProfile(ScoredText):
    """Model width, the depth x learning-rate x warm-up grid and the budget of each run."""

    #: width and attention heads of every model of the grid
    d_model: int = 64
    n_heads: int = 4
    #: Transformer blocks of each model
    depths: tuple[int, ...] = (2, 6, 12)
    #: peak learning rates (Adam, betas 0.9 / 0.98 as in Xiong et al.)
    lrs: tuple[float, ...] = (1e-3, 1e-2)
    #: warm-up steps; 0 = none
    warmups: tuple[int, ...] = (0, 30)
    #: each run: steps of batch_size windows of train_len characters, AdamW's weight decay
    batch_size: int = 16
    steps: int = 100
    weight_decay: float = 0.0
    #: gradient-norm clipping; 0 = none (clipping would hide the instability this suite looks for)
    grad_clip: float = 0.0
    #: "xavier": every linear layer Xavier-uniform, as in Xiong et al. (fairseq); "model": the model's own init
    init: str = "xavier"
    #: batches averaged for the per-layer gradient norms at initialisation
    probe_batches: int = 4

    rules = {
        "warmups": at_least(0, "0 = none"),
        "weight_decay": at_least(0),
        "grad_clip": at_least(0, "0 = none"),
        "init": one_of(*INITS),
    }


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(StabilityProfile)


class TrainingStability(CharLMCorpus, Suite):
    """Per-layer gradients at initialisation and the warm-up finding for Post-LN vs Pre-LN (Xiong et al. 2020)."""

    version = 2
    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    default_variants = ("post_ln", "pre_ln")
    #: with Xiong et al.'s Fig. 3 probe of each at the source's size (init_probe.py; minutes, so not at quick)
    with_probe = default_variants + ("post_ln+w2_probe", "pre_ln+w2_probe")
    profile_variants = {"standard": with_probe, "large": with_probe}
    options = {"data": None}

    def base_spec(self, profile: StabilityProfile, options: dict[str, Any]) -> TransformerSpec:
        return TransformerSpec(
            vocab_size=self._data(profile, options).vocab.size,
            d_model=profile.d_model,
            n_layers=max(profile.depths),
            n_heads=profile.n_heads,
            max_len=profile.train_len,
        )

    def spec_for(self, variant: str, profile: StabilityProfile, options: dict[str, Any]) -> TransformerSpec:
        """Presets on the base spec; a ``w2_probe`` part makes it the W^2 probe at the source's size (init_probe.py)."""
        variant, probe = split_probe(variant)
        spec = resolve(variant, self.base_spec(profile, options))
        return probe_spec(spec) if probe else spec

    def run_job(
        self, spec: TransformerSpec, profile: StabilityProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        data = self._data(profile, ctx.options)
        train_ids = data.train_ids.to(ctx.device)  # once: each step's batch is gathered there
        if is_probe(spec):  # no training: every layer's W^2 gradient at initialisation, INITS_PER_JOB initialisations
            ctx.facts.update(init_seeds=list(init_seeds(seed)), **data.facts())
            return run_probe(spec, seed, train_ids, profile.batch_size, profile.train_len, ctx.device)
        eval_ids = data.eval_ids(profile.eval_tokens, profile.train_len)
        # every run of the grid reads the same number of training tokens
        ctx.facts.update(
            eval_chars=eval_ids.numel() - 1,
            unigram_loss=unigram_loss(data.train_ids, eval_ids[1:], data.vocab.size),
            train_passes=data.passes(profile.steps * profile.batch_size * profile.train_len),
            **data.facts(),
        )
        out: list[Measurement] = []
        for depth in profile.depths:
            layered = _with_depth(spec, depth)

            def fresh():
                torch.manual_seed(seed)  # every run at this depth starts from the same weights
                model = build(layered).to(ctx.device)
                if profile.init == "xavier":
                    xavier_init(model)
                return model

            gen = torch.Generator().manual_seed(seed + 10_000)
            probes = [
                random_batch(train_ids, profile.batch_size, profile.train_len, gen)
                for _ in range(profile.probe_batches)
            ]
            model = fresh()
            extra = {"depth": depth, "parameters": model.num_parameters()}
            for layer, norm in enumerate(ffn_gradient_norms(model, probes, ctx.device), start=1):
                out.append(Measurement("ffn_grad_norm", norm, x=float(layer), x_name="layer", extra=extra))
            for lr in profile.lrs:
                for warmup in profile.warmups:
                    where = dict(x=lr, x_name="lr", extra={"depth": depth, "warmup": warmup})
                    out += _train_one(fresh(), profile, lr, warmup, train_ids, eval_ids, seed, ctx, where)
        return out


def _with_depth(spec: TransformerSpec, depth: int) -> TransformerSpec:
    import dataclasses

    return dataclasses.replace(spec, n_layers=depth)


def unigram_loss(train_ids: torch.Tensor, eval_ids: torch.Tensor, vocab_size: int) -> float:
    """Held-out cross-entropy (nats/char) of character frequencies counted on the training text (add-one).

    A model whose held-out loss is no better than this learned nothing beyond which characters are common.
    """
    counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1
    return float(-(counts / counts.sum()).log()[eval_ids].mean())


def ffn_gradient_norms(model: nn.Module, batches, device: str) -> list[float]:
    """Per block, ||dL/dW|| over all feed-forward parameters, averaged over ``batches`` of (inputs, targets)."""
    totals = [0.0] * len(model.blocks)
    for x, y in batches:
        model.zero_grad(set_to_none=True)
        lm_loss(model, x.to(device), y.to(device)).backward()
        for i, block in enumerate(model.blocks):
            totals[i] += float(torch.cat([p.grad.flatten() for p in block.ffn.parameters()]).norm())
    model.zero_grad(set_to_none=True)
    return [t / len(batches) for t in totals]


def _train_one(
    model,
    profile: StabilityProfile,
    lr: float,
    warmup: int,
    train_ids,
    eval_ids,
    seed: int,
    ctx: JobContext,
    where: dict[str, Any],
) -> list[Measurement]:
    gen = torch.Generator().manual_seed(seed)

    def step_loss(m, step):
        x, y = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
        return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

    # Adam as in Xiong et al. (betas 0.9, 0.98); cosine decay after the warm-up
    settings = TrainSettings(
        steps=profile.steps,
        lr=lr,
        warmup_steps=warmup,
        weight_decay=profile.weight_decay,
        betas=(0.9, 0.98),
        grad_clip=profile.grad_clip or math.inf,
    )
    desc = f"{ctx.label} depth {where['extra']['depth']} lr {lr:g} warm-up {warmup}"
    try:
        result = train(model, step_loss, settings, progress=ctx.progress, desc=desc)
    except Diverged as exc:
        return [
            Measurement(m, None, status="diverged", reason=str(exc), **where)
            for m in ("heldout_loss", "final_train_loss")
        ]
    start = result.losses[0]
    out = [
        Measurement("initial_loss", start, **where),
        Measurement("train_time", result.wall_time_s, **{**where, "extra": {**where.get("extra", {}), **result.load}}),
    ]
    if result.final_loss >= start:
        reason = f"final training loss {result.final_loss:.3g} is not below its starting value {start:.3g}"
        return out + [
            Measurement(m, None, status="diverged", reason=reason, **where)
            for m in ("heldout_loss", "final_train_loss")
        ]
    nll, count = evaluate_nll(model, eval_ids, profile.train_len, device=ctx.device)
    if not math.isfinite(nll):
        return out + [
            Measurement("heldout_loss", None, status="diverged", reason=f"held-out loss is {nll}", **where),
            Measurement("final_train_loss", result.final_loss, **where),
        ]
    return out + [
        Measurement("heldout_loss", nll / count, **where),
        Measurement("final_train_loss", result.final_loss, **where),
    ]


suites.add("training_stability", TrainingStability())
