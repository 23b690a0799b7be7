"""Evaluation windows under both protocols score every target exactly once; training batches are windows of the text."""

import pytest
import torch

from suites.common.lm import eval_windows, evaluate_nll


@pytest.mark.parametrize("protocol,stride", [("nonoverlapping", 0), ("sliding", 16)])
def test_every_target_is_scored_once(protocol, stride):
    n, length = 256, 64
    scored = []
    for start, first in eval_windows(n, length, protocol, stride):
        scored += list(range(start + first, start + length))
    assert sorted(scored) == list(range(n))


def test_sliding_windows_give_later_tokens_long_context():
    windows = list(eval_windows(256, 64, "sliding", 16))
    assert all(first == 48 for _, first in windows[1:])


def test_unknown_protocol_is_an_error():
    with pytest.raises(ValueError, match="nonoverlapping, sliding"):
        list(eval_windows(10, 5, "strided", 1))


class Uniform(torch.nn.Module):
    def forward(self, x):
        return torch.zeros(*x.shape, 7)


def test_uniform_model_has_loss_log_vocab():
    ids = torch.randint(0, 7, (129,))
    total, count = evaluate_nll(Uniform(), ids, 32)
    assert count == 128
    assert total / count == pytest.approx(torch.log(torch.tensor(7.0)).item(), rel=1e-6)


def test_random_batches_are_shifted_windows_of_the_text_drawn_by_the_generator():
    from suites.common.lm import random_batch

    ids = torch.arange(100)
    x, y = random_batch(ids, 4, 8, torch.Generator().manual_seed(3))
    starts = torch.randint(0, 100 - 8 - 1, (4,), generator=torch.Generator().manual_seed(3))
    assert x.shape == y.shape == (4, 8)
    assert torch.equal(x, starts[:, None] + torch.arange(8)) and torch.equal(y, x + 1)
