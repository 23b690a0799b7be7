"""English number phrases translated to French, generated with ``num2words`` (no download).

Each sentence is a list of numbers written out in words and joined by "; " ("three hundred and five;
twelve" -> "trois cent cinq ; douze"). French reorders and rewrites the English ("ninety-seven" ->
"quatre-vingt-dix-sept", "twenty-one" -> "vingt et un", "one thousand and two" -> "mille deux"), and
the source length in words is drawn uniformly from 1 to ``max_words``, so every source-length bucket
holds about as many test sentences as any other. The splits are fixed by the generator's seed; a test
or validation source never appears in the training split.
"""

from __future__ import annotations

import random

Pair = tuple[str, str]

#: the corpus behind ``data=numbers_en_fr``: sizes, longest source and the generator's seed
TRAIN, VALID, TEST, MAX_WORDS, SEED = 30000, 500, 1000, 40, 20140901


#: numbers of four to six digits come from a fixed pool of this many (num2words takes ~0.5 ms a call)
POOL = 4000


class Phrases:
    """Every number below 1000 and a seeded pool of larger ones, written out in English and French."""

    def __init__(self, rng: random.Random, pool: int = POOL):
        from num2words import num2words

        small = list(range(1000))
        large = sorted({rng.randint(10 ** (d - 1), 10**d - 1) for d in (rng.randint(4, 6) for _ in range(pool))})
        self.by_digits = {d: [n for n in small if len(str(n)) == d] for d in (1, 2, 3)}
        self.by_digits.update({d: [n for n in large if len(str(n)) == d] for d in (4, 5, 6)})
        self.words = {n: (num2words(n, lang="en"), num2words(n, lang="fr")) for n in small + large}

    def draw(self, rng: random.Random) -> int:
        """A number whose digit count is uniform in 1..6, so short and long phrases are equally common."""
        return rng.choice(self.by_digits[rng.randint(1, 6)])


def sentence(rng: random.Random, phrases: Phrases, n_words: int) -> Pair:
    """A (English, French) pair whose English side has exactly ``n_words`` words."""
    english: list[str] = []
    french: list[str] = []
    left = n_words
    while left > 0:
        for _ in range(50):
            en, fr = phrases.words[phrases.draw(rng)]
            if len(en.split()) <= left:
                break
        else:  # nothing fitted in 50 draws: a number below 100 is one word and always fits
            en, fr = phrases.words[rng.randint(0, 99)]
        english.append(en)
        french.append(fr)
        left -= len(en.split())
    return "; ".join(english), " ; ".join(french)


def _split(rng: random.Random, phrases: Phrases, size: int, max_words: int, taken: set[str]) -> list[Pair]:
    pairs: list[Pair] = []
    while len(pairs) < size:
        pair = sentence(rng, phrases, rng.randint(1, max_words))
        if pair[0] not in taken:
            taken.add(pair[0])
            pairs.append(pair)
    return pairs


def generate(
    train: int = TRAIN, valid: int = VALID, test: int = TEST, max_words: int = MAX_WORDS, seed: int = SEED
) -> tuple[list[Pair], list[Pair], list[Pair]]:
    """(train, valid, test) pairs; the test split is drawn first, then validation, then training."""
    rng = random.Random(seed)
    phrases = Phrases(rng)
    taken: set[str] = set()
    test_pairs = _split(rng, phrases, test, max_words, taken)
    valid_pairs = _split(rng, phrases, valid, max_words, taken)
    # training sources may repeat among themselves (short ones must), never a held-out source
    train_pairs: list[Pair] = []
    while len(train_pairs) < train:
        pair = sentence(rng, phrases, rng.randint(1, max_words))
        if pair[0] not in taken:
            train_pairs.append(pair)
    return train_pairs, valid_pairs, test_pairs
