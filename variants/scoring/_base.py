"""The scoring protocol: how a query and a key become an attention score, and the registry of scorings.

A scoring is a module built for one vector size ``dim`` (a head's size in a Transformer, the hidden size
of an RNN attention). ``score(q, k)`` maps queries (..., T, dim) and keys (..., S, dim) to scores
(..., T, S) for any leading dimensions, so the same scoring serves (B, T, D) x (B, S, D) in an RNN
attention and (B, H, T, Dh) x (B, H, S, Dh) in a Transformer head.

Dot-product scorings (``dot_product = True``) score (query(q) . k) * scale(): a transform of the query
alone and a constant, which every fused kernel computes from the prepared query and the scale, and
which keeps cached keys untouched. Other scorings hand their ``score`` function to the kernel
(``kernel_options``); only kernels that materialise the scores can call it. The defaults here are the
scaled dot product of Vaswani et al. 2017.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import torch
from torch import nn

from .._registry import Registry

if TYPE_CHECKING:
    from ..axis_spec import AxisSpec

scorings: Registry[type] = Registry("scoring", package="variants.scoring", list_command="bench list scorings")


class Scoring(nn.Module):
    """Base class: score(q, k) = (query(q) . k) * scale(); subclasses override what differs."""

    #: True when the score is (query(q) . k) * scale(), so fused dot-product kernels can compute it
    dot_product: bool = True

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    @classmethod
    def problems(cls, spec: AxisSpec) -> list[str]:
        """Reasons this scoring cannot be built for ``spec`` (empty when it can)."""
        return []

    def scale(self) -> float:
        """The factor on query . key."""
        return 1.0 / math.sqrt(self.dim)

    def query(self, q: torch.Tensor) -> torch.Tensor:
        """The query as the dot product sees it: (..., T, dim) -> (..., T, dim)."""
        return q

    def score(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """Scores (..., T, S) of queries (..., T, dim) against keys (..., S, dim)."""
        return self.score_prepared(q, self.prepare_keys(k))

    def prepare_keys(self, k: torch.Tensor) -> torch.Tensor:
        """The part of the score that depends on the keys alone, (..., S, dim) -> (..., S, dim'); the keys by default.

        An RNN decoder that scores one query at a time against the same source computes it once per sentence
        (Bahdanau et al. 2014, appendix A.1.2: U_a h_j "can be pre-computed").
        """
        return k

    def score_prepared(self, q: torch.Tensor, prepared: torch.Tensor) -> torch.Tensor:
        """Scores (..., T, S) of queries (..., T, dim) against ``prepare_keys(k)`` (..., S, dim')."""
        return (self.query(q) @ prepared.transpose(-2, -1)) * self.scale()

    def kernel_options(self) -> dict[str, Any]:
        """Extra keyword arguments for ``AttentionKernel.attend`` (a score function when fused kernels cannot compute
        the score: not a dot product, or a scale that is not a plain number)."""
        return {} if self.dot_product and _is_number(self.scale()) else {"score_fn": self.score}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@functools.cache
def fused_dot_product(scoring: type) -> bool:
    """Whether fused dot-product kernels compute this scoring class: it declares ``dot_product`` *and* its
    ``scale()`` is a plain number, as they take (a learned scale is a tensor: declared a dot product, it would reach
    them and fail inside torch). Checked once per class on a small instance."""
    if not getattr(scoring, "dot_product", False):
        return False
    try:
        return _is_number(scoring(8).scale())
    except Exception:  # a scoring that cannot even be built small is not one a fused kernel can be promised
        return False
