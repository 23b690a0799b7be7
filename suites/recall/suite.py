"""Recall: what attention retrieves from context that a fixed-size state cannot, and which positions generalise in length.

Synthetic tasks generated in code from the seed (suites/recall/tasks.py): multi-query associative recall (MQAR;
Arora et al. 2023, Zoology, arXiv 2312.04927), copying a random string (Jelassi et al. 2024, arXiv 2402.01032),
and reversing and adding digit strings trained at lengths up to n and scored up to 3n (Kazemnejad et al. 2023,
arXiv 2305.19466). Every variant trains one model per task from the same seed at matched parameters: the
Transformer with no position encoding, RoPE, ALiBi or T5's bias, the LSTM, minGRU (Feng et al. 2024, arXiv
2410.01201), causal linear attention (Katharopoulos et al. 2020, arXiv 2006.16236), and the gated linear
recurrences: Mamba-2 (Dao & Gu 2024), GLA (Yang et al. 2023), DeltaNet (Yang et al. 2024) and Gated DeltaNet (Yang,
Kautz & Hatamizadeh 2024), at more than one state size, and a hybrid Mamba-2 stack with an attention block. Scored on held-out
sequences: accuracy per answer token and per whole answer, against each task's chance level.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import torch
from torch.nn import functional as F

from harness.contract import Diverged, JobContext, Measurement, Profile, Suite, suites
from harness.errors import UsageError
from harness.rules import Rule, at_least, between, one_of
from harness.suite_file import SuiteFile
from harness.timing import combined_load
from harness.train import train
from suites.common.families import build, count, matched, width_field
from suites.common.metrics import COMMON
from suites.common.profile_parts import TrainingBudget, heads_problems
from suites.recall.models import for_task
from suites.recall.tasks import IGNORE, MQAR, TASKS, Addition, Copy, Reverse, Task
from variants.models.init_scheme import INIT_SCHEMES
from variants.models.mixer_lm import MixerSpec
from variants.models.recurrent import RecurrentSpec
from variants.spec import TransformerSpec, preset_fields, resolve


@dataclass(frozen=True)
class ModelShape(Profile):
    """The Transformer's width, depth and heads; every other family has the same depth at matched parameters."""

    #: the Transformer's residual width (the other families' widths are matched to its parameter count)
    d_model: int = 64
    #: blocks (Transformer, mixer LMs) or stacked layers (LSTM)
    n_layers: int = 2
    #: attention heads (Transformer, linear attention)
    n_heads: int = 4
    #: weight initialisation of the Transformer and the mixer LMs (variants/models/init_scheme.py); at width 64 GPT-2's
    #: N(0, 0.02) leaves the Transformer on MQAR's plateau (1/N token accuracy) for the whole budget
    init: str = "fan_in"
    #: whether their output layer shares the token embedding's matrix
    tie_embeddings: bool = False

    rules = {"init": one_of(*INIT_SCHEMES)}

    def problems(self) -> list[str]:
        return heads_problems(self.d_model, self.n_heads) + super().problems()


@dataclass(frozen=True)
class RecallTasks(Profile):
    """The tasks, their sizes in training and in evaluation, and when a task counts as learned."""

    #: the tasks each variant trains a model for (mqar, copy, reverse, addition)
    tasks: tuple[str, ...] = ("mqar", "copy", "reverse", "addition")
    #: the learning rates MQAR's model trains at, one model each, in place of ``lr`` (Zoology's sweep: each variant
    #: keeps the rate whose model scores best on held-out validation sequences at the most pairs); empty: ``lr``
    mqar_learning_rates: tuple[float, ...] = ()
    #: MQAR's key and value vocabularies
    mqar_keys: int = 64
    mqar_values: int = 64
    #: key-value pairs MQAR is scored at; training draws 1 .. the largest uniformly
    mqar_kv: tuple[int, ...] = (1, 2, 4, 8, 16)
    #: symbols of the copy task's strings
    copy_alphabet: int = 26
    #: n of each length task: training draws lengths 1 .. n uniformly (addition: digits per operand)
    copy_len: int = 16
    reverse_len: int = 16
    addition_len: int = 8
    #: evaluation lengths of a length task, as multiples of its n (rounded; past 1 = longer than any training)
    length_factors: tuple[float, ...] = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
    #: held-out sequences scored at each size (a generator the training never draws from)
    eval_sequences: int = 256
    #: a size counts as solved, and a task as learned in distribution (at n, or MQAR's largest count), at this
    #: token accuracy
    learned_accuracy: float = 0.9
    #: part of the stored jobs' identity, unused by the verdicts: a one-seed margin must be calibrated from the
    #: standard profile's per-seed spread of the quantity judged (harness.paired.one_seed_margin), and one seed
    #: without one gives no verdict
    accuracy_margin: float = 0.1

    rules = {
        "tasks": one_of(*TASKS),
        "length_factors": between(0, 100, low_open=True),
        "learned_accuracy": between(0, 1, low_open=True),
        "accuracy_margin": between(0, 1, low_open=True),
        "mqar_keys": at_least(1),
        "copy_alphabet": at_least(2),
        "mqar_learning_rates": Rule(low=0, high=1, low_open=True, may_be_empty=True, meaning="empty: lr"),
    }

    def problems(self) -> list[str]:
        out = []
        if max(self.mqar_kv) > self.mqar_keys:
            out.append(
                f"set.mqar_kv reaches {max(self.mqar_kv)} key-value pairs, more than set.mqar_keys={self.mqar_keys} "
                f"distinct keys; give set.mqar_keys of at least {max(self.mqar_kv)}."
            )
        return out + super().problems()


@dataclass(frozen=True)
class RecallProfile(TrainingBudget, ModelShape, RecallTasks):
    """Model sizes, the tasks and the training budget of each task's model."""

    added_later = {**TrainingBudget.added_later, "mqar_learning_rates": ()}  # one rate for every task before the sweep


#: the profiles declared in suite.yaml beside this file
PROFILES = SuiteFile.of(__file__).profiles(RecallProfile)

#: widths tried when matching a recurrent or mixer model's parameters to the Transformer's (a mixer with heads takes
#: the multiples of its head count among them)
WIDTHS = range(4, 513)


def make_task(name: str, p: RecallProfile) -> Task:
    """The task ``name`` with the profile's parameters."""
    return {
        "mqar": lambda: MQAR(keys=p.mqar_keys, values=p.mqar_values),
        "copy": lambda: Copy(alphabet=p.copy_alphabet),
        "reverse": lambda: Reverse(),
        "addition": lambda: Addition(),
    }[name]()


def train_max(name: str, p: RecallProfile) -> int:
    """n: the largest size drawn in training."""
    return max(p.mqar_kv) if name == "mqar" else getattr(p, f"{name}_len")


def eval_sizes(name: str, p: RecallProfile) -> list[int]:
    """The sizes a task is scored at: MQAR's counts, or each length factor x n (at least 1, each once)."""
    if name == "mqar":
        return sorted(set(p.mqar_kv))
    n = train_max(name, p)
    return sorted({max(1, int(round(f * n))) for f in p.length_factors} | {n})


class Recall(Suite):
    """MQAR, copying and length generalisation: Transformers, LSTM, minGRU, linear attention, Mamba-2, GLA, DeltaNets, hybrids."""

    version = 2  # the Transformer and mixer LMs at fan-in initialisation with untied output layers
    metrics = SuiteFile.of(__file__).metrics(COMMON)
    profiles = PROFILES
    #: the slowest first, so that workers=N starts the longest jobs at once (reports keep tables.ORDER)
    default_variants = (
        "t5_bias",
        "alibi",
        "rope",
        "none",
        "gla",
        "mamba2+hybrid2",
        "mamba2",
        "gated_deltanet",
        "deltanet",
        "mamba2+state16",
        "linear_attention",
        "mingru",
        "lstm",
    )

    def longest_sequence(self, profile: RecallProfile) -> int:
        """The longest task sequence: each task at the largest size it is trained or scored at."""
        return max(make_task(t, profile).length(max(eval_sizes(t, profile))) for t in profile.tasks)

    def base_spec(self, profile: RecallProfile, options: dict[str, Any]) -> TransformerSpec:
        """The Transformer at the profile's size, for the task with the largest vocabulary (run_job sets each task's)."""
        vocab = max(make_task(t, profile).vocab_size for t in profile.tasks)
        return TransformerSpec(
            vocab_size=vocab,
            d_model=profile.d_model,
            n_layers=profile.n_layers,
            n_heads=profile.n_heads,
            max_len=64,
            position="none",
            init=profile.init,
            tie_embeddings=profile.tie_embeddings,
        )

    def spec_for(self, variant: str, profile: RecallProfile, options: dict[str, Any]):
        """A recurrent cell builds an LSTM-style RecurrentSpec, a mixer a MixerSpec, each at the width whose parameter
        count is nearest the base Transformer's; any other expression a TransformerSpec."""
        fields = preset_fields(variant)
        base = self.base_spec(profile, options)
        if "cell" in fields:
            spec = resolve(variant, RecurrentSpec(vocab_size=base.vocab_size, n_layers=profile.n_layers))
        elif "mixer" in fields:
            spec = resolve(
                variant,
                MixerSpec(
                    vocab_size=base.vocab_size,
                    n_layers=profile.n_layers,
                    n_heads=profile.n_heads,
                    init=profile.init,
                    tie_embeddings=profile.tie_embeddings,
                ),
            )
        else:
            return resolve(variant, base)
        # a width every block can be built at (heads must divide it, a hybrid's attention blocks' too)
        widths = [
            w for w in WIDTHS if not isinstance(spec, MixerSpec) or not dataclasses.replace(spec, d_model=w).problems()
        ]
        if not widths:  # no width helps: the spec itself cannot be built (a hybrid naming a block the stack lacks)
            raise UsageError(f"Variant '{variant}': {spec.problems()[0]}")
        return matched(spec, count(base), widths)

    def run_job(self, spec, profile: RecallProfile, seed: int, ctx: JobContext) -> list[Measurement]:
        out: list[Measurement] = []
        ctx.facts.update(parameters=count(spec), width=getattr(spec, width_field(spec)))
        total_time, loads = 0.0, []
        for t_index, name in enumerate(profile.tasks):
            rates = profile.mqar_learning_rates if name == "mqar" and profile.mqar_learning_rates else (None,)
            for rate in rates:
                measured, seconds = _task_job(spec, profile, name, t_index, seed, ctx, rate)
                out += measured
                total_time += seconds
                loads += [m.extra for m in measured if m.metric == "task_train_time"]
        out.append(Measurement("train_time", total_time, extra=combined_load(loads)))
        return out


def _task_job(
    spec, profile: RecallProfile, name: str, t_index: int, seed: int, ctx: JobContext, rate: float | None
) -> tuple[list[Measurement], float]:
    """One task's model trained from the seed (at ``rate`` in place of the profile's lr, when given) and scored at every
    size: (its measurements, its training seconds). With a rate, every record carries it (extra.lr) and the model is
    also scored on validation sequences at the most pairs, which choose the rate a variant keeps."""
    task, n = make_task(name, profile), train_max(name, profile)
    task_spec = for_task(spec, task.vocab_size, task.length(n))
    torch.manual_seed(seed)  # every rate starts from the same initial weights
    model = build(task_spec).to(ctx.device)
    sizes = eval_sizes(name, profile)
    where = {"task": name, "train_max": n, "parameters": count(task_spec), **({"lr": rate} if rate else {})}
    settings = profile.train_settings() if rate is None else dataclasses.replace(profile.train_settings(), lr=rate)
    desc = f"{ctx.label} {name}" + (f" lr {rate:g}" if rate else "")
    metrics = ("token_accuracy", "sequence_accuracy")
    try:
        result = _train(model, task, n, profile, settings, seed + 1000 * t_index, ctx, desc)
    except Diverged as exc:
        out = [Measurement("train_loss", None, status="diverged", reason=str(exc), extra=where)]
        out += [
            Measurement(m, None, x=float(s), x_name=task.size_name, status="diverged", reason=str(exc), extra=where)
            for s in sizes
            for m in metrics
        ]
        if rate:
            out.append(
                Measurement(
                    "validation_token_accuracy",
                    None,
                    x=float(n),
                    x_name=task.size_name,
                    status="diverged",
                    reason=str(exc),
                    extra=where,
                )
            )
        return out, 0.0
    out = [
        Measurement(
            "train_loss", result.final_loss, extra={**where, "tokens": result.tokens, "steps": len(result.losses)}
        ),
        Measurement("task_train_time", result.wall_time_s, extra={**where, **result.load}),
    ]
    for size in sizes:
        token, sequence = _score(model, task, size, profile.eval_sequences, seed + 10_000 + 1000 * t_index, ctx)
        extra = {
            **where,
            "in_distribution": size <= n,
            "chance_token": task.chance_token(size),
            "chance_sequence": task.chance_sequence(size),
        }
        out.append(Measurement("token_accuracy", token, x=float(size), x_name=task.size_name, extra=extra))
        out.append(Measurement("sequence_accuracy", sequence, x=float(size), x_name=task.size_name, extra=extra))
    if rate:  # a generator neither training nor the scored sequences draw from
        token, _ = _score(model, task, n, profile.eval_sequences, seed + 20_000 + 1000 * t_index, ctx)
        out.append(Measurement("validation_token_accuracy", token, x=float(n), x_name=task.size_name, extra=where))
    return out, result.wall_time_s


def _train(model, task: Task, n: int, profile: RecallProfile, settings, seed: int, ctx: JobContext, desc: str):
    """Train on sizes drawn uniformly from 1..n, one size per batch (sequences of one batch share their length)."""
    gen = torch.Generator().manual_seed(seed)

    def step_loss(m, step):
        size = int(torch.randint(1, n + 1, (1,), generator=gen))
        x, y = task.batch(profile.batch_size, size, gen)
        logits = m(x.to(ctx.device))  # (B, T, V)
        return F.cross_entropy(logits.flatten(0, 1), y.to(ctx.device).flatten(), ignore_index=IGNORE), x.numel()

    return train(model, step_loss, settings, progress=ctx.progress, desc=desc)


@torch.no_grad()
def _score(model, task: Task, size: int, n: int, seed: int, ctx: JobContext) -> tuple[float, float]:
    """(accuracy per answer token, share of answers right in full) on ``n`` held-out sequences of one size."""
    x, y = task.batch(n, size, torch.Generator().manual_seed(seed + size))
    model.eval()
    right, due = [], []
    for start in range(0, n, 256):
        xb, yb = x[start : start + 256].to(ctx.device), y[start : start + 256].to(ctx.device)
        predicted = model(xb).argmax(-1)  # (b, T)
        mask = yb != IGNORE
        right.append(((predicted == yb) & mask).sum(1).cpu())
        due.append(mask.sum(1).cpu())
    right, due = torch.cat(right), torch.cat(due)
    return float(right.sum() / due.sum()), float((right == due).float().mean())


suites.add("recall", Recall())
