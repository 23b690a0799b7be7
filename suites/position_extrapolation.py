"""Length extrapolation: train a character LM at length L, measure perplexity at L x {1, 2, 4, 8, 16}.

Press, Smith & Lewis 2022, "Train Short, Test Long" (arXiv 2108.12409): sinusoidal positions degrade
soon after the training length, rotary later, and ALiBi stays flat. Each variant is trained on the
same text with the same budget; held-out text is scored at every evaluation length on the same tokens,
under a named protocol (non-overlapping windows by default, sliding windows as an option).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Tuple

import torch

from harness.context import JobContext
from harness.train import TrainSettings, train
from suites._lm import PROTOCOLS, evaluate_nll, lm_loss, random_batch
from suites._suite import Measurement, Metric, Profile, Suite, suites
from suites.data.text import DEFAULT_CORPUS, CharVocab, CorpusError, load_corpus, split_text
from variants.spec import TransformerSpec
from variants.transformer import build


@dataclass(frozen=True)
class ExtrapolationProfile(Profile):
    """Model size, training budget and evaluation plan of one run."""

    d_model: int = 128
    n_layers: int = 2
    n_heads: int = 8
    train_len: int = 64
    eval_multipliers: Tuple[int, ...] = (1, 2, 4, 8, 16)
    batch_size: int = 32
    steps: int = 250
    lr: float = 3e-3
    warmup_steps: int = 25
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    heldout_fraction: float = 0.1
    #: held-out tokens scored at every length (a multiple of the longest evaluation length)
    eval_tokens: int = 32768
    protocol: str = "nonoverlapping"
    #: sliding-window stride in tokens (0 = the training length)
    stride: int = 0


PROFILES = {
    "quick": ExtrapolationProfile(
        name="quick", description="2 layers, d 128, L 64, 250 steps: all five variants in under 3 minutes on 2 CPU cores",
    ),
    "standard": ExtrapolationProfile(
        name="standard", description="4 layers, d 256, L 128, 3000 steps, 3 seeds: a long CPU run or a GPU",
        seeds=(0, 1, 2), d_model=256, n_layers=4, train_len=128, batch_size=32, steps=3000, lr=1e-3,
        warmup_steps=200, eval_tokens=40960,
    ),
}


class PositionExtrapolation(Suite):
    """Perplexity at 1-16x the training length for each position encoding (Press et al. 2022)."""

    name = "position_extrapolation"
    version = 1
    description = __doc__
    metrics = (
        Metric("loss", "nats/char", False, "held-out cross-entropy per character"),
        Metric("perplexity", "", False, "exp(loss) per character"),
        Metric("train_loss", "nats/char", False, "mean training loss over the last 10% of steps"),
        Metric("train_time", "s", False, "wall time of training"),
        Metric("train_throughput", "tokens/s", True, "training tokens per second"),
    )
    profiles = PROFILES
    default_variants = ("none", "sinusoidal", "learned", "rope", "alibi")
    options = {"data": None, "protocol": PROTOCOLS}
    dtypes = ("float32", "bfloat16")

    def _data(self, options: Dict[str, Any]):
        return load_corpus(options.get("data") or DEFAULT_CORPUS)

    def base_spec(self, profile: ExtrapolationProfile, options: Dict[str, Any]) -> TransformerSpec:
        corpus = self._data(options)
        train_text, _ = split_text(corpus.text, profile.heldout_fraction)
        return TransformerSpec(
            vocab_size=CharVocab.from_text(train_text).size, d_model=profile.d_model, n_layers=profile.n_layers,
            n_heads=profile.n_heads, max_len=profile.train_len,
        )

    def data_checksum(self, profile: ExtrapolationProfile, options: Dict[str, Any]) -> str:
        return self._data(options).checksum

    def run_job(self, spec: TransformerSpec, profile: ExtrapolationProfile, seed: int, ctx: JobContext) -> List[Measurement]:
        corpus = self._data(ctx.options)
        train_text, heldout_text = split_text(corpus.text, profile.heldout_fraction)
        vocab = CharVocab.from_text(train_text)
        train_ids, heldout_ids = vocab.encode(train_text), vocab.encode(heldout_text)
        longest = profile.train_len * max(profile.eval_multipliers)
        n_eval = min(profile.eval_tokens, heldout_ids.numel() - 1) // longest * longest
        if n_eval == 0:
            raise CorpusError(
                f"The held-out split of {corpus.name} has {heldout_ids.numel()} characters, fewer than the longest "
                f"evaluation length {longest}; use a larger corpus or smaller train_len/eval_multipliers."
            )
        eval_ids = heldout_ids[: n_eval + 1]  # the same tokens are scored at every length

        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        ctx.facts.update(parameters=model.num_parameters(), corpus=corpus.name, train_chars=len(train_text),
                         eval_chars=n_eval, protocol=profile.protocol, lr=profile.lr, steps=profile.steps,
                         attention_backend=model.attention_dispatch(profile.batch_size, profile.train_len))
        gen = torch.Generator().manual_seed(seed)

        # weights stay float32; bfloat16 runs the matmuls under autocast (mixed precision)
        def autocast():
            return torch.autocast(ctx.device.split(":")[0], dtype=ctx.dtype, enabled=ctx.dtype != torch.float32)

        def step_loss(m, step):
            x, y = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
            with autocast():
                return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

        settings = TrainSettings(steps=profile.steps, lr=profile.lr, warmup_steps=profile.warmup_steps,
                                 weight_decay=profile.weight_decay, grad_clip=profile.grad_clip)
        result = train(model, step_loss, settings, progress=ctx.progress, desc=ctx.label or spec.position)
        out = [
            Measurement("train_loss", result.final_loss),
            Measurement("train_time", result.wall_time_s),
            Measurement("train_throughput", result.tokens_per_s),
        ]
        for mult in profile.eval_multipliers:
            length = profile.train_len * mult
            where = dict(x=float(length), x_name="eval_length", extra={"multiplier": mult})
            problem = model.length_problem(length)
            if problem:
                for metric in ("loss", "perplexity"):
                    out.append(Measurement(metric, None, status="unsupported", reason=problem, **where))
                continue
            t0 = time.perf_counter()
            with autocast():
                nll, count = evaluate_nll(model, eval_ids, length, protocol=profile.protocol,
                                          stride=profile.stride or profile.train_len, device=ctx.device)
            loss = nll / count
            where["extra"] = {"multiplier": mult, "scored_tokens": count, "eval_time_s": time.perf_counter() - t0}
            out.append(Measurement("loss", loss, **where))
            out.append(Measurement("perplexity", float(torch.tensor(loss).exp()), **where))
        return out

    def report(self, records, out_dir: Path) -> List[Path]:
        from suites._extrapolation_report import write_report

        return write_report(self, records, out_dir)


suites.add("position_extrapolation", PositionExtrapolation())
