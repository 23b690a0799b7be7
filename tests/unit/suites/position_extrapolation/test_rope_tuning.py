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


def test_the_scalings_are_tuned_at_the_length_their_verdicts_read(monkeypatch):
    """A stand-in model records every length the sweep scores; it must be the length the NTK and YaRN verdicts
    compare (JUDGED_MULTIPLIER x L), never a shorter one."""
    from types import SimpleNamespace

    from suites.position_extrapolation.suite import PositionExtrapolation
    from suites.position_extrapolation.tuning import JUDGED_MULTIPLIER

    train_len, scored = 64, []
    position = SimpleNamespace(scaling=rope_scalings.get("ntk"), scale="auto")
    position.scale_rope = lambda scaling, scale: setattr(position, "scaling", scaling)
    model = SimpleNamespace(position=position, set_context_length=lambda n: scored.append(("context", n)))

    def nll(self, m, ids, length, profile, ctx):
        scored.append(("windows", length))
        return 1.0, 1

    monkeypatch.setattr(PositionExtrapolation, "_nll", nll)
    spec = SimpleNamespace(rope_scaling="ntk", head_dim=16)
    data = SimpleNamespace(train_ids=torch.arange(100_000), heldout_ids=torch.arange(200_000))
    ctx = SimpleNamespace(facts={})
    records = PositionExtrapolation()._tuned_scaling(
        model, spec, data, torch.arange(65_537), SimpleNamespace(train_len=train_len), ctx
    )
    assert records and {m.extra["eval_length"] for m in records} == {JUDGED_MULTIPLIER * train_len}
    assert {n for _, n in scored} == {JUDGED_MULTIPLIER * train_len}
    # the verdicts read the same length: NTK-aware's and YaRN's comparisons name it
    from tests.unit.suites.position_extrapolation.claims._records import PUBLISHED_SHAPE, judged
    from tests.unit.suites.position_extrapolation.claims._records import records as curves

    found = judged(curves(PUBLISHED_SHAPE))
    assert all(f"ppl({JUDGED_MULTIPLIER}L)" in e.label for k in ("ntk_close", "yarn_close") for e in found[k].estimates)
