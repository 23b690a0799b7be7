"""The recall suite's synthetic tasks, generated in code from a seed: associative recall, copying, reversing, adding.

Every task writes a prompt, then its answer; the model reads the whole sequence (teacher forcing) and is scored
on the answer tokens only: the target at position t is token t + 1 where token t + 1 belongs to the answer,
IGNORE elsewhere. A sequence is right when every one of its answer tokens is (under teacher forcing that is
exactly when greedy decoding from the prompt writes the whole answer). ``size`` is the task's difficulty knob:
the number of key-value pairs (MQAR) or the length of the string (copy, reverse) or of each operand (addition).

- ``mqar``: multi-query associative recall (Arora et al. 2023, Zoology, arXiv 2312.04927): N key-value pairs
  k_1 v_1 ... k_N v_N (distinct keys, values drawn with replacement), then every key once more in a random
  order, each followed by its value, which is the answer.
- ``copy``: a random string, a delimiter and the string again (Jelassi et al. 2024, arXiv 2402.01032).
- ``reverse``: a string of digits, a delimiter and the digits in reverse order (Kazemnejad et al. 2023, arXiv
  2305.19466, whose tasks include copy, reverse and addition).
- ``addition``: two L-digit numbers and their (L + 1)-digit sum, every number written least-significant digit
  first, so that each answer digit depends on digits already read (Lee et al. 2023, arXiv 2307.03381, find
  reversed outputs learnable by small Transformers).

Chance is the best guess that does not read the prompt: the most frequent token at each answer position (1 /
alphabet for a uniform symbol; the sum's last digit, the carry, is 0 with probability (10^L + 1) / (2 10^L)).
MQAR has a second, higher guessing level: a model that reads the values in context but binds no key to its value
(``MQAR.key_blind_guess``), against which recall is judged.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch

#: the target of every position that is not followed by an answer token (F.cross_entropy's ignore_index)
IGNORE = -100


@dataclass(frozen=True)
class Task:
    """One task: its vocabulary, how a batch of a given size is drawn, where its answer lies and its chance level."""

    name: str = ""
    #: what the size means, for the report's axes
    size_name: str = "length"

    @property
    def vocab_size(self) -> int:
        raise NotImplementedError

    def length(self, size: int) -> int:
        """Tokens in a sequence of this size."""
        raise NotImplementedError

    def answer_span(self, size: int) -> tuple[int, int]:
        """(index of the first answer token, answer tokens) in a sequence of this size."""
        raise NotImplementedError

    def answer_positions(self, size: int) -> list[int]:
        """Indices of the answer tokens (contiguous unless a task says otherwise)."""
        start, n = self.answer_span(size)
        return list(range(start, start + n))

    def sequences(self, n: int, size: int, gen: torch.Generator) -> torch.Tensor:
        """n sequences (n, length(size)) of token ids, prompt and answer."""
        raise NotImplementedError

    def batch(self, n: int, size: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """(tokens (n, T), targets (n, T)): target t = token t + 1 where t + 1 is an answer token, IGNORE elsewhere."""
        x = self.sequences(n, size, gen)
        y = torch.full_like(x, IGNORE)
        at = torch.tensor(self.answer_positions(size))
        y[:, at - 1] = x[:, at]
        return x, y

    def chance_per_position(self, size: int) -> list[float]:
        """The best prompt-blind guess's accuracy at each answer position."""
        raise NotImplementedError

    def chance_token(self, size: int) -> float:
        """Chance per answer token: the mean of ``chance_per_position``."""
        per = self.chance_per_position(size)
        return sum(per) / len(per)

    def chance_sequence(self, size: int) -> float:
        """Chance of a whole answer right: the product over positions (each position's best guess is independent of
        the others' here: symbols are drawn independently, and the carry digit is the only non-uniform one)."""
        return math.prod(self.chance_per_position(size))


@dataclass(frozen=True)
class MQAR(Task):
    """Multi-query associative recall: N key-value pairs, then each key again, followed by its value (the answer)."""

    name: str = "mqar"
    size_name: str = "key-value pairs"
    keys: int = 64
    values: int = 64

    @property
    def vocab_size(self) -> int:
        return self.keys + self.values  # keys 0..K-1, values K..K+V-1

    def length(self, size: int) -> int:
        return 4 * size

    def answer_positions(self, size: int) -> list[int]:
        return [2 * size + 2 * i + 1 for i in range(size)]  # the value after each query

    def sequences(self, n: int, size: int, gen: torch.Generator) -> torch.Tensor:
        if size > self.keys:
            raise ValueError(f"MQAR with {size} key-value pairs needs at least {size} keys, not {self.keys}")
        keys = torch.argsort(torch.rand(n, self.keys, generator=gen), dim=1)[:, :size]  # distinct keys (n, N)
        values = self.keys + torch.randint(0, self.values, (n, size), generator=gen)
        order = torch.argsort(torch.rand(n, size, generator=gen), dim=1)  # each key queried once, shuffled
        queries, answers = keys.gather(1, order), values.gather(1, order)
        context = torch.stack([keys, values], dim=2).flatten(1)  # k1 v1 k2 v2 ...
        asked = torch.stack([queries, answers], dim=2).flatten(1)  # q1 a1 q2 a2 ...
        return torch.cat([context, asked], dim=1)

    def chance_per_position(self, size: int) -> list[float]:
        return [1.0 / self.values] * size

    @functools.cache  # noqa: B019  (a frozen task is hashable and lives as long as its suite; the verdicts ask again)
    def key_blind_guess(self, size: int, sequences: int = 4096) -> float:
        """Token accuracy of the best guess that reads the values in context but binds no key to its value: at each
        query, the most frequent value among those not yet answered (teacher forcing shows the earlier answers).

        About H_N / N at N pairs (H_N the harmonic number; repeated values raise it a little): 1 at one pair, 0.75
        at two, well above 1/N. A model that recalls nothing can score this much, so recall is accuracy above it.
        Estimated on ``sequences`` sequences drawn from a fixed generator (the same number every call)."""
        x = self.sequences(sequences, size, torch.Generator().manual_seed(0))  # (n, 4N)
        context, answers = (
            x[:, 1 : 2 * size : 2],
            x[:, 2 * size + 1 :: 2],
        )  # values in context, answers in query order (n, N)
        left = torch.zeros(sequences, self.vocab_size).scatter_add_(1, context, torch.ones(context.shape))  # (n, V)
        right = 0.0
        for j in range(size):
            right += float((left.argmax(1) == answers[:, j]).float().mean())
            left.scatter_add_(1, answers[:, j : j + 1], -torch.ones(sequences, 1))  # answered: no longer a candidate
        return right / size


@dataclass(frozen=True)
class StringTask(Task):
    """BOS, a random string of ``size`` symbols from ``alphabet``, SEP, then the answer the string maps to."""

    alphabet: int = 10

    @property
    def vocab_size(self) -> int:
        return self.alphabet + 2  # symbols, BOS, SEP

    @property
    def bos(self) -> int:
        return self.alphabet

    @property
    def sep(self) -> int:
        return self.alphabet + 1

    def length(self, size: int) -> int:
        return 2 * size + 2

    def answer_span(self, size: int) -> tuple[int, int]:
        return size + 2, size

    def answer(self, string: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def sequences(self, n: int, size: int, gen: torch.Generator) -> torch.Tensor:
        s = torch.randint(0, self.alphabet, (n, size), generator=gen)
        bos, sep = torch.full((n, 1), self.bos), torch.full((n, 1), self.sep)
        return torch.cat([bos, s, sep, self.answer(s)], dim=1)

    def chance_per_position(self, size: int) -> list[float]:
        return [1.0 / self.alphabet] * size


@dataclass(frozen=True)
class Copy(StringTask):
    """Copy a random string after a delimiter."""

    name: str = "copy"
    alphabet: int = 26

    def answer(self, string: torch.Tensor) -> torch.Tensor:
        return string


@dataclass(frozen=True)
class Reverse(StringTask):
    """Write a string of digits in reverse order after a delimiter."""

    name: str = "reverse"
    alphabet: int = 10

    def answer(self, string: torch.Tensor) -> torch.Tensor:
        return string.flip(1)


@dataclass(frozen=True)
class Addition(Task):
    """BOS a PLUS b SEP c: two ``size``-digit numbers and their (size + 1)-digit sum, least-significant digit first."""

    name: str = "addition"
    size_name: str = "digits per operand"

    @property
    def vocab_size(self) -> int:
        return 13  # digits 0-9, BOS 10, PLUS 11, SEP 12

    def length(self, size: int) -> int:
        return 3 * size + 4

    def answer_span(self, size: int) -> tuple[int, int]:
        return 2 * size + 3, size + 1

    def sequences(self, n: int, size: int, gen: torch.Generator) -> torch.Tensor:
        a = torch.randint(0, 10, (n, size), generator=gen)
        b = torch.randint(0, 10, (n, size), generator=gen)
        digits, carry = [], torch.zeros(n, dtype=torch.long)
        for i in range(size):  # column addition from the least-significant digit, which comes first
            total = a[:, i] + b[:, i] + carry
            digits.append(total % 10)
            carry = total // 10
        c = torch.stack(digits + [carry], dim=1)  # (n, size + 1)
        col = lambda v: torch.full((n, 1), v)  # noqa: E731
        return torch.cat([col(10), a, col(11), b, col(12), c], dim=1)

    def chance_per_position(self, size: int) -> list[float]:
        # the sum's digits below the top are uniform; the top one is the carry out of a + b, a, b uniform on
        # [0, N), N = 10^size: P(a + b >= N) = (N - 1) / (2N), so 0 is the better guess, right (N + 1) / (2N)
        N = 10**size
        return [0.1] * size + [(N + 1) / (2 * N)]


def mqar_of(settings) -> MQAR:
    """The MQAR task a group's profile settings trained (its keys and values; MQAR's own where they lack them)."""
    return MQAR(keys=settings.get("mqar_keys", MQAR.keys), values=settings.get("mqar_values", MQAR.values))


#: task name -> its class (the profile chooses among them and sets their parameters)
TASKS: dict[str, type] = {"mqar": MQAR, "copy": Copy, "reverse": Reverse, "addition": Addition}
#: the tasks whose training sizes stop at n and whose evaluation reaches past it (length generalisation)
LENGTH_TASKS = ("copy", "reverse", "addition")
