"""One sequence-mixer layer (minGRU, linear attention) of width d, run in its parallel form or step by step.

The counterpart of variants/models/sequence_layer.py's recurrent layer for the mixers of variants/mixer/: ``parallel``
runs the mixer's training form (minGRU's log-space scan, Feng et al. 2024, arXiv 2410.01201; linear attention's
masked parallel form, Katharopoulos et al. 2020, arXiv 2006.16236), ``loop`` its recurrent form one token at a
time (the ``loop`` preset, as for the LSTM and GRU). Both hold the same weights, so either checks the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from ..mixer._base import mixers
from ..spec import FamilySpec
from .mixer_lm import mixer_options

#: how a mixer layer runs its steps
MIXER_RECURRENCES = ("parallel", "loop")


@dataclass(frozen=True)
class MixerLayerSpec(FamilySpec):
    """One mixer layer of width ``d_model`` and how it runs (``parallel`` form or the recurrent ``loop``)."""

    family = "mixer_layer"

    mixer: str = "mingru"
    d_model: int = 256
    n_heads: int = 4
    recurrence: str = "parallel"
    #: a matrix-state mixer's key (Mamba-2: state) dimension per head, and its chunk; None: the mixer's defaults
    state_size: int | None = None
    chunk_size: int | None = None

    late_defaults: ClassVar[dict[str, Any]] = {"state_size": None, "chunk_size": None}

    def problems(self, device: str = "cpu", dtype: torch.dtype = torch.float32) -> list[str]:
        """Every reason this spec cannot be built and run (empty if it can)."""
        if self.mixer not in mixers:
            return [mixers.unknown_message(self.mixer)]
        reasons = list(mixers.get(self.mixer).problems(self.d_model, self.n_heads, **mixer_options(self)))
        if self.recurrence not in MIXER_RECURRENCES:
            reasons.append(
                f"Unknown recurrence '{self.recurrence}' for a mixer layer; choose one of {', '.join(MIXER_RECURRENCES)}."
            )
        return reasons


class MixerLayer(nn.Module):
    """x (B, T, d) -> (B, T, d) through one mixer, in its parallel form or step by step."""

    def __init__(self, spec: MixerLayerSpec):
        super().__init__()
        self.spec = spec
        self.mixer = mixers.get(spec.mixer)(spec.d_model, spec.n_heads, **mixer_options(spec))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mixer.step_loop(x) if self.spec.recurrence == "loop" else self.mixer(x)

    def sequential_steps(self, length: int) -> int:
        """One per token step by step; the parallel form's scan or matrix product counts as one."""
        return length if self.spec.recurrence == "loop" else self.mixer.sequential_steps(length)


def build(spec: MixerLayerSpec) -> MixerLayer:
    """The layer a spec describes."""
    return MixerLayer(spec)
