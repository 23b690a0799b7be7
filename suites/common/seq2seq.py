"""Sequence-to-sequence helpers shared by suites: tokenised splits, length-sorted batches, loss, translation.

Sources end with EOS; the decoder reads BOS + reference (teacher forcing) and predicts reference + EOS.
Training batches hold pairs of similar source length (sorted, cut into batches, batches shuffled each
epoch with the job's seed), so little compute goes to padding.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from torch.nn import functional as F

from suites.common.data.corpora import load_parallel
from suites.common.data.parallel import ParallelCorpus
from suites.common.data.subword import SubwordVocab
from variants.decode.beam_search import beam_search, greedy
from variants.seq2seq_spec import BOS, EOS, PAD

Ids = list[int]


@dataclass
class EncodedCorpus:
    """A corpus, its joint subword vocabulary and every split as token ids (pairs too long are dropped)."""

    corpus: ParallelCorpus
    vocab: SubwordVocab
    train: list[tuple[Ids, Ids]]
    valid: list[tuple[Ids, Ids]]
    test: list[tuple[Ids, Ids]]
    test_pairs: list[tuple[str, str]]  # the text of the test pairs kept, in the same order
    dropped: dict[str, int]


def encode_corpus(data: str, vocab_size: int, max_len: int) -> EncodedCorpus:
    """Train the vocabulary on the training split and encode every split; sides over max_len tokens drop."""
    return _encode(load_parallel(data), vocab_size, max_len)


@functools.lru_cache(maxsize=4)
def _encode(corpus: ParallelCorpus, vocab_size: int, max_len: int) -> EncodedCorpus:
    vocab = SubwordVocab.train([side for pair in corpus.train for side in pair], vocab_size)
    splits, dropped, kept_text = {}, {}, []
    for name in ("train", "valid", "test"):
        pairs = getattr(corpus, name)
        src, tgt = vocab.encode([p[0] for p in pairs]), vocab.encode([p[1] for p in pairs])
        keep = [i for i in range(len(pairs)) if 0 < len(src[i]) < max_len and 0 < len(tgt[i]) < max_len]
        splits[name] = [(src[i] + [EOS], tgt[i]) for i in keep]
        dropped[name] = len(pairs) - len(keep)
        if name == "test":
            kept_text = [pairs[i] for i in keep]
    return EncodedCorpus(corpus, vocab, splits["train"], splits["valid"], splits["test"], kept_text, dropped)


def pad(seqs: Sequence[Ids], device: str = "cpu") -> torch.Tensor:
    """Right-pad id lists with PAD into a (B, max length) tensor."""
    out = torch.full((len(seqs), max(len(s) for s in seqs)), PAD, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, : len(s)] = torch.tensor(s, dtype=torch.long)
    return out.to(device)


def teacher_batch(
    pairs: Sequence[tuple[Ids, Ids]], device: str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(src (B, S), decoder input BOS + y (B, T), targets y + EOS (B, T))."""
    src = pad([p[0] for p in pairs], device)
    tgt_in = pad([[BOS] + p[1] for p in pairs], device)
    tgt_out = pad([p[1] + [EOS] for p in pairs], device)
    return src, tgt_in, tgt_out


def length_batches(
    pairs: Sequence[tuple[Ids, Ids]], batch_size: int, generator: torch.Generator
) -> Iterator[list[tuple[Ids, Ids]]]:
    """Endless batches of pairs of similar source length, in a fresh random order every epoch."""
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][0]), len(pairs[i][1])))
    chunks = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    while True:
        for j in torch.randperm(len(chunks), generator=generator).tolist():
            yield [pairs[i] for i in chunks[j]]


def seq2seq_loss(
    model, src: torch.Tensor, tgt_in: torch.Tensor, tgt_out: torch.Tensor, reduction: str = "mean"
) -> torch.Tensor:
    """Cross-entropy of the reference tokens (padding ignored), nats per token."""
    logits = model(src, tgt_in)  # (B, T, V)
    return F.cross_entropy(logits.flatten(0, 1).float(), tgt_out.flatten(), ignore_index=PAD, reduction=reduction)


@torch.inference_mode()
def mean_loss(model, pairs: Sequence[tuple[Ids, Ids]], batch_size: int = 64, device: str = "cpu") -> float:
    """Teacher-forced cross-entropy per target token over every pair."""
    total, count = 0.0, 0
    for i in range(0, len(pairs), batch_size):
        src, tgt_in, tgt_out = teacher_batch(pairs[i : i + batch_size], device)
        total += seq2seq_loss(model, src, tgt_in, tgt_out, reduction="sum").item()
        count += int(tgt_out.ne(PAD).sum())
    return total / max(count, 1)


def translate(
    model,
    sources: Sequence[Ids],
    *,
    beam_size: int = 1,
    alpha: float = 0.0,
    batch_size: int = 64,
    device: str = "cpu",
    progress=None,
) -> list[Ids]:
    """Token ids of the translation of every source, greedy (beam_size 1) or by beam search."""
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    out: list[Ids] = [[] for _ in sources]
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        src = pad([sources[i] for i in chunk], device)
        if beam_size == 1:
            hyps = greedy(model, src)
        else:
            hyps = beam_search(model, src, beam_size=beam_size, alpha=alpha)
        for i, hyp in zip(chunk, hyps):
            out[i] = hyp
        if progress is not None:
            progress.update(len(chunk))
    return out
