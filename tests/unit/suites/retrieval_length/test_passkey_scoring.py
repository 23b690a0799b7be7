"""Scoring counts a sequence only when all five key digits are right, and the effective length is RULER's, adapted."""

import torch

from suites.common.data.text import CharVocab
from suites.retrieval_length.effective import THRESHOLD, effective_length, effective_text
from suites.retrieval_length.passkey import PasskeyGenerator, overhead
from suites.retrieval_length.scoring import exact_match, score_length


def one_hot(ids: torch.Tensor, vocab: int) -> torch.Tensor:
    return torch.nn.functional.one_hot(ids, vocab).float()


def test_exact_match_needs_every_digit():
    targets = torch.tensor([[9, 1, 2, 3, 4, 5], [9, 1, 2, 3, 4, 5], [9, 1, 2, 3, 4, 5]])
    predicted = torch.tensor([[0, 1, 2, 3, 4, 5], [9, 1, 2, 3, 4, 6], [1, 2, 3, 4, 5, 9]])
    hits = exact_match(one_hot(predicted, 10), targets, 5)
    assert hits.tolist() == [True, False, False]  # only the answer positions count; one wrong digit fails


class Oracle(torch.nn.Module):
    """Predicts each next character perfectly, except that it gets the key wrong past ``reach`` positions."""

    def __init__(self, vocab: int, reach: int):
        super().__init__()
        self.vocab, self.reach = vocab, reach
        self.targets = None

    def forward(self, x):
        logits = one_hot(self.targets, self.vocab) * 10
        if x.shape[1] > self.reach:
            logits[:, -1] = logits[:, -1].roll(1, dims=-1)  # the first digit wrong
        return logits


def test_score_length_counts_exact_matches_per_depth():
    vocab = CharVocab("".join(sorted(set("abcdefghijklmnopqrstuvwxyz .?0123456789"))))
    gen = PasskeyGenerator(vocab, vocab.encode("lorem ipsum dolor sit amet " * 100))
    model = Oracle(vocab.size, reach=100)
    original = gen.batch

    def batch(*args, **kwargs):  # the oracle sees the targets of the batch it is given
        b = original(*args, **kwargs)
        model.targets = b.targets
        return b

    gen.batch = batch
    short = score_length(model, gen, 64, (0.0, 1.0), 8)
    long = score_length(model, gen, 128, (0.0, 1.0), 8)
    assert short.accuracy == (1.0, 1.0) and short.mean_accuracy == 1.0
    assert long.accuracy == (0.0, 0.0)
    filler = 64 + 1 - overhead()  # every filler character is a target, but the sequence's first (depth 1: filler first)
    assert short.chars == 8 * filler + 8 * (filler - 1) and short.text_loss < 0.01


def test_effective_length_is_the_longest_length_above_the_threshold_from_l_on():
    assert THRESHOLD == 0.8
    assert effective_length({64: 1.0, 128: 0.9, 256: 0.5, 512: 0.1}) == 128
    assert effective_length({64: 1.0, 128: 0.7, 256: 0.95}) == 64  # a recovery after a failure is not credited
    assert effective_length({64: 0.79, 128: 0.9}) == 0
    assert effective_length({64: 0.8, 128: 0.8, 256: 0.8}) == 256  # at the threshold counts
    assert effective_length({64: 1.0, 128: 0.5}, threshold=0.4) == 128
    assert effective_text(256, 64) == "256 (4L)" and "below" in effective_text(0, 64)
