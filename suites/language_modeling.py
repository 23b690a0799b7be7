"""Language modelling: one character-level LM per attention/block variant, held-out perplexity at its budget.

Each variant is a Transformer decoder that differs from a shared baseline (scaled_dot scores, MHA, Pre-LN,
LayerNorm, GELU) on one axis: scoring (Vaswani et al. 2017; Luong et al. 2015; Bahdanau et al. 2014), head
grouping (Shazeer 2019; Ainslie et al. 2023), norm placement (Xiong et al. 2020), norm type (Zhang &
Sennrich 2019) or feed-forward layer (Shazeer 2020). All train on the same text with the same steps, and
each is scored on the same held-out characters at the training length, beside its parameter count and
training FLOPs, so that a variant that wins by being bigger is visible as such. Grouped key/value heads
(``gqa<g>``, ``mqa``) are compared at matched parameters: their FFN is widened until the model is within 2%
of the same spec with MHA (``variants/param_match.py``); ``gqa2+unmatched`` keeps the default FFN.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List

import torch

from harness.context import JobContext
from harness.flops import count_flops
from harness.train import TrainSettings, train
from suites._lm import evaluate_nll, lm_loss, random_batch
from suites._suite import Measurement, Metric, Profile, Suite, suites
from suites.data.text import DEFAULT_CORPUS, CharVocab, CorpusError, load_corpus, split_text
from variants.param_match import match_head_grouping
from variants.spec import TransformerSpec, preset_fields, resolve
from variants.transformer import build

PROTOCOL = "nonoverlapping"


@dataclass(frozen=True)
class LanguageModelingProfile(Profile):
    """Model size, training budget and evaluation of one run."""

    d_model: int = 128
    n_layers: int = 2
    n_heads: int = 8
    train_len: int = 64
    batch_size: int = 32
    steps: int = 180
    lr: float = 3e-3
    warmup_steps: int = 20
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    heldout_fraction: float = 0.1
    #: held-out characters scored, in non-overlapping windows of train_len
    eval_tokens: int = 16384


PROFILES = {
    "quick": LanguageModelingProfile(
        name="quick", description="2 layers, d 128, L 64, 180 steps, 1 seed: the ten default variants in under 5 minutes on 2 idle CPU cores",
    ),
    "standard": LanguageModelingProfile(
        name="standard", description="4 layers, d 256, L 128, 3000 steps, 3 seeds: a long CPU run or a GPU",
        seeds=(0, 1, 2), d_model=256, n_layers=4, train_len=128, steps=3000, lr=1e-3, warmup_steps=200,
        eval_tokens=65536,
    ),
}


class LanguageModeling(Suite):
    """Held-out perplexity, parameters and training FLOPs of each attention/block variant against a shared baseline."""

    name = "language_modeling"
    version = 1
    description = __doc__
    metrics = (
        Metric("loss", "nats/char", False, "held-out cross-entropy per character at the training length"),
        Metric("perplexity", "", False, "exp(loss) per character"),
        Metric("train_loss", "nats/char", False, "mean training loss over the last 10% of steps"),
        Metric("train_flops", "FLOP", False, "matrix-product FLOPs of one training step (forward + backward) x steps"),
        Metric("train_time", "s", False, "wall time of training"),
        Metric("train_throughput", "tokens/s", True, "training tokens per second"),
    )
    profiles = PROFILES
    default_variants = ("baseline", "dot", "general", "additive+naive", "gqa2", "mqa", "post_ln", "rmsnorm", "relu", "swiglu")
    options = {"data": None}

    def _data(self, options: Dict[str, Any]):
        return load_corpus(options.get("data") or DEFAULT_CORPUS)

    def base_spec(self, profile: LanguageModelingProfile, options: Dict[str, Any]) -> TransformerSpec:
        train_text, _ = split_text(self._data(options).text, profile.heldout_fraction)
        return TransformerSpec(
            vocab_size=CharVocab.from_text(train_text).size, d_model=profile.d_model, n_layers=profile.n_layers,
            n_heads=profile.n_heads, max_len=profile.train_len,
        )

    def spec_for(self, variant: str, profile: LanguageModelingProfile, options: Dict[str, Any]) -> TransformerSpec:
        """Presets on the base spec; a gqa<g>/mqa spec gets the d_ff that matches its MHA twin's parameter count.

        An expression that sets d_ff itself (``unmatched`` sets the default) keeps it: the unmatched comparison.
        """
        spec = resolve(variant, self.base_spec(profile, options))
        return spec if "d_ff" in preset_fields(variant) else match_head_grouping(spec)

    def data_checksum(self, profile: LanguageModelingProfile, options: Dict[str, Any]) -> str:
        return self._data(options).checksum

    def run_job(self, spec: TransformerSpec, profile: LanguageModelingProfile, seed: int, ctx: JobContext) -> List[Measurement]:
        corpus = self._data(ctx.options)
        train_text, heldout_text = split_text(corpus.text, profile.heldout_fraction)
        vocab = CharVocab.from_text(train_text)
        train_ids, heldout_ids = vocab.encode(train_text), vocab.encode(heldout_text)
        n_eval = min(profile.eval_tokens, heldout_ids.numel() - 1) // profile.train_len * profile.train_len
        if n_eval == 0:
            raise CorpusError(f"The held-out split of {corpus.name} has {heldout_ids.numel()} characters, fewer than "
                              f"the training length {profile.train_len}; use a larger corpus or a smaller train_len.")
        eval_ids = heldout_ids[: n_eval + 1]

        torch.manual_seed(seed)
        model = build(spec).to(ctx.device)
        gen = torch.Generator().manual_seed(seed)
        step_flops = self._step_flops(spec, profile, train_ids, ctx.device)
        ctx.facts.update(parameters=model.num_parameters(), corpus=corpus.name, train_chars=len(train_text),
                         eval_chars=n_eval, protocol=PROTOCOL, lr=profile.lr, steps=profile.steps,
                         attention_backend=model.attention_dispatch(profile.batch_size, profile.train_len))

        def step_loss(m, step):
            x, y = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
            return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

        settings = TrainSettings(steps=profile.steps, lr=profile.lr, warmup_steps=profile.warmup_steps,
                                 weight_decay=profile.weight_decay, grad_clip=profile.grad_clip)
        result = train(model, step_loss, settings, progress=ctx.progress, desc=ctx.label or "train")
        t0 = time.perf_counter()
        nll, count = evaluate_nll(model, eval_ids, profile.train_len, protocol=PROTOCOL, device=ctx.device)
        where = dict(x=float(profile.train_len), x_name="eval_length",
                     extra={"scored_tokens": count, "eval_time_s": time.perf_counter() - t0})
        loss = nll / count
        return [
            Measurement("train_loss", result.final_loss),
            Measurement("train_time", result.wall_time_s),
            Measurement("train_throughput", result.tokens_per_s),
            Measurement("train_flops", float(step_flops * profile.steps),
                        extra={"flops_per_step": step_flops, "counted_with_kernel": "naive"}),
            Measurement("loss", loss, **where),
            Measurement("perplexity", float(torch.tensor(loss).exp()), **where),
        ]

    @staticmethod
    def _step_flops(spec: TransformerSpec, profile: LanguageModelingProfile, train_ids: torch.Tensor, device: str) -> int:
        """Matrix-product FLOPs of one training step, counted on a naive-kernel twin (fused kernels are opaque)."""
        twin = build(dataclasses.replace(spec, kernel="naive")).to(device)
        x, y = random_batch(train_ids, profile.batch_size, profile.train_len, torch.Generator().manual_seed(0))
        return count_flops(lambda: lm_loss(twin, x.to(device), y.to(device)))

    def report(self, records, out_dir: Path) -> List[Path]:
        from suites._lm_report import write_report

        return write_report(self, records, out_dir)


suites.add("language_modeling", LanguageModeling())
