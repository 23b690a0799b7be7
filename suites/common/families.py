"""Models of three families behind one interface, and the width at which one matches a parameter count.

A spec's class picks the family: a RecurrentSpec builds an LSTM-style LM, a MixerSpec a mixer LM (minGRU, linear
attention, Mamba-2, GLA, DeltaNets, hybrids), a TransformerSpec the Transformer. ``matched`` finds the width whose
model has the parameter count nearest a target (counted on the built model, on the meta device), so families are
compared at equal parameters (recall, language_modeling).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

import torch

from variants.models import mixer_lm, recurrent, transformer
from variants.models.mixer_lm import MixerSpec
from variants.models.recurrent import RecurrentSpec


def build(spec) -> torch.nn.Module:
    """The model a spec of any of the three families describes."""
    if isinstance(spec, RecurrentSpec):
        return recurrent.build(spec)
    if isinstance(spec, MixerSpec):
        return mixer_lm.build(spec)
    return transformer.build(spec)


def count(spec) -> int:
    """Trainable parameters of the model a spec describes (tied weights once), built on the meta device."""
    with torch.device("meta"):
        model = build(spec)
    return sum(p.numel() for p in {id(p): p for p in model.parameters() if p.requires_grad}.values())


def width_field(spec) -> str:
    """The field that sets a spec's width."""
    return "d_hidden" if isinstance(spec, RecurrentSpec) else "d_model"


def matched(spec, target: int, widths: Iterable[int], field: str = ""):
    """The spec at the width among ``widths`` whose parameter count is nearest ``target`` (the smaller on a tie);
    ``field``: the width it sets (default: the family's model width, ``width_field``; ``d_ff`` sizes the FFN).

    The count grows with the width, so a bisection finds the first width at or above the target; the nearest is it
    or the one before it.
    """
    field = field or width_field(spec)
    widths = sorted(widths)
    size: Callable[[int], int] = lambda w: count(dataclasses.replace(spec, **{field: w}))  # noqa: E731
    low, high = 0, len(widths) - 1
    while low < high:
        mid = (low + high) // 2
        if size(widths[mid]) < target:
            low = mid + 1
        else:
            high = mid
    near = [widths[i] for i in (low - 1, low) if 0 <= i < len(widths)]
    best = min(near, key=lambda w: (abs(size(w) - target), w))
    return dataclasses.replace(spec, **{field: best})
