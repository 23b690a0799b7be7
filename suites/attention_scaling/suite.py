"""Why the dot product is scaled: score variance, softmax entropy and gradients against d_k, then training at large d_k.

Vaswani et al. 2017, section 3.2.1 (arXiv 1706.03762): q.k of unit-variance components has variance d_k;
unscaled, large-d_k scores saturate the softmax and starve it of gradient, and additive attention
outperforms the unscaled dot product at large d_k. Each variant is a scoring (variants/scoring/). For
every d_k of the profile it is applied at initialisation to unit-variance Gaussian queries and keys: the
variance of q.k and of the score, the entropy of the softmax, the norm of the softmax's Jacobian (and the
share of queries where it is saturated) and of the gradient reaching the query. Then a character-level
Transformer LM with heads of a large d_k (``train_d_k``) and Xavier-initialised projections (so queries
and keys start at unit variance) trains for a short budget; its verdict uses only scorings that learned and
did not memorise (suites/common/learning.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import Diverged, JobContext, Measurement, Profile, Suite, suites
from harness.suite_file import SuiteFile
from harness.train import train
from suites.attention_scaling.softmax_probe import softmax_stats, unit_gaussians
from suites.common.char_lm_suite import CharLMCorpus
from suites.common.lm import evaluate_nll, lm_loss, random_batch, xavier_init
from suites.common.metrics import COMMON
from suites.common.profile_parts import ScoredText, TrainingBudget
from variants.models.transformer import build
from variants.scoring import scorings
from variants.spec import TransformerSpec


@dataclass(frozen=True)
class InitialisationSweep(Profile):
    """The d_k sweep at initialisation: unit-variance queries and keys, at each key size."""

    #: key sizes of the sweep, and the queries drawn at each
    d_ks: tuple[int, ...] = (16, 64, 256)
    n_queries: int = 2048
    #: keys each query attends over
    n_keys: int = 64


@dataclass(frozen=True)
class ScalingProfile(ScoredText, TrainingBudget, InitialisationSweep):
    """The d_k sweep at initialisation and the budget of the training comparison."""

    #: the training comparison: train_heads heads of size train_d_k (d_model = their product)
    train_d_k: int = 128
    train_heads: int = 1
    #: blocks of the training comparison's model, trained on windows of train_len characters
    n_layers: int = 2
    #: training loss is recorded as the mean of each window of this many steps
    curve_every: int = 10

    added_later = {**TrainingBudget.added_later, "weight_decay": 0.1}  # the optimiser's default before it was a setting
    limits = {"curve_every": ("steps", "the loss curve would be empty")}


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(ScalingProfile)


class AttentionScaling(CharLMCorpus, Suite):
    """q.k variance, softmax entropy and gradients by d_k for each scoring, and training at large d_k (Vaswani et al. 2017)."""

    version = 2
    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    #: the slowest first, so that workers=N starts the long additive trainings at once (reports keep their own order)
    default_variants = ("additive+naive", "scaled_dot", "dot")
    options = {"data": None}

    def base_spec(self, profile: ScalingProfile, options: dict[str, Any]) -> TransformerSpec:
        return TransformerSpec(
            vocab_size=self._data(profile, options).vocab.size,
            d_model=profile.train_d_k * profile.train_heads,
            n_layers=profile.n_layers,
            n_heads=profile.train_heads,
            max_len=profile.train_len,
        )

    def run_job(self, spec: TransformerSpec, profile: ScalingProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        out: list[Measurement] = []
        gen = torch.Generator().manual_seed(seed)
        for d_k in profile.d_ks:
            torch.manual_seed(seed)  # the scoring's own parameters (additive, general)
            scoring = scorings.get(spec.scoring)(d_k)
            stats = softmax_stats(scoring, *unit_gaussians(profile.n_queries, profile.n_keys, d_k, gen))
            where = dict(x=float(d_k), x_name="d_k")
            out += [
                Measurement("qk_variance", stats.qk_variance, **where),
                Measurement("score_variance", stats.score_variance, **where),
                Measurement("softmax_entropy", stats.entropy, extra={"uniform": math.log(profile.n_keys)}, **where),
                Measurement("softmax_jacobian_norm", stats.jacobian_norm, **where),
                Measurement("softmax_saturated_fraction", stats.saturated_fraction, **where),
                Measurement("query_grad_norm", stats.query_grad_norm, **where),
            ]
        return out + self._train(spec, profile, seed, ctx)

    def _train(self, spec: TransformerSpec, profile: ScalingProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        data = self._data(profile, ctx.options)
        train_ids = data.train_ids.to(ctx.device)  # once: each step's batch is gathered there
        eval_ids = data.eval_ids(profile.eval_tokens, profile.train_len)
        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        xavier_init(model)
        ctx.facts.update(
            parameters=model.num_parameters(),
            eval_chars=eval_ids.numel() - 1,
            head_dim=spec.head_dim,
            train_passes=data.passes(profile.steps * profile.batch_size * profile.train_len),
            **data.facts(),
        )
        gen = torch.Generator().manual_seed(seed)

        def step_loss(m, step):
            x, y = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
            return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

        settings = profile.train_settings()
        try:
            result = train(model, step_loss, settings, progress=ctx.progress, desc=ctx.label or spec.scoring)
        except Diverged as exc:
            return [Measurement("heldout_loss", None, status="diverged", reason=str(exc))]
        out = []
        for end in range(profile.curve_every, len(result.losses) + 1, profile.curve_every):
            window = result.losses[end - profile.curve_every : end]
            out.append(Measurement("train_loss_curve", sum(window) / len(window), x=float(end), x_name="step"))
        nll, count = evaluate_nll(model, eval_ids, profile.train_len, device=ctx.device)
        return out + [
            Measurement("heldout_loss", nll / count),
            Measurement("train_loss", result.final_loss),
            Measurement("train_time", result.wall_time_s, extra=dict(result.load)),
        ]


suites.add("attention_scaling", AttentionScaling())
