"""Passkey retrieval at 1-16x the training length for each position encoding and RoPE extension.

Perplexity hides failures at length (Hsieh et al. 2024, RULER, arXiv 2404.06654), so context-extension papers
judge by retrieval too: Chen et al. 2023 (Position Interpolation, arXiv 2306.15595) and Peng et al. 2023 (YaRN,
arXiv 2309.00071) fine-tune at the new length and test passkey retrieval (Mohtashami & Jaggi 2023, arXiv
2305.16300). Each variant trains a character-level decoder LM at length L on passkey sequences (passkey.py: five
random digits hidden at a random depth of corpus filler, asked for at the end), then is scored at L x {1, 2, 4, 8,
16}: exact-match accuracy of the key per needle depth (scoring.py), the loss on the filler beside it, and
an effective length (effective.py, RULER's definition adapted).

The RoPE extensions ``rope+pi``, ``rope+ntk`` and ``rope+yarn`` evaluate the weights of ``rope`` (trained once:
suites/common/checkpoints.py) with s = length / L, without fine-tuning; every RoPE job without a window is also
fine-tuned at ``finetune_len`` for ``finetune_steps`` and ``short_finetune_steps`` steps with its scaling at the
fixed s = finetune_len / L (as Chen et al. and Peng et al. fine-tune; plain ``rope`` fine-tuned unscaled is the
control), then scored at every length again (suites/common/finetune.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.nn import functional as F

from harness.contract import JobContext, Measurement, Suite, suites
from harness.errors import UsageError
from harness.rules import at_least, between, one_of
from harness.suite_file import SuiteFile
from harness.train import train
from suites.common.char_lm_suite import model_spec
from suites.common.checkpoints import train_job_once, training_key
from suites.common.data.char_lm import check_fits
from suites.common.finetune import finetune_settings, tokens_batch, with_weights
from suites.common.metrics import COMMON
from suites.common.profile_parts import CharLMText, ModelSize, TrainingBudget
from suites.retrieval_length.passkey import PasskeyGenerator, overhead, passkey_text
from suites.retrieval_length.scoring import LengthScore, score_length
from variants.models.init_scheme import INIT_SCHEMES
from variants.models.transformer import build
from variants.spec import TransformerSpec

#: the retrieval tasks a profile may name (``set.task``); RULER's other tasks are left for later
TASKS = ("passkey",)


@dataclass(frozen=True)
class RetrievalRecipe(ModelSize, TrainingBudget, CharLMText):
    """The model, its training on passkey sequences of length L, and the loss it trains on."""

    #: the retrieval task the model trains and is scored on
    task: str = "passkey"
    #: weight initialisation (variants/models/init_scheme.py): at width 64 GPT-2's N(0, 0.02) leaves the model unable to
    #: retrieve at L after 300 steps (0% where fan_in reaches 100%): the plateau before induction heads form
    init: str = "fan_in"
    #: weight of the next-character loss on every character but the key's, beside the key's own loss (1): the key
    #: alone is 5 targets per sequence; the rest keeps the model a language model of its filler
    lm_weight: float = 0.1

    rules = {"task": one_of(*TASKS), "init": one_of(*INIT_SCHEMES), "lm_weight": at_least(0, "0 = the key only")}

    def problems(self) -> list[str]:
        out = []
        if self.train_len < overhead() + 1:
            out.append(
                f"set.train_len={self.train_len} cannot hold the needle, the question and the key ({overhead()} "
                f"characters) with any filler; give at least {overhead() + 1}."
            )
        return out + super().problems()


#: what the fine-tuning arms may train on (RetrievalProfile.finetune_task)
FINETUNE_TASKS = ("passkey", "text", "mixed")


@dataclass(frozen=True)
class RetrievalProfile(RetrievalRecipe):
    """The recipe, where the needle goes, the lengths scored and the fine-tuning arms."""

    #: needle depths scored at every length, as a share of the filler before the needle (0: first, 1: last)
    needle_depths: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
    #: evaluation lengths as multiples of L
    eval_multipliers: tuple[int, ...] = (1, 2, 4, 8)
    #: sequences scored per (length, depth), the same for every variant and seed
    eval_draws: int = 32
    #: characters per sequence of the fine-tuning arms (s = finetune_len / L)
    finetune_len: int = 128
    #: steps of the longer fine-tuning (Chen et al.'s ~1000, scaled; 0: none)
    finetune_steps: int = 120
    #: steps of the shorter fine-tuning (Peng et al.'s ~400, scaled; 0: none)
    short_finetune_steps: int = 48
    #: what the fine-tuning trains on: "passkey" sequences (the pre-training's task, at finetune_len); "text",
    #: windows of the corpus's training split scored on every next character, as Chen et al. and Peng et al.
    #: fine-tune a language model on plain text and test the passkey without training on it; or "mixed", that text
    #: at finetune_len plus as many passkey sequences at train_len each step, so the task is kept where it was
    #: learned and never shown at the new length
    finetune_task: str = "passkey"

    # every fine-tuning trained on passkey sequences before finetune_task
    added_later = {**RetrievalRecipe.added_later, "finetune_task": "passkey"}

    rules = {
        "finetune_task": one_of(*FINETUNE_TASKS),
        "needle_depths": between(0, 1),
        "finetune_steps": at_least(0, "0 = no fine-tuning"),
        "short_finetune_steps": at_least(0, "0 = none"),
    }

    def problems(self) -> list[str]:
        out = []
        if self.finetune_len < self.train_len:
            out.append(
                f"set.finetune_len={self.finetune_len} is below the training length set.train_len={self.train_len}: "
                f"fine-tuning extends the context, so give a length of at least {self.train_len} "
                f"(e.g. {2 * self.train_len} or {4 * self.train_len})."
            )
        if self.short_finetune_steps > self.finetune_steps:
            out.append(
                f"set.short_finetune_steps={self.short_finetune_steps} exceeds set.finetune_steps="
                f"{self.finetune_steps}: the short budget is the smaller one; give at most {self.finetune_steps}."
            )
        return out + super().problems()


#: profile settings that change only the evaluation and the fine-tuning, not the trained weights
EVAL_SETTINGS = (
    "needle_depths",
    "eval_multipliers",
    "eval_draws",
    "finetune_len",
    "finetune_steps",
    "short_finetune_steps",
    "finetune_task",
)
#: the fine-tuning arms: metric prefix -> the profile field holding its steps
ARMS = {"finetuned_": "finetune_steps", "short_finetuned_": "short_finetune_steps"}

#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(RetrievalProfile)


def finetunes(spec: TransformerSpec) -> bool:
    """Whether a variant gets the fine-tuning arms: RoPE without a window (plain RoPE is the control)."""
    return spec.position == "rope" and spec.window is None


class RetrievalLength(Suite):
    """Passkey retrieval at 1-16x the training length for each position encoding and RoPE extension."""

    version = 1
    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    default_variants = ("rope", "alibi", "none", "rope+window32", "rope+pi", "rope+yarn")
    #: every position encoding, windows of 32 keys (span 4 x 31 = 124: L = 128 at depth 0 just within, 2L beyond) and
    #: of 64 (span 252: the whole of L within two hops, so it learns the task at L as full attention does; beyond its
    #: span from 4L), and the extensions last: they evaluate the rope weights trained earlier in the sweep
    profile_variants = {
        "standard": (
            "rope",
            "alibi",
            "none",
            "sinusoidal",
            "learned",
            "rope+window32",
            "rope+window64",
            "rope+pi",
            "rope+ntk",
            "rope+yarn",
        )
    }
    options = {"data": None}
    dtypes = ("float32", "bfloat16")

    def _text(self, profile: RetrievalProfile, options: dict[str, Any]):
        return passkey_text(options.get("data") or profile.data, profile.heldout_fraction)

    def data_checksum(self, profile: Any, options: dict[str, Any]) -> str:
        return self._text(profile, options).corpus.corpus.checksum

    def vocabulary(self, record: dict[str, Any]) -> str | None:
        settings = record.get("profile_settings") or {}
        return passkey_text(settings.get("data"), settings.get("heldout_fraction", 0.1)).vocab.chars

    def longest_sequence(self, profile: RetrievalProfile) -> int:
        return max(profile.train_len * max(profile.eval_multipliers), profile.finetune_len)

    def check_data(self, profile: RetrievalProfile, options: dict[str, Any]) -> None:
        """The corpus must hold filler for a training sequence and, in its held-out split, for the longest one."""
        longest = self.longest_sequence(profile)
        check_fits(
            options.get("data") or profile.data,
            profile.heldout_fraction,
            profile.train_len,
            longest,
            "set.train_len x the largest of set.eval_multipliers, or set.finetune_len",
        )
        if longest + 1 > len(self._text(profile, options).train_ids):
            raise UsageError(f"data={options.get('data') or profile.data} is too small for fine-tuning at {longest}.")

    def base_spec(self, profile: RetrievalProfile, options: dict[str, Any]) -> TransformerSpec:
        """The profile's model at L over the corpus's characters and the task's digits."""
        return model_spec(profile, self._text(profile, options).vocab.size, init=profile.init)

    @staticmethod
    def _autocast(ctx: JobContext):
        # weights stay float32; bfloat16 runs the matmuls under autocast (mixed precision)
        return torch.autocast(ctx.device.split(":")[0], dtype=ctx.dtype, enabled=ctx.dtype != torch.float32)

    def _step_loss(self, gen: PasskeyGenerator, batch: int, length: int, lm_weight: float, rng, ctx: JobContext):
        """The training loss of one step: the key's cross-entropy plus ``lm_weight`` x the rest's."""

        def step_loss(model, step):
            b = gen.batch(batch, length, rng)
            x, y = b.inputs.to(ctx.device), b.targets.to(ctx.device)
            with self._autocast(ctx):
                logits = model(x)  # (B, length, V)
            nll = F.cross_entropy(logits.float().transpose(1, 2), y, reduction="none")  # (B, length)
            key, rest = nll[:, -gen.digits :].mean(), nll[:, : -gen.digits].mean()
            return key + lm_weight * rest, x.numel()

        return step_loss

    def _text_loss(self, ids: torch.Tensor, batch: int, length: int, rng, ctx: JobContext):
        """The loss of one plain-text step: next-character cross-entropy at every position of ``batch`` random
        windows of ``length`` characters of ``ids`` (one split's ids, 1-D); no needle, no key."""

        def step_loss(model, step):
            starts = torch.randint(0, ids.numel() - length - 1, (batch,), generator=rng)
            windows = torch.stack([ids[s : s + length + 1] for s in starts.tolist()])  # (B, length + 1)
            x, y = windows[:, :-1].to(ctx.device), windows[:, 1:].to(ctx.device)
            with self._autocast(ctx):
                logits = model(x)  # (B, length, V)
            return F.cross_entropy(logits.float().transpose(1, 2), y), x.numel()

        return step_loss

    def run_job(
        self, spec: TransformerSpec, profile: RetrievalProfile, seed: int, ctx: JobContext
    ) -> list[Measurement]:
        text = self._text(profile, ctx.options)
        train_gen = PasskeyGenerator(text.vocab, text.train_ids)
        eval_gen = PasskeyGenerator(text.vocab, text.heldout_ids)  # held-out filler: text the model never read

        # a RoPE scaling changes no weight: train with plain RoPE (once per training: suites/common/checkpoints.py)
        train_spec = spec.without_rope_scaling()
        torch.manual_seed(seed)
        model = build(train_spec).to(ctx.device)
        ctx.facts.update(
            parameters=model.num_parameters(),
            task=profile.task,
            lr=profile.lr,
            steps=profile.steps,
            corpus=text.corpus.corpus.name,
            split=text.corpus.split,
            train_chars=int(text.train_ids.numel()),
            added_chars=text.added,
        )
        step_loss = self._step_loss(
            train_gen,
            profile.batch_size,
            profile.train_len,
            profile.lm_weight,
            torch.Generator().manual_seed(seed),
            ctx,
        )
        settings = {k: v for k, v in profile.settings().items() if k not in EVAL_SETTINGS}
        key = training_key(self.name, train_spec, settings, seed, ctx.device, ctx.dtype, text.corpus.corpus.checksum)
        out = train_job_once(model, key, ctx, step_loss, profile.train_settings(), spec.position).measurements()
        state = model.state_dict()
        out += self._scored(with_weights(spec, state, ctx.device), eval_gen, profile, ctx)
        if finetunes(spec):
            for prefix, field in ARMS.items():
                steps = getattr(profile, field)
                if steps > 0:
                    tuned = self._finetuned(spec, state, steps, profile, seed, train_gen, ctx)
                    out += self._scored(tuned, eval_gen, profile, ctx, prefix, steps)
        return out

    def _scored(
        self,
        model,
        gen: PasskeyGenerator,
        profile: RetrievalProfile,
        ctx: JobContext,
        prefix: str = "",
        finetune_steps: int = 0,
    ) -> list[Measurement]:
        """``<prefix>accuracy`` and ``<prefix>text_loss`` at every evaluation length (unsupported where the model
        cannot encode the length: learned positions past L)."""
        out = []
        tuned = {"finetune_steps": finetune_steps, "finetune_len": profile.finetune_len} if prefix else {}
        for mult in profile.eval_multipliers:
            length = profile.train_len * mult
            where = dict(x=float(length), x_name="eval_length")
            problem = model.length_problem(length)
            if problem:
                for metric in ("accuracy", "text_loss"):
                    out.append(
                        Measurement(
                            prefix + metric,
                            None,
                            status="unsupported",
                            reason=problem,
                            extra={"multiplier": mult, **tuned},
                            **where,
                        )
                    )
                continue
            if not prefix:  # a fine-tuned arm keeps the fixed s it was fine-tuned with; the others take length / L
                model.set_context_length(length)
            t0 = time.perf_counter()
            s: LengthScore = score_length(
                model,
                gen,
                length,
                profile.needle_depths,
                profile.eval_draws,
                ctx.device,
                autocast=lambda: self._autocast(ctx),
            )
            extra = {
                "multiplier": mult,
                "depths": list(s.depths),
                "by_depth": list(s.accuracy),
                "distances": list(s.distances),
                "draws": s.draws,
                "eval_time_s": time.perf_counter() - t0,
                **tuned,
            }
            out += [
                Measurement(prefix + "accuracy", s.mean_accuracy, extra=extra, **where),
                Measurement(prefix + "text_loss", s.text_loss, extra={"multiplier": mult, **tuned}, **where),
            ]
        return out

    def _finetuned(
        self,
        spec: TransformerSpec,
        state,
        steps: int,
        profile: RetrievalProfile,
        seed: int,
        gen: PasskeyGenerator,
        ctx: JobContext,
    ):
        """The trained weights after ``steps`` steps at ``finetune_len`` on what set.finetune_task names (passkey
        sequences, plain text, or plain text mixed with passkey sequences at train_len), the variant's scaling at the
        fixed s = finetune_len / L (Chen et al. and Peng et al. fine-tune and evaluate at one s)."""
        torch.manual_seed(seed + profile.finetune_len)
        model = with_weights(spec, state, ctx.device)
        length = profile.finetune_len
        scaling = getattr(model.position, "scaling", None)
        if scaling is not None:
            model.position.scale_rope(scaling, length / profile.train_len)
        batch = tokens_batch(profile.batch_size, profile.train_len, length)
        rng = torch.Generator().manual_seed(seed + length)
        if profile.finetune_task == "text":
            step_loss = self._text_loss(gen.filler_ids, batch, length, rng, ctx)
        elif profile.finetune_task == "mixed":
            step_loss = mixed(
                self._text_loss(gen.filler_ids, batch, length, rng, ctx),
                self._step_loss(gen, batch, profile.train_len, profile.lm_weight, rng, ctx),
            )
        else:
            step_loss = self._step_loss(gen, batch, length, profile.lm_weight, rng, ctx)
        settings = finetune_settings(steps, profile.lr, profile.grad_clip)
        train(model, step_loss, settings, progress=ctx.progress, desc=f"{ctx.label or spec.position} fine-tune {steps}")
        return model.eval()


def mixed(text_loss: Callable, task_loss: Callable) -> Callable:
    """One step of set.finetune_task=mixed: the mean of a plain-text step's loss and a passkey step's, and both
    batches' tokens."""

    def step_loss(model, step):
        (a, n), (b, m) = text_loss(model, step), task_loss(model, step)
        return (a + b) / 2, n + m

    return step_loss


suites.add("retrieval_length", RetrievalLength())
