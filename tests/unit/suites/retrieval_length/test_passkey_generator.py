"""The passkey generator puts the needle at the declared depth, and the key is recoverable from the sequence."""

import pytest
import torch

from suites.common.data.text import CharVocab
from suites.retrieval_length.passkey import (
    NEEDLE,
    QUESTION,
    PasskeyGenerator,
    distance,
    key_offset,
    needle_start,
    overhead,
)

VOCAB = CharVocab("".join(sorted(set("abcdefghijklmnopqrstuvwxyz .?0123456789"))))
FILLER = VOCAB.encode("the grass is green and the sky is blue " * 200)


def decoded(batch, i):
    return VOCAB.decode(torch.cat([batch.inputs[i], batch.targets[i, -1:]]))


@pytest.mark.parametrize("length", [64, 128, 500])
@pytest.mark.parametrize("depth", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_the_needle_sits_at_its_depth_and_the_key_is_recoverable(length, depth):
    gen = PasskeyGenerator(VOCAB, FILLER)
    batch = gen.batch(3, length, torch.Generator().manual_seed(1), depths=[depth] * 3)
    assert batch.inputs.shape == batch.targets.shape == (3, length)
    assert torch.equal(batch.inputs[:, 1:], batch.targets[:, :-1])  # targets are the inputs shifted by one
    filler = length + 1 - overhead()
    start = needle_start(length, depth)
    assert start == round(depth * filler)
    for i, key in enumerate(batch.keys):
        text = decoded(batch, i)
        assert len(key) == 5 and key.isdigit()
        assert text[start : start + len(NEEDLE.format(key=key))] == NEEDLE.format(key=key)
        assert text.endswith(QUESTION + key)  # the answer is the last five characters
        assert text[start + key_offset() : start + key_offset() + 5] == key
        # the first answer digit is predicted at the last input; the key's first digit lies `distance` back
        assert (length - 1) - distance(length, depth) == start + key_offset()


def test_depth_zero_puts_the_needle_first_and_one_right_before_the_question():
    gen = PasskeyGenerator(VOCAB, FILLER)
    first = decoded(gen.batch(1, 100, torch.Generator().manual_seed(0), depths=[0.0]), 0)
    last = decoded(gen.batch(1, 100, torch.Generator().manual_seed(0), depths=[1.0]), 0)
    assert first.startswith(NEEDLE.split("{key}")[0])
    before = NEEDLE.split("{key}")[1] + QUESTION
    assert before in last and last.index(before) == len(last) - 5 - len(before)


def test_keys_vary_and_the_draws_repeat_from_a_seed():
    gen = PasskeyGenerator(VOCAB, FILLER)
    a = gen.batch(16, 64, torch.Generator().manual_seed(3))
    b = gen.batch(16, 64, torch.Generator().manual_seed(3))
    assert a.keys == b.keys and torch.equal(a.inputs, b.inputs)
    assert len(set(a.keys)) > 10


def test_a_length_too_short_for_the_needle_is_refused():
    with pytest.raises(ValueError, match="cannot hold"):
        PasskeyGenerator(VOCAB, FILLER).batch(1, overhead() - 3, torch.Generator())
