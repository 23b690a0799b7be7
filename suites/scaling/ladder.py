"""The ladder of model sizes: ``rung<i>`` as a part of a variant expression, each rung's model and its budget.

A rung is the i-th width of the profile's ``rungs`` at the profile's fixed depth and head size (the declared rule:
width grows, depth and head size stay; Kaplan et al. 2020, arXiv 2001.08361, section 3.1, find loss depends on the
parameter count far more than on shape at a fixed count). Each rung trains on ``tokens_per_parameter`` tokens per
non-embedding parameter (Hoffmann et al. 2022, arXiv 2203.15556: about 20 at the compute-optimal point), so the
compute grows with the square of the parameters along the ladder.
"""

from __future__ import annotations

import re

RUNG = re.compile(r"^rung(\d+)$")
#: the variant that stands for the ladder's reference when an expression names only a rung
BASELINE = "baseline"


def split_rung(variant: str) -> tuple[str, int | None]:
    """('mla', 2) from 'mla+rung2' (the rung part anywhere); (variant, None) without one; 'rung1' -> ('baseline', 1)."""
    parts = variant.split("+")
    rungs = [int(m.group(1)) for p in parts if (m := RUNG.match(p))]
    rest = "+".join(p for p in parts if not RUNG.match(p)) or BASELINE
    return rest, (rungs[-1] if rungs else None)


def with_rung(variant: str, rung: int) -> str:
    """The expression of ``variant`` at rung ``rung``."""
    return f"{split_rung(variant)[0]}+rung{rung}"


def expand(variants: list[str], n_rungs: int) -> list[str]:
    """Each variant without a rung part as one expression per rung, the largest rung first (the longest jobs start
    first under workers=N); an expression that names its rung as given."""
    out: list[str] = []
    for rung in reversed(range(n_rungs)):
        out += [with_rung(v, rung) for v in variants if split_rung(v)[1] is None]
    return out + [v for v in variants if split_rung(v)[1] is not None]


def non_embedding_parameters(model) -> int:
    """Parameters outside the token embedding, the output layer and a position table (Kaplan et al.'s N)."""
    outside = ("embed.", "head.", "position.")
    return sum(p.numel() for name, p in model.named_parameters() if not name.startswith(outside))


def estimated_parameters(d_model: int, n_layers: int) -> int:
    """12 n_layers d_model^2: the non-embedding parameters of a Transformer with a 4 d_model FFN (Kaplan et al.
    eq. 2.1), what a profile is checked against before any model is built."""
    return 12 * n_layers * d_model * d_model


def steps_for(parameters: int, tokens_per_parameter: float, tokens_per_step: int) -> int:
    """Optimiser steps of a rung: its token budget over the tokens of one step, rounded (0: under one step)."""
    return int(round(tokens_per_parameter * parameters / tokens_per_step))
