"""Weight initialisation schemes of the Transformer and the mixer LMs: the scale of every drawn weight.

- ``gpt2``: every weight N(0, 0.02) (Radford et al. 2019), a scale chosen for widths in the hundreds; at width 64 a
  query or key projection then shrinks its input about 8-fold, every score starts near 0 and attention uniform,
  and a small model sits on the plateau before induction heads form (Olsson et al. 2022, arXiv 2209.11895) far
  longer: on MQAR a width-64 Transformer stays at 1/N token accuracy past 2000 steps (the recall suite).
- ``fan_in``: every weight N(0, 1 / fan_in), the variance PyTorch's own nn.Linear default keeps (LeCun et al.
  1998): a projection keeps its input's scale at any width.

Both scale the residual output projections (attention's ``out_proj``, the feed-forward's ``down``) by
1 / sqrt(branches x n_layers), as GPT-2 does, and draw the token embedding from N(0, d_model^-0.5) (it enters the
stream multiplied by sqrt(d_model)).
"""

from __future__ import annotations

import math
from typing import Dict

from torch import nn

#: scheme -> what it draws, for `bench list` and error messages
INIT_SCHEMES: Dict[str, str] = {
    "gpt2": "every weight N(0, 0.02) (GPT-2, Radford et al. 2019)",
    "fan_in": "every weight N(0, 1/fan_in): a projection keeps its input's scale (LeCun et al. 1998; PyTorch's variance)",
}


def init_problem(scheme: str) -> str:
    """Why ``scheme`` is not an initialisation scheme ('' when it is)."""
    if scheme in INIT_SCHEMES:
        return ""
    return f"init={scheme!r} is not an initialisation scheme; choose one of {', '.join(INIT_SCHEMES)}"


def weight_std(scheme: str, fan_in: int) -> float:
    """The standard deviation ``scheme`` draws a weight with ``fan_in`` inputs from."""
    if scheme == "gpt2":
        return 0.02
    if scheme == "fan_in":
        return fan_in ** -0.5
    raise ValueError(init_problem(scheme))


def fan_in(module: nn.Module) -> int:
    """Inputs per output of an nn.Linear (in_features) or an nn.Embedding row (its width)."""
    return module.in_features if isinstance(module, nn.Linear) else module.embedding_dim


def residual_scale(branches: int, n_layers: int) -> float:
    """The factor on a residual output projection's std: 1 / sqrt(branches x n_layers) (GPT-2)."""
    return 1.0 / math.sqrt(branches * n_layers)
