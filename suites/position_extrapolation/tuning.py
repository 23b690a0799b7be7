"""The free parameters of the RoPE extensions, chosen per trained model on validation text.

YaRN's ramp bounds alpha and beta are the paper's values for Llama (L = 2048/4096, head dimension 128),
which Peng et al. 2023 (arXiv 2309.00071) say to tune case by case; NTK-aware's s "has to be set higher
than the expected scale" (Peng et al. 3.1). At this suite's settings (head dimension 16, L = 64: only
pairs 0-2 turn at least once within L) the Llama values need not fit, so each job with such a scaling
scores a small grid on validation text and keeps the best point:

- validation text: held-out characters *after* the ones every length scores (never the scored text), or,
  when the held-out split has too few, the last characters of the training split;
- at ``TUNE_MULTIPLIER`` x L, the length the verdicts on NTK-aware and YaRN read (``JUDGED_MULTIPLIER``):
  Peng et al. 3.1 say s "has to be set higher than the expected scale", so a point chosen at a shorter length
  (where more headroom only costs) would not be the one the judged length needs;
- grid points with the same frequencies and temperature are scored once; ties keep the earlier point,
  and each grid lists the published values first.

The choice is recorded in every record of the job (``rope_params``) and each point's validation loss as a
``validation_loss`` record. It costs one forward pass over ``VALIDATION_TOKENS`` characters per distinct point.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable

import torch

#: scaling name -> parameter -> values tried, the published value first
#: YaRN's ramp bounds, shared by every scaling that ramps as YaRN does
RAMP_GRID: dict[str, tuple[float, ...]] = {"alpha": (1.0, 0.5, 2.0), "beta": (32.0, 16.0, 8.0, 4.0, 2.0)}
GRIDS: dict[str, dict[str, tuple[float, ...]]] = {
    "yarn": RAMP_GRID,
    "yarn_rlinear": RAMP_GRID,
    "ntk_by_parts": RAMP_GRID,
    "ntk": {"headroom": (1.0, 1.5, 2.0, 3.0, 4.0)},
}
#: the verdicts on NTK-aware and YaRN compare perplexities at this many times L (claims/ntk_close.py, yarn_close.py)
JUDGED_MULTIPLIER = 4
#: the sweep scores validation windows of this many times L: the judged length, never another
TUNE_MULTIPLIER = JUDGED_MULTIPLIER
#: validation characters scored per grid point (at most; fewer when the corpus has fewer to spare)
VALIDATION_TOKENS = 16384


def grid_points(name: str) -> list[dict[str, float]]:
    """Every combination of the scaling's grid, the published values first ([] for a scaling without one)."""
    grid = GRIDS.get(name, {})
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))] if keys else []


def validation_ids(
    train_ids: torch.Tensor, heldout_ids: torch.Tensor, scored: int, length: int
) -> tuple[torch.Tensor, str]:
    """(ids, where from): up to VALIDATION_TOKENS targets (a multiple of ``length``) and their inputs, from the
    held-out characters after the first ``scored`` + 1, else from the end of the training split."""
    rest = heldout_ids[scored + 1 :]
    n = min(VALIDATION_TOKENS, rest.numel() - 1) // length * length
    if n >= length:
        return rest[: n + 1], "held-out characters after the scored ones"
    n = min(VALIDATION_TOKENS, train_ids.numel() - 1) // length * length
    return train_ids[-(n + 1) :], "the last characters of the training split"


def choose(
    scaling, points: list[dict[str, float]], head_dim: int, train_len: int, s: float, loss_of: Callable[[object], float]
) -> tuple[dict[str, float], list[tuple[dict[str, float], float]]]:
    """(the point with the lowest validation loss, [(point, loss)] for every point) for ``scaling`` at scale s;
    ``loss_of(scaling with the point's values)`` scores one. Points giving the same frequencies share a score."""
    seen: dict[tuple, float] = {}
    scored, best, best_loss = [], points[0], float("inf")
    for point in points:
        variant = dataclasses.replace(scaling, **point)
        key = tuple(variant.frequencies(head_dim, s, train_len).tolist()) + (variant.attention_factor(s),)
        if key not in seen:
            seen[key] = loss_of(variant)
        scored.append((point, seen[key]))
        if seen[key] < best_loss:
            best, best_loss = point, seen[key]
    return best, scored
