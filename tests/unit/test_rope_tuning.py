"""The free parameters of the RoPE extensions are chosen on validation text, never on the scored text."""

import torch

from suites.position_extrapolation.tuning import GRIDS, VALIDATION_TOKENS, choose, grid_points, validation_ids
from variants.rope_scaling._base import rope_scalings


def test_each_grid_lists_the_published_values_first():
    assert grid_points("yarn")[0] == {"alpha": 1.0, "beta": 32.0}  # Peng et al.'s Llama values
    assert grid_points("ntk")[0] == {"headroom": 1.0}  # s itself, the formula as written
    assert grid_points("pi") == [] and grid_points("dynamic_ntk") == []  # nothing to choose
    assert len(grid_points("yarn")) == len(GRIDS["yarn"]["alpha"]) * len(GRIDS["yarn"]["beta"])


def test_validation_text_follows_the_scored_text_or_else_ends_the_training_split():
    train, heldout = torch.arange(100_000), torch.arange(1_000_000, 1_050_001)
    ids, where = validation_ids(train, heldout, scored=32_768, length=128)
    assert "held-out" in where and ids[0].item() == 1_000_000 + 32_769  # after the scored targets and their inputs
    assert (ids.numel() - 1) % 128 == 0 and ids.numel() - 1 <= VALIDATION_TOKENS
    ids, where = validation_ids(train, heldout[:32_800], scored=32_768, length=128)
    assert "training split" in where and ids[-1].item() == 99_999


def test_choose_keeps_the_lowest_validation_loss_and_scores_equal_frequencies_once():
    calls = []

    def loss_of(scaling):  # a stand-in for the validation loss: pair 1's frequency at s = 2
        calls.append(scaling)
        return scaling.frequencies(16, 2.0, 64)[1].item()

    points = grid_points("yarn")
    best, scored = choose(rope_scalings.get("yarn"), points, 16, 64, 2.0, loss_of)
    assert [p for p, _ in scored] == points
    distinct = {tuple(c.frequencies(16, 2.0, 64).tolist()) for c in calls}
    # at d 16, L 64 many points round to the same (low, high) (beta 4..32: low 0; alpha 0.5 and 1: high 3): scored once
    assert len(calls) == len(distinct) < len(points)
    lowest = min(loss for _, loss in scored)
    assert best == next(p for p, loss in scored if loss == lowest)  # the first of the best, published values first
