"""The recurrent weight's singular values at initialisation, at each quarter of training and after it.

Identity (Le, Jaitly & Hinton 2015) and orthogonal (Saxe et al. 2014) initialisation start an Elman RNN with every
singular value of W_hh at 1, so that a state neither shrinks nor grows through the linear part of a step; these
records say whether that survives training. Each point gives two records at x = the lag the model trains on:
``recurrent_sigma_max`` (the largest singular value, over every layer) and ``recurrent_sigma_mean`` (the mean of all
of them), with ``extra.phase`` init, training or trained and ``extra.step`` the optimiser steps done.
"""

from __future__ import annotations

import torch

from harness.contract import Measurement

#: the metrics of one point, in the order recorded
SIGMA_METRICS = ("recurrent_sigma_max", "recurrent_sigma_mean")


def sigma_measurements(model, lag: int, phase: str, step: int) -> list[Measurement]:
    """The largest and the mean singular value of ``model``'s recurrent weights now (none if a weight is not finite:
    weights a divergence has already wrecked, caught by the training loop at its next check)."""
    if not all(bool(torch.isfinite(w).all()) for w in model.recurrent_weights()):
        return []
    values = model.recurrent_singular_values()  # (n_layers * H,), float64
    return [
        Measurement(metric, float(stat), x=float(lag), x_name="lag", extra={"phase": phase, "step": step})
        for metric, stat in zip(SIGMA_METRICS, (values.max(), values.mean()))
    ]


def quarter_steps(steps: int) -> list[int]:
    """The optimiser steps done at each quarter of a training of ``steps`` steps, strictly between 0 and ``steps``."""
    return sorted({steps * k // 4 for k in (1, 2, 3)} - {0, steps})


class SpectrumTrace:
    """An ``after_step`` hook of harness/train.py: the singular values after each quarter of training."""

    def __init__(self, model, lag: int, steps: int):
        self.model, self.lag = model, lag
        self.at = set(quarter_steps(steps))
        self.measurements: list[Measurement] = []

    def __call__(self, step: int) -> None:
        done = step + 1  # train() counts steps from 0
        if done in self.at:
            self.measurements += sigma_measurements(self.model, self.lag, "training", done)
