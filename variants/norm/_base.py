"""Normalisation: the registry of norm layers, and where a residual block puts them (its placement).

Two placements (Xiong et al. 2020, arXiv 2002.04745):
- ``post`` (Vaswani et al. 2017): x <- norm(x + f(x)); the last block's output is already normalised, so the
  model adds no final norm. Gradients near the output are large at initialisation, so it needs warm-up.
- ``pre``: x <- x + f(norm(x)); the residual stream is never normalised, so the model ends with a final norm.
A norm layer is a module built from ``d_model`` that maps (..., d_model) to the same shape.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from torch import nn

from .._registry import Registry

norms: Registry[type] = Registry("norm", package="variants.norm", list_command="bench list norms")


@dataclass(frozen=True)
class Placement:
    """Where a block normalises: each sublayer's input (pre) or each residual sum (post)."""

    name: str
    summary: str
    #: True: normalise the sublayer input and end the model with a final norm; False: normalise the sum
    pre: bool

    def slots(self, make_norm: Callable[[], nn.Module]) -> tuple[nn.Module, nn.Module]:
        """(norm applied to the sublayer input, norm applied to the residual sum); the other is the identity."""
        return (make_norm(), nn.Identity()) if self.pre else (nn.Identity(), make_norm())

    def final(self, make_norm: Callable[[], nn.Module]) -> nn.Module:
        """The norm between the last block and the output layer."""
        return make_norm() if self.pre else nn.Identity()


placements: Registry[Placement] = Registry("norm placement", list_command="bench list norms")
for _p in (
    Placement(
        "pre", "Pre-LN: x + f(norm(x)), final norm before the output (Xiong et al. 2020, arXiv 2002.04745).", True
    ),
    Placement("post", "Post-LN: norm(x + f(x)), as in the original Transformer (Vaswani et al. 2017).", False),
):
    placements.add(_p.name, _p, summary=_p.summary)
