"""Gradient flow through time: how far back the loss's gradient reaches in RNNs, GRUs, LSTMs and Transformers.

Pascanu, Mikolov & Bengio 2013 (arXiv 1211.5063): the gradient of a late loss with respect to an early
hidden state vanishes when the recurrent weight's largest eigenvalue is below 1 and can explode only
above 1; clipping the gradient's norm keeps training stable. Each variant is measured on one copy task
(recall a symbol after ``lag`` steps of random distractors, as in Hochreiter & Schmidhuber 1997's
experiment 2; suites/common/data/copy_task.py): ||dL/dh_k|| against the distance from k to the loss, at initialisation and
after training; for the Elman RNNs, the same at initialisation with the recurrent weight rescaled to each
spectral radius of a sweep; the accuracy reached at each lag; and training at large SGD learning rates with
and without gradient-norm clipping. Gated cells start from the chrono initialisation of Tallec & Ollivier
2018 with T_max the sweep's longest lag (``set.gate_init=constant``: the LSTM's forget bias 1). Two Elman RNNs
start from another recurrent weight: ``irnn`` (ReLU, the identity: Le, Jaitly & Hinton 2015) and ``rnn_orthogonal``
(tanh, a random orthogonal matrix: Saxe et al. 2014); every recurrent model records its recurrent weight's largest
and mean singular value at initialisation, after each quarter of training and after training, at each lag
(recurrent_spectrum.py).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from harness.contract import Diverged, JobContext, Measurement, Profile, Suite, suites
from harness.rules import Rule, at_least, between, one_of
from harness.suite_file import SuiteFile
from harness.timing import combined_load
from harness.train import TrainSettings
from suites.common.data.copy_task import GAPS, CopyTask
from suites.common.metrics import COMMON
from suites.common.profile_parts import TrainingBudget, heads_problems
from suites.gradient_flow.copy_training import (
    VALIDATION_SEED,
    Spent,
    Trained,
    flow,
    radius_sweep,
    recall_accuracy,
    train_copy,
)
from suites.gradient_flow.recurrent_spectrum import SpectrumTrace, sigma_measurements
from variants.models import recurrent, transformer
from variants.models.recurrent import RecurrentSpec
from variants.spec import TransformerSpec, preset_fields, resolve


@dataclass(frozen=True)
class RecurrentAndTransformerSize(Profile):
    """The recurrent variants' hidden size and stacked layers, and the Transformer variant's width, blocks and heads."""

    d_hidden: int = 64
    n_layers: int = 1
    d_model: int = 64
    transformer_layers: int = 2
    n_heads: int = 4

    def problems(self) -> list[str]:
        return heads_problems(self.d_model, self.n_heads) + super().problems()


#: how gated cells' gate biases start (CopyRecall.gate_init)
GATE_INITS = ("chrono", "constant")
#: the cells whose gates chrono initialises (variants/models/recurrent.py: init_gate_biases)
GATED_CELLS = ("lstm", "gru")


@dataclass(frozen=True)
class CopyRecall(Profile):
    """The copy task (recall ``symbols`` of an alphabet after a lag) and when a lag counts as learned."""

    alphabet: int = 8
    symbols: int = 1
    #: what fills the gap: random distractor tokens (Hochreiter & Schmidhuber 1997, experiment 2), or "blank", which
    #: with one symbol is a latch an input-free tanh RNN holds in an attractor (copy_task.py)
    gap: str = "distractors"
    #: distinct distractor tokens (gap="distractors")
    distractors: int = 8
    #: gated cells' gate biases: "chrono" (Tallec & Ollivier 2018, T_max = the longest lag) or "constant"
    #: (the LSTM's forget bias 1, PyTorch's GRU default)
    gate_init: str = "chrono"
    #: one model is trained per lag; the gradient probe uses the longest
    lags: tuple[int, ...] = (5, 10, 20, 50)
    #: held-out sequences whose recall is scored after training
    eval_sequences: int = 1000
    #: a lag counts as learned at this held-out recall accuracy (chance is 1 / alphabet)
    learned_accuracy: float = 0.9

    rules = {
        "alphabet": at_least(2),
        "learned_accuracy": between(0, 1, low_open=True),
        "gap": one_of(*GAPS),
        "gate_init": one_of(*GATE_INITS),
    }


@dataclass(frozen=True)
class ClippingStudy(Profile):
    """SGD with momentum at each large learning rate, clipped at grad_clip and not at all, at one lag."""

    clip_lag: int = 10
    clip_steps: int = 300
    clip_lrs: tuple[float, ...] = (0.1, 0.3)
    clip_momentum: float = 0.9

    rules = {"clip_momentum": between(0, 1, high_open=True)}


@dataclass(frozen=True)
class GradientFlowProfile(TrainingBudget, RecurrentAndTransformerSize, CopyRecall, ClippingStudy):
    """Model sizes, the copy task, and the budgets of the lag sweep and the clipping study."""

    #: AdamW's weight decay in each lag's training, and the clipping study's SGD's
    weight_decay: float = 0.0
    #: sequences averaged for each gradient probe
    probe_batch: int = 64
    #: spectral radii the Elman RNNs' recurrent weight is rescaled to at initialisation
    radii: tuple[float, ...] = (0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5)
    #: peak learning rates each lag's model is trained at, in this order, the one with the best validation recall
    #: kept (ties: the earlier), as Le et al. 2015 choose each model's rate by grid search; a later rate is tried
    #: only while no earlier one recalls every validation sequence; empty: ``lr`` alone, no validation
    lag_lrs: tuple[float, ...] = ()

    # weight_decay was fixed at 0 before it was a setting; every lag trained at lr alone before lag_lrs
    added_later = {**TrainingBudget.added_later, "weight_decay": 0.0, "lag_lrs": ()}

    rules = {"lag_lrs": Rule(low=0, low_open=True, may_be_empty=True, meaning="empty: lr alone")}

    def problems(self) -> list[str]:
        short = [lag for lag in (*self.lags, self.clip_lag) if lag <= self.symbols]
        if short:
            key = "set.clip_lag" if short[0] == self.clip_lag and short[0] not in self.lags else "set.lags"
            return [
                f"{key} has the lag {short[0]}, which must exceed set.symbols={self.symbols} so that the cue comes "
                f"after the symbols; give lags of at least {self.symbols + 1}."
            ]
        return super().problems()


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(GradientFlowProfile)

#: cells whose recurrence is one weight matrix, the case Pascanu et al.'s bound is about (swept at PyTorch's default
#: initialisation only: the claim's protocol rescales that draw)
SWEPT_CELLS = ("rnn", "rnn_relu")


class GradientFlow(Suite):
    """||dL/dh_k|| against distance, a spectral-radius sweep, lags learned and clipping (Pascanu et al. 2013)."""

    # version 1 still: the singular values are records added beside the others (recurrent_spectrum.py draws no random
    # numbers and changes no weight), so jobs stored before them stay valid and lack only those records
    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    #: the slowest first, so that workers=N starts the long Transformer sweeps at once (reports keep tables.ORDER)
    default_variants = ("transformer", "gru", "lstm", "rnn", "rnn_relu", "irnn", "rnn_orthogonal")
    #: quick keeps its five models (its one seed decides no paired verdict, the initialisations' claim included)
    profile_variants = {"quick": ("transformer", "gru", "lstm", "rnn", "rnn_relu")}

    def _task(self, profile: GradientFlowProfile, lag: int) -> CopyTask:
        return CopyTask(
            lag=lag,
            symbols=profile.symbols,
            alphabet=profile.alphabet,
            gap=profile.gap,
            distractors=profile.distractors,
        )

    def base_spec(self, profile: GradientFlowProfile, options: dict[str, Any]) -> TransformerSpec:
        task = self._task(profile, max(profile.lags))
        return TransformerSpec(
            vocab_size=task.vocab_size,
            d_model=profile.d_model,
            n_layers=profile.transformer_layers,
            n_heads=profile.n_heads,
            max_len=task.length,
            position="rope",
        )

    def spec_for(self, variant: str, profile: GradientFlowProfile, options: dict[str, Any]):
        """Presets that set a recurrent cell build a RecurrentSpec; every other expression a TransformerSpec.

        A gated cell under gate_init=chrono gets T_max = the sweep's longest lag, the longest dependency it is
        trained on (Tallec & Ollivier 2018 set T_max to the task's dependency range)."""
        if "cell" in preset_fields(variant):
            base = RecurrentSpec(
                vocab_size=self._task(profile, max(profile.lags)).vocab_size,
                d_hidden=profile.d_hidden,
                n_layers=profile.n_layers,
            )
            spec = resolve(variant, base)
            if spec.cell in GATED_CELLS and profile.gate_init == "chrono":
                spec = dataclasses.replace(spec, chrono_t_max=max(profile.lags))
            return spec
        return resolve(variant, self.base_spec(profile, options))

    def run_job(self, spec, profile: GradientFlowProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        build = recurrent.build if isinstance(spec, RecurrentSpec) else transformer.build

        def fresh():
            torch.manual_seed(seed)  # every model of the job starts from the same initialisation
            return build(spec).to(ctx.device)

        longest = self._task(profile, max(profile.lags))
        probe_x, probe_y = longest.batch(profile.probe_batch, torch.Generator().manual_seed(seed + 20_000))
        probe = probe_x.to(ctx.device), probe_y[:, -1].to(ctx.device)
        out: list[Measurement] = []
        model = fresh()
        ctx.facts.update(parameters=model.num_parameters(), probe_length=longest.length)
        out += flow(model, probe, "hidden_grad_norm", {"phase": "init"})

        is_recurrent = isinstance(spec, RecurrentSpec)
        if is_recurrent and spec.cell in SWEPT_CELLS and spec.recurrent_init == "default":
            out += radius_sweep(fresh, probe, profile.radii)

        spent = Spent()
        trained = None
        for lag in profile.lags:
            measured, best = self._lag(lag, fresh, profile, seed, ctx, is_recurrent, spent)
            out += measured
            if best is not None and lag == max(profile.lags):
                trained = best
        if trained is not None:
            out += flow(trained, probe, "hidden_grad_norm", {"phase": "trained", "trained_lag": max(profile.lags)})
        out += self._clipping(fresh, profile, seed, ctx, spent)
        out.append(Measurement("train_time", spent.seconds, extra=combined_load(spent.loads)))
        return out

    def _lag(
        self,
        lag: int,
        fresh: Callable[[], torch.nn.Module],
        profile: GradientFlowProfile,
        seed: int,
        ctx: JobContext,
        is_recurrent: bool,
        spent: Spent,
    ) -> tuple[list[Measurement], torch.nn.Module | None]:
        """One lag of the sweep: a model trained at each learning rate in turn, the best on validation kept and
        scored on held-out sequences; (its measurements, the kept model or None where every rate diverged)."""
        task, where = self._task(profile, lag), dict(x=float(lag), x_name="lag")
        rates = profile.lag_lrs or (profile.lr,)
        best: Trained | None = None
        validation: dict[str, float] = {}
        diverged: list[str] = []
        for lr in rates:
            model = fresh()
            settings = dataclasses.replace(profile.train_settings(), lr=lr)
            # the recurrent weight's singular values: at initialisation, each quarter of training, after it
            spectrum = sigma_measurements(model, lag, "init", 0) if is_recurrent else []
            trace = SpectrumTrace(model, lag, settings.steps) if is_recurrent else None
            desc = f"{ctx.label} lag {lag}" + (f" lr {lr:g}" if len(rates) > 1 else "")
            try:
                result = train_copy(model, task, settings, profile.batch_size, seed, ctx, desc, after_step=trace)
            except Diverged as exc:
                diverged.append(f"{lr:g}")
                reason = str(exc) if len(rates) == 1 else f"diverged at every learning rate {list(rates)}"
                continue
            spent.add(result)
            if trace is not None:
                spectrum += trace.measurements + sigma_measurements(model, lag, "trained", settings.steps)
            score = (
                recall_accuracy(model, task, profile.eval_sequences, seed + VALIDATION_SEED, ctx.device)
                if len(rates) > 1
                else math.nan
            )
            validation[f"{lr:g}"] = score
            if best is None or score > best.validation:  # ties keep the earlier rate
                best = Trained(lr, model, result.final_loss, score, spectrum)
            if score >= 1.0:
                break  # no later rate can recall more of the validation sequences
        if best is None:  # every rate diverged: the points during training may come from weights already diverged
            failed = [
                Measurement(m, None, status="diverged", reason=reason, **where)
                for m in ("copy_accuracy", "copy_final_loss")
            ]
            return failed + spectrum, None
        accuracy = recall_accuracy(best.model, task, profile.eval_sequences, seed, ctx.device)
        extra: dict[str, Any] = {"chance": task.chance_accuracy}
        if len(rates) > 1:
            extra.update(lr=best.lr, validation_accuracy=validation, diverged_lrs=sorted(diverged))
        measured = [
            Measurement("copy_accuracy", accuracy, extra=extra, **where),
            Measurement("copy_final_loss", best.final_loss, extra=extra, **where),
        ]
        return measured + best.spectrum, best.model

    def _clipping(
        self,
        fresh: Callable[[], torch.nn.Module],
        profile: GradientFlowProfile,
        seed: int,
        ctx: JobContext,
        spent: Spent,
    ) -> list[Measurement]:
        """The clipping study: SGD at each large learning rate, the gradient norm clipped or not at all."""
        task = self._task(profile, profile.clip_lag)
        out: list[Measurement] = []
        for lr in profile.clip_lrs:
            for clip in (profile.grad_clip, math.inf):
                label = "none" if math.isinf(clip) else f"{clip:g}"
                settings = TrainSettings(
                    steps=profile.clip_steps,
                    lr=lr,
                    grad_clip=clip,
                    weight_decay=profile.weight_decay,
                    optimizer="sgd",
                    momentum=profile.clip_momentum,
                )
                where = dict(x=lr, x_name="lr")
                try:
                    result = train_copy(
                        fresh(), task, settings, profile.batch_size, seed, ctx, f"{ctx.label} sgd {lr:g} clip {label}"
                    )
                except Diverged as exc:
                    out.append(
                        Measurement(
                            "clip_final_loss",
                            None,
                            status="diverged",
                            reason=str(exc),
                            extra={"clipping": label},
                            **where,
                        )
                    )
                    continue
                spent.add(result)
                norms = result.grad_norms
                out.append(
                    Measurement(
                        "clip_final_loss",
                        result.final_loss,
                        **where,
                        extra={
                            "clipping": label,
                            "max_grad_norm": max(norms),
                            "clipped_fraction": sum(n > profile.grad_clip for n in norms) / len(norms),
                        },
                    )
                )
        return out


suites.add("gradient_flow", GradientFlow())
