"""The recall suite's task generators against separate solvers, and their chance levels against a count over samples."""

import math
from collections import Counter

import pytest
import torch

from suites.recall.tasks import IGNORE, MQAR, Addition, Copy, Reverse

GEN_SEED = 123


def _answers(x, y):
    """The answer tokens a batch asks for, per sequence, read from the targets (the token after each scored position)."""
    return [[int(t) for t in row[row != IGNORE]] for row in y]


def solve_mqar(tokens, keys):
    """Read the context's pairs into a dict, then answer each query: the value its key was bound to."""
    seq = [int(t) for t in tokens]
    n = len(seq) // 4
    bound = {seq[2 * i]: seq[2 * i + 1] for i in range(n)}
    queries = seq[2 * n :: 2]
    assert all(q < keys for q in queries) and len(set(bound)) == n
    return [bound[q] for q in queries]


def solve_string(tokens, alphabet, reverse):
    """The symbols between BOS and SEP, copied or reversed."""
    seq = [int(t) for t in tokens]
    assert seq[0] == alphabet
    sep = seq.index(alphabet + 1)
    s = seq[1:sep]
    return s[::-1] if reverse else s


def solve_addition(tokens):
    """Python integers: parse both operands (least-significant digit first) and write their sum the same way."""
    seq = [int(t) for t in tokens]
    plus, sep = seq.index(11), seq.index(12)
    a = int("".join(str(d) for d in reversed(seq[1:plus])))
    b = int("".join(str(d) for d in reversed(seq[plus + 1 : sep])))
    width = plus - 1
    return [int(c) for c in reversed(str(a + b).zfill(width + 1))]


@pytest.mark.parametrize("size", [1, 3, 8])
def test_mqar_answers_are_the_bound_values(size):
    task = MQAR(keys=16, values=10)
    x, y = task.batch(50, size, torch.Generator().manual_seed(GEN_SEED))
    assert x.shape == (50, task.length(size)) and int(x.max()) < task.vocab_size
    for row, answer in zip(x, _answers(x, y)):
        assert answer == solve_mqar(row, 16)
        assert all(16 <= a < 26 for a in answer)


@pytest.mark.parametrize("task,reverse", [(Copy(alphabet=7), False), (Reverse(), True)])
@pytest.mark.parametrize("size", [1, 5, 20])
def test_string_answers_match_the_solver(task, reverse, size):
    x, y = task.batch(50, size, torch.Generator().manual_seed(GEN_SEED))
    assert x.shape == (50, task.length(size)) and int(x.max()) < task.vocab_size
    for row, answer in zip(x, _answers(x, y)):
        assert answer == solve_string(row, task.alphabet, reverse)
        assert len(answer) == size


@pytest.mark.parametrize("size", [1, 4, 12])
def test_addition_answers_are_the_sums(size):
    task = Addition()
    x, y = task.batch(200, size, torch.Generator().manual_seed(GEN_SEED))
    assert x.shape == (200, task.length(size)) and int(x.max()) < task.vocab_size
    for row, answer in zip(x, _answers(x, y)):
        assert answer == solve_addition(row)


def test_targets_sit_one_position_before_their_answer_token():
    task = Addition()
    x, y = task.batch(4, 3, torch.Generator().manual_seed(0))
    start, n = task.answer_span(3)
    assert (y[:, start - 1 : start - 1 + n] == x[:, start : start + n]).all()
    assert (y[:, : start - 1] == IGNORE).all() and (y[:, start - 1 + n :] == IGNORE).all()


def _blind_best(task, size, n=20_000):
    """Per answer position, the frequency of its most frequent token over n drawn sequences (the best blind guess)."""
    x, y = task.batch(n, size, torch.Generator().manual_seed(7))
    answers = torch.tensor(_answers(x, y))  # (n, positions)
    per = [Counter(answers[:, j].tolist()).most_common(1)[0][1] / n for j in range(answers.shape[1])]
    return per, answers


@pytest.mark.parametrize(
    "task,size", [(MQAR(keys=8, values=4), 3), (Copy(alphabet=5), 4), (Reverse(), 3), (Addition(), 1), (Addition(), 2)]
)
def test_chance_levels_are_the_best_blind_guess(task, size):
    """Stated chance per position within 4 standard errors of the count; per token the mean, per sequence the product."""
    per, answers = _blind_best(task, size)
    stated = task.chance_per_position(size)
    assert len(stated) == len(per)
    n = answers.shape[0]
    for got, want in zip(per, stated):
        # the most frequent of k near-equal tokens is biased upward by about sqrt(p / n); 6 standard errors cover it
        assert abs(got - want) < 6 * math.sqrt(want * (1 - want) / n) + 1e-9, (got, want)
    assert task.chance_token(size) == pytest.approx(sum(stated) / len(stated))
    assert task.chance_sequence(size) == pytest.approx(math.prod(stated))


def test_addition_chance_counts_every_operand_pair():
    """Exactly, over all 100 x 100 pairs of 2-digit operands: the carry out is 1 for 4950 of 10000."""
    carries = sum(a + b >= 100 for a in range(100) for b in range(100))
    assert Addition().chance_per_position(2)[-1] == pytest.approx(1 - carries / 10_000)
    assert Addition().chance_per_position(2)[:2] == [0.1, 0.1]


def test_mqar_key_blind_guess_is_exact_at_two_pairs_and_far_above_one_in_n():
    # two pairs: the first query is right for sure when both values are equal (1/V), else half the time; the second
    # query's value is the one left: (1 + (1/V + (1 - 1/V) / 2)) / 2
    task = MQAR(keys=64, values=64)
    v = task.values
    assert task.key_blind_guess(1) == 1.0
    assert task.key_blind_guess(2) == pytest.approx((1 + 1 / v + (1 - 1 / v) / 2) / 2, abs=0.01)
    # about H_N / N, never below it (repeated values only help), and at least twice 1/N
    for n in (4, 8, 16):
        harmonic = sum(1 / k for k in range(1, n + 1)) / n
        assert harmonic - 0.01 <= task.key_blind_guess(n) and task.key_blind_guess(n) > 2 / n
