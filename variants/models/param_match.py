"""Matched-parameter head grouping: widen a GQA/MQA model's FFN to its MHA twin's parameter count (Ainslie et al. 2023).

Grouping query heads onto g key/value heads (Shazeer 2019; Ainslie et al. 2023, arXiv 2305.13245) shrinks
the K and V projections from d x d to d x g * d_head each, so a grouped model trained from scratch has
fewer parameters than its MHA baseline and a perplexity comparison mixes two effects. The FFN's hidden
size d_ff is the one free width that leaves attention untouched, so it absorbs the difference: each unit
of d_ff adds 2 x d_model parameters per layer (3 x d_model per 1.5 units for a gated FFN), so the match
is exact up to that step, far inside ``TOLERANCE``. Counts come from building the model on the meta
device (no memory, no random numbers drawn), so every axis's parameters count as the model has them.
"""

from __future__ import annotations

import dataclasses

import torch

from ..spec import TransformerSpec, problems

#: the largest relative parameter difference a matched spec may keep
TOLERANCE = 0.02


class ParameterMatchError(ValueError):
    """No FFN width brings a spec within the tolerance of the reference parameter count."""


def count_parameters(spec: TransformerSpec) -> int:
    """Trainable parameters of the decoder LM a spec describes (the kernel holds none, so naive stands in)."""
    from .transformer import build

    with torch.device("meta"):
        return build(dataclasses.replace(spec, kernel="naive")).num_parameters()


def match_parameters(
    spec: TransformerSpec, reference: TransformerSpec, tolerance: float = TOLERANCE
) -> TransformerSpec:
    """``spec`` with the d_ff whose parameter count is closest to ``reference``'s (within ``tolerance``)."""
    target = count_parameters(reference)
    start = spec.d_ff or 4 * spec.d_model
    step = max(1, start // 8)
    here, there = count_parameters(spec_with(spec, start)), count_parameters(spec_with(spec, start + step))
    per_unit = (there - here) / step  # parameters are affine in d_ff, up to a gated FFN's rounding
    guess = max(1, round(start + (target - here) / per_unit)) if per_unit else start
    # the rounding of a gated FFN's hidden size (round(2/3 d_ff)) can move the best width by a unit or two
    counts = {d_ff: count_parameters(spec_with(spec, d_ff)) for d_ff in range(max(1, guess - 3), guess + 4)}
    best = min(counts, key=lambda d_ff: (abs(counts[d_ff] - target), d_ff))
    if abs(counts[best] - target) > tolerance * target:
        raise ParameterMatchError(f"no d_ff brings {counts[best]:,} parameters within {tolerance:.0%} of {target:,}")
    return spec_with(spec, best)


def spec_with(spec: TransformerSpec, d_ff: int) -> TransformerSpec:
    return dataclasses.replace(spec, d_ff=d_ff)


def match_head_grouping(spec: TransformerSpec, tolerance: float = TOLERANCE) -> TransformerSpec:
    """A GQA/MQA or latent-attention (MLA) spec widened, or narrowed, to the parameter count of the same spec with
    MHA; any other spec unchanged.

    A spec that cannot be built (``gqa3`` with 8 heads) is returned as it is, for ``problems()`` to report.
    """
    attention = getattr(spec, "attention", "grouped")
    if (spec.kv_heads >= spec.n_heads and attention == "grouped") or problems(
        dataclasses.replace(spec, kernel="naive")
    ):
        return spec
    # latent attention (variants/attention/mla.py) is matched to the same spec with grouped MHA, as GQA is
    return match_parameters(spec, dataclasses.replace(spec, n_kv_heads=None, attention="grouped"), tolerance)
