"""Batched greedy and beam-search decoding for any sequence-to-sequence model.

A model offers ``start(src) -> state`` and ``step(state, tokens) -> (log_probs, state)``, where every
tensor of the state is batch-first, so hypotheses are reordered with ``index_select``. Beam search keeps
``beam_size`` hypotheses per sentence ranked by total log-probability; a finished hypothesis keeps its
score and extends with padding. The winner among the final hypotheses maximises log P(Y | X) / lp(Y),
with the length penalty lp(Y) = ((5 + |Y|) / 6)^alpha of Wu et al. 2016 (arXiv 1609.08144); alpha = 0
ranks by log-probability alone. With one beam the search is exactly greedy decoding.
"""

from __future__ import annotations

import torch

from ..seq2seq_spec import BOS, EOS, PAD

State = dict[str, torch.Tensor | int]


def select(state: State, index: torch.Tensor) -> State:
    """The state of the hypotheses ``index`` (N',) picks along the batch dimension (numbers such as a cached
    length are the same for every hypothesis and kept)."""
    return {k: v.index_select(0, index) if torch.is_tensor(v) else v for k, v in state.items()}


def max_steps(src: torch.Tensor, ratio: float, extra: int) -> int:
    """Decoding budget in tokens: ratio x the longest source (in tokens) + extra."""
    return int(src.ne(PAD).sum(1).max().item() * ratio) + extra


def _strip(rows: torch.Tensor) -> list[list[int]]:
    """(B, T) generated ids -> one list per sentence, cut at the first EOS (EOS and padding dropped)."""
    out = []
    for row in rows.tolist():
        out.append(row[: row.index(EOS)] if EOS in row else row)
    return out


@torch.inference_mode()
def greedy(model, src: torch.Tensor, *, ratio: float = 2.0, extra: int = 10) -> list[list[int]]:
    """The most probable next token at every step, for a batch of sources (B, S)."""
    state = model.start(src)
    B = src.shape[0]
    tokens = torch.full((B,), BOS, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    out = []
    for _ in range(max_steps(src, ratio, extra)):
        log_probs, state = model.step(state, tokens)
        tokens = log_probs.argmax(-1).masked_fill(done, PAD)
        out.append(tokens)
        done |= tokens.eq(EOS)
        if done.all():
            break
    return _strip(torch.stack(out, 1))


def length_penalty(lengths: torch.Tensor, alpha: float) -> torch.Tensor:
    """((5 + |Y|) / 6)^alpha (Wu et al. 2016)."""
    return ((5.0 + lengths.float()) / 6.0) ** alpha


@torch.inference_mode()
def beam_search(
    model, src: torch.Tensor, *, beam_size: int = 4, alpha: float = 0.0, ratio: float = 2.0, extra: int = 10
) -> list[list[int]]:
    """Beam search with ``beam_size`` hypotheses per source sentence; returns the best of each."""
    B, K = src.shape[0], beam_size
    device = src.device
    state = select(model.start(src), torch.arange(B, device=device).repeat_interleave(K))  # (B*K, ...)
    scores = torch.full((B, K), float("-inf"), dtype=torch.float64, device=device)  # float64: no ties from rounding
    scores[:, 0] = 0.0  # all beams start identical: keep one so the first step does not pick duplicates
    tokens = torch.full((B * K,), BOS, dtype=torch.long, device=device)
    done = torch.zeros(B * K, dtype=torch.bool, device=device)
    lengths = torch.zeros(B * K, dtype=torch.long, device=device)
    history = torch.zeros(B * K, 0, dtype=torch.long, device=device)
    for _ in range(max_steps(src, ratio, extra)):
        log_probs, state = model.step(state, tokens)
        log_probs = log_probs.double()  # (B*K, V)
        V = log_probs.shape[-1]
        # a finished hypothesis extends with padding at no cost, so its score stays fixed
        finished = torch.full_like(log_probs, float("-inf"))
        finished[:, PAD] = 0.0
        log_probs = torch.where(done.unsqueeze(1), finished, log_probs)
        candidates = (scores.unsqueeze(2) + log_probs.view(B, K, V)).view(B, K * V)
        scores, flat = candidates.topk(K, dim=1)  # (B, K)
        origin = (flat // V + torch.arange(B, device=device).unsqueeze(1) * K).view(-1)  # (B*K,) parent rows
        tokens = (flat % V).view(-1)
        state = select(state, origin)
        history = torch.cat((history.index_select(0, origin), tokens.unsqueeze(1)), dim=1)
        was_done = done.index_select(0, origin)
        lengths = lengths.index_select(0, origin) + (~was_done).long()  # |Y| counts EOS, not padding
        done = was_done | tokens.eq(EOS)
        if done.all():
            break
    final = scores.view(-1) / length_penalty(lengths, alpha)
    best = final.view(B, K).argmax(1) + torch.arange(B, device=device) * K
    return _strip(history.index_select(0, best))
