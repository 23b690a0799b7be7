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
from harness.rules import at_least, between, one_of
from suites.data.char_lm import char_lm_data, check_fits
from suites.data.text import BIBLE, DEFAULT_CORPUS
from variants.spec import TransformerSpec
from variants.transformer import build


@dataclass(frozen=True)
class ExtrapolationProfile(Profile):
    """Model size, training budget and evaluation plan of one run."""

    d_model: int = 96
    n_layers: int = 4
    n_heads: int = 12
    train_len: int = 32
    eval_multipliers: Tuple[int, ...] = (1, 2, 4, 8, 16)
    batch_size: int = 96
    steps: int = 260
    lr: float = 6e-3
    warmup_steps: int = 26
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    heldout_fraction: float = 0.1
    #: held-out tokens scored at every length (at most the held-out split, a multiple of the longest length)
    eval_tokens: int = 32768
    protocol: str = "nonoverlapping"
    #: sliding-window stride in tokens (0 = the training length)
    stride: int = 0
    #: the corpus (``data=`` on the command line): pydoc, bible or a text file
    data: str = DEFAULT_CORPUS

    rules = {"warmup_steps": at_least(0), "weight_decay": at_least(0), "heldout_fraction": between(0, 1, low_open=True, high_open=True),
             "protocol": one_of(*PROTOCOLS), "stride": at_least(0, "0 = the training length")}

    def problems(self) -> List[str]:
        out = []
        longest = self.train_len * max(self.eval_multipliers)
        if self.eval_tokens < longest:
            out.append(f"set.eval_tokens={self.eval_tokens} is below the longest evaluation length {longest} "
                       f"(set.train_len={self.train_len} x {max(self.eval_multipliers)}, the largest of set.eval_multipliers); "
                       f"give at least {longest}.")
        shortest = self.train_len * min(self.eval_multipliers)
        if self.stride > shortest:
            out.append(f"set.stride={self.stride} exceeds the shortest evaluation length {shortest}; "
                       f"set.stride takes a whole number from 0 (the training length) to {shortest}.")
        return out


PROFILES = {
    "quick": ExtrapolationProfile(
        name="quick", description="4 layers, d 96, L 32, 260 steps of 96 x 32 on pydoc: all five variants in under 3 minutes on 2 CPU cores",
    ),
    "standard": ExtrapolationProfile(
        name="standard", description="4 layers, d 128, L 64, 1000 steps of 32 x 64 on the World English Bible (0.45 passes), 3 seeds: about 30 minutes on 2 CPU cores",
        seeds=(0, 1, 2), d_model=128, n_layers=4, n_heads=8, train_len=64, batch_size=32, steps=1000, lr=3e-3,
        warmup_steps=100, eval_tokens=65536, data=BIBLE,
    ),
    "large": ExtrapolationProfile(
        name="large", description="6 layers, d 256, L 128, 5000 steps of 32 x 128 on the World English Bible (4.5 passes), 3 seeds: a GPU",
        seeds=(0, 1, 2), d_model=256, n_layers=6, n_heads=8, train_len=128, batch_size=32, steps=5000, lr=1e-3,
        warmup_steps=300, eval_tokens=65536, data=BIBLE,
    ),
}


class PositionExtrapolation(Suite):
    """Perplexity at 1-16x the training length for each position encoding (Press et al. 2022)."""

    name = "position_extrapolation"
    report_module = "suites._extrapolation_report"
    version = 2
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

    def _data(self, profile: ExtrapolationProfile, options: Dict[str, Any]):
        return char_lm_data(options.get("data") or profile.data, profile.heldout_fraction)

    def check_data(self, profile: ExtrapolationProfile, options: Dict[str, Any]) -> None:
        check_fits(options.get("data") or profile.data, profile.heldout_fraction, profile.train_len,
                   profile.train_len * max(profile.eval_multipliers), "set.train_len x the largest of set.eval_multipliers")

    def base_spec(self, profile: ExtrapolationProfile, options: Dict[str, Any]) -> TransformerSpec:
        return TransformerSpec(
            vocab_size=self._data(profile, options).vocab.size, d_model=profile.d_model, n_layers=profile.n_layers,
            n_heads=profile.n_heads, max_len=profile.train_len,
        )

    def data_checksum(self, profile: ExtrapolationProfile, options: Dict[str, Any]) -> str:
        return self._data(profile, options).corpus.checksum

    def run_job(self, spec: TransformerSpec, profile: ExtrapolationProfile, seed: int, ctx: JobContext) -> List[Measurement]:
        data = self._data(profile, ctx.options)
        train_ids = data.train_ids
        eval_ids = data.eval_ids(profile.eval_tokens, profile.train_len * max(profile.eval_multipliers))
        n_eval = eval_ids.numel() - 1  # the same tokens are scored at every length

        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        ctx.facts.update(parameters=model.num_parameters(), eval_chars=n_eval, protocol=profile.protocol, lr=profile.lr,
                         steps=profile.steps, train_passes=data.passes(profile.steps * profile.batch_size * profile.train_len),
                         **data.facts(),
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



suites.add("position_extrapolation", PositionExtrapolation())
