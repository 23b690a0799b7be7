"""The models of position_extrapolation, for suites that study them after training (attention_heads).

The recipe of suites/position_extrapolation/suite.py: random windows of ``train_len`` characters from the
training split (suites/common/data/char_lm.py), next-character cross-entropy, AdamW with linear warm-up and
cosine decay, gradient-norm clipping (harness/train.py); weights in float32, matmuls under autocast when
the job's dtype is lower. A RoPE scaling changes no weight, so a variant is trained without it.

When position_extrapolation has already trained the same weights (same spec, training settings, seed,
device type, dtype, data and code: its training key, suites/common/checkpoints.py) next to the same results,
its checkpoint is loaded instead of training again. Otherwise the model is trained here and kept in the
calling suite's own checkpoint folder, never in position_extrapolation's.
"""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path

import torch

from harness.contract import JobContext
from suites.common.checkpoints import Training, load, path_for, train_job_once, training_key
from suites.common.data.char_lm import CharLMData
from suites.common.lm import lm_loss, random_batch
from suites.position_extrapolation.suite import EVAL_SETTINGS, ExtrapolationProfile, ExtrapolationRecipe
from variants.models.transformer import DecoderLM, build

SUITE = "position_extrapolation"


def training_fields() -> tuple[str, ...]:
    """The settings of position_extrapolation's profile that decide its trained weights: its recipe's."""
    return tuple(
        f.name for f in dataclasses.fields(ExtrapolationRecipe) if f.name not in ("name", "description", "seeds")
    )


def extrapolation_key(spec, profile, seed: int, ctx: JobContext, data: CharLMData) -> str:
    """position_extrapolation's training key for the weights ``profile`` (any profile with its training fields) trains."""
    own = ExtrapolationProfile(**{f: getattr(profile, f) for f in training_fields() if hasattr(profile, f)})
    settings = {k: v for k, v in own.settings().items() if k not in EVAL_SETTINGS}
    return training_key(SUITE, spec.without_rope_scaling(), settings, seed, ctx.device, ctx.dtype, data.corpus.checksum)


def autocast(ctx: JobContext):
    """Mixed precision in the job's dtype (nothing for float32)."""
    if ctx.dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(ctx.device.split(":")[0], dtype=ctx.dtype)


def trained_model(
    spec, profile, data: CharLMData, seed: int, ctx: JobContext, suite: str
) -> tuple[DecoderLM, Training]:
    """position_extrapolation's model of ``spec`` after training with the profile's recipe (an ExtrapolationRecipe),
    in eval mode, and where its weights came from. A RoPE scaling is trained without, then applied to the trained
    weights."""
    train_spec = spec.without_rope_scaling()
    torch.manual_seed(seed)
    model = build(train_spec).to(ctx.device)
    key = extrapolation_key(spec, profile, seed, ctx, data)
    theirs = _extrapolation_folder(ctx.checkpoint_dir)
    saved = load(path_for(theirs, key)) if theirs is not None else None
    if saved is not None:
        model.load_state_dict(saved["state_dict"])
        return _variant(spec, model, ctx), Training(
            saved["final_loss"],
            saved["wall_time_s"],
            saved["tokens_per_s"],
            f"checkpoint of {SUITE} job {saved['label']}",
            key,
            saved.get("load") or {},
        )
    gen = torch.Generator().manual_seed(seed)
    train_ids = data.train_ids.to(ctx.device)  # once: each step's batch is gathered there

    def step_loss(m, step):
        x, y = random_batch(train_ids, profile.batch_size, profile.train_len, gen)
        with autocast(ctx):
            return lm_loss(m, x.to(ctx.device), y.to(ctx.device)), x.numel()

    own_key = training_key(
        suite, train_spec, {"extrapolation_key": key}, seed, ctx.device, ctx.dtype, data.corpus.checksum
    )
    result = train_job_once(model, own_key, ctx, step_loss, profile.train_settings(), spec.position)
    return _variant(spec, model, ctx), result


def _variant(spec, trained: DecoderLM, ctx: JobContext) -> DecoderLM:
    """The model of ``spec`` itself (its RoPE scaling included) with the trained weights, in eval mode, told that
    it reads windows of its training length."""
    model = trained
    if spec != trained.spec:
        model = build(spec).to(ctx.device)
        model.load_state_dict(trained.state_dict())
    model.set_context_length(spec.max_len)
    return model.eval()


def _extrapolation_folder(own: Path | None) -> Path | None:
    """position_extrapolation's checkpoint folder beside ``own`` (results/<suite>/.checkpoints), or None."""
    if own is None:
        return None
    return Path(own).parent.parent / SUITE / Path(own).name
