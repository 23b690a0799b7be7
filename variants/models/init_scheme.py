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
from typing import Any

from torch import nn

#: scheme -> what it draws, for `bench list` and error messages
INIT_SCHEMES: dict[str, str] = {
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
        return fan_in**-0.5
    raise ValueError(init_problem(scheme))


def fan_in(module: nn.Module) -> int:
    """Inputs per output of an nn.Linear (in_features) or an nn.Embedding row (its width)."""
    return module.in_features if isinstance(module, nn.Linear) else module.embedding_dim


def residual_scale(branches: int, n_layers: int) -> float:
    """The factor on a residual output projection's std: 1 / sqrt(branches x n_layers) (GPT-2)."""
    return 1.0 / math.sqrt(branches * n_layers)


def init_weights(model: nn.Module, spec: Any, branches: int, drawn: tuple[type, ...] = (nn.Linear,)) -> None:
    """The initialisation of both Transformers and the mixer LMs, after GPT-2 (Radford et al. 2019), on
    ``model.embed`` (tied or not).

    Every weight of a module of the types ``drawn`` is drawn from N(0, std), std by the spec's ``init`` scheme
    (variants/models/init_scheme.py: 0.02 for ``gpt2``, fan_in^-0.5 for ``fan_in``), visiting modules as ``apply`` does
    (a module shared by several layers, the position encoding, once per holder); the token embedding then from
    N(0, d_model^-0.5) (Vaswani et al. 2017, 3.4: multiplied by sqrt(d_model) it enters with unit scale,
    comparable to added position vectors (sinusoid RMS 0.71) that would otherwise swamp it, and the tied output
    layer starts with unit-scale logits); the residual output projections (attention's out_proj, the
    feed-forward's down) from N(0, std / sqrt(branches x n_layers)), ``branches`` the residual sublayers per
    layer summed into the stream's depth (2 in the decoder LM; 3 in the encoder-decoder, whose decoder layers
    have three). The decoder LM also draws its embeddings (``drawn`` with nn.Embedding), the encoder-decoder does
    not: the draws consume random numbers, so each model keeps the sequence its pinned numbers come from.
    """
    scheme = getattr(spec, "init", "gpt2")

    def draw(module: nn.Module) -> None:
        if isinstance(module, drawn):
            nn.init.normal_(module.weight, std=weight_std(scheme, fan_in(module)))

    model.apply(draw)
    nn.init.normal_(model.embed.weight, std=spec.d_model**-0.5)
    model.embed_scale = math.sqrt(spec.d_model)
    scale = residual_scale(branches, spec.n_layers)
    for name, p in model.named_parameters():
        if name.endswith(("out_proj.weight", "down.weight")):  # (out, in) matrices of nn.Linear
            nn.init.normal_(p, std=weight_std(scheme, p.shape[1]) * scale)
