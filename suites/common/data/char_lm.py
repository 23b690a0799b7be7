"""The character-LM recipe every LM suite shares: corpus -> train/held-out split -> vocabulary -> ids,
with the unigram and bigram entropies of the training split that tell whether a model learned anything.

A model that has learned only which character follows which reaches the bigram entropy at best; the
reports flag held-out losses that are not clearly below it (Shannon 1951's n-gram approximations are the
classic yardstick for character models).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import torch

from suites.common.data.corpora import load_corpus
from suites.common.data.text import DEFAULT_CORPUS, CharVocab, CorpusError, TextCorpus


def ngram_entropies(ids: torch.Tensor, vocab_size: int) -> tuple[float, float]:
    """(unigram entropy H(X), bigram conditional entropy H(X_t | X_t-1)) of a 1-D id sequence, nats/token.

    Plug-in (maximum-likelihood) estimates on the sequence itself: the loss a unigram or bigram model fitted
    to the training split reaches on that split, a lower bound for what either model scores on new text.
    """
    ids = ids.long()
    unigram = torch.bincount(ids, minlength=vocab_size).double()  # (V,)
    p = unigram / unigram.sum()
    h1 = -(p[p > 0] * p[p > 0].log()).sum().item()
    pairs = torch.bincount(ids[:-1] * vocab_size + ids[1:], minlength=vocab_size * vocab_size).double()
    joint = pairs.view(vocab_size, vocab_size)  # (previous, next) counts
    rows = joint.sum(dim=1, keepdim=True)
    nz = joint > 0
    cond = joint[nz] / rows.expand_as(joint)[nz]
    h2 = -(joint[nz] * cond.log()).sum().item() / joint.sum().item()
    return h1, h2


@dataclass(frozen=True)
class CharLMData:
    """A corpus split and encoded at the character level, with its n-gram baselines."""

    corpus: TextCorpus
    split: str
    vocab: CharVocab
    train_ids: torch.Tensor
    heldout_ids: torch.Tensor
    unigram_entropy: float
    bigram_entropy: float

    def eval_ids(self, tokens: int, multiple: int) -> torch.Tensor:
        """The first ``tokens`` held-out targets (rounded down to a multiple of ``multiple``) and their inputs."""
        n = max(0, min(tokens, self.heldout_ids.numel() - 1)) // multiple * multiple
        if n <= 0:
            raise CorpusError(
                f"The held-out split of {self.corpus.name} has {self.heldout_ids.numel()} characters, fewer than the "
                f"longest evaluation length {multiple}; use a larger corpus or shorter lengths."
            )
        return self.heldout_ids[: n + 1]

    def facts(self) -> dict[str, Any]:
        """What every record of a job trained on this data carries (the data checksum is added by the harness)."""
        return {
            "corpus": self.corpus.name,
            "split": self.split,
            "train_chars": int(self.train_ids.numel()),
            "heldout_chars": int(self.heldout_ids.numel()),
            "unigram_entropy": self.unigram_entropy,
            "bigram_entropy": self.bigram_entropy,
        }

    def passes(self, tokens: int) -> float:
        """How many times ``tokens`` training tokens read the training split."""
        return tokens / max(1, self.train_ids.numel())


def char_lm_data(source: str | None, heldout_fraction: float) -> CharLMData:
    """The recipe for ``data=`` (``pydoc``, ``bible`` or a file), computed once per process and corpus."""
    corpus = load_corpus(source or DEFAULT_CORPUS)
    return _prepare(corpus, heldout_fraction)


def check_fits(
    source: str | None, heldout_fraction: float, train_len: int, eval_len: int, eval_settings: str = "set.train_len"
) -> None:
    """A UsageError naming ``data`` when the corpus's splits cannot hold random training windows of
    ``train_len`` and one evaluation window of ``eval_len`` (``eval_settings`` says which settings make it).

    Checked when the plan is made, so that a tiny ``data=`` file is refused before any model is built.
    """
    from harness.errors import UsageError

    name = source or DEFAULT_CORPUS
    data = char_lm_data(source, heldout_fraction)
    have, need = int(data.train_ids.numel()), train_len + 2
    if have < need:
        raise UsageError(
            f"data={name} is too small for set.train_len={train_len}: its training split has {have} "
            f"characters and training windows need at least {need}; use a larger corpus "
            f"(data=pydoc, data=bible) or a smaller set.train_len."
        )
    have, need = int(data.heldout_ids.numel()), eval_len + 1
    if have < need:
        raise UsageError(
            f"data={name} is too small for evaluation at length {eval_len} ({eval_settings}): its held-out "
            f"split ({data.split}) has {have} characters and needs at least {need}; use a larger corpus "
            f"(data=pydoc, data=bible), a larger set.heldout_fraction or shorter evaluation lengths."
        )


@functools.lru_cache(maxsize=4)
def _prepare(corpus: TextCorpus, heldout_fraction: float) -> CharLMData:
    train_text, heldout_text = corpus.train_heldout(heldout_fraction)
    if len(train_text) < 2:
        raise CorpusError(
            f"data={corpus.name} is too small: its training split has {len(train_text)} characters; "
            f"it needs at least 2 (data=pydoc, data=bible or a larger text file)."
        )
    vocab = CharVocab.from_text(train_text)
    train_ids, heldout_ids = vocab.encode(train_text), vocab.encode(heldout_text)
    h1, h2 = ngram_entropies(train_ids, vocab.size)
    return CharLMData(corpus, corpus.split_description(heldout_fraction), vocab, train_ids, heldout_ids, h1, h2)
