"""Probes of a trained RNN translator's attention: does it rank the source as importance measures do, and does the
output depend on it?

After Jain & Wallace 2019 ("Attention is not Explanation", arXiv 1902.10186, section 4) on a translator instead of a
classifier: at every target step i (teacher-forced on the reference) of a test sentence,
- the attention weights a_i over the source words (EOS left out of every ranking);
- gradient importance g_ij: the L2 norm of d log p(y^_i) / d e_j, e_j the embedding of source word j and y^_i the
  step's most probable token, with the attention weights detached so the gradient reaches the words through the
  encoder alone (their section 4.1 disconnects the graph at the attention module);
- leave-one-out importance l_ij: the total variation distance between the step's output distribution with and
  without word j in the source;
- Kendall's tau between each pair of the three rankings (scipy.stats.kendalltau, tau-b) per step;
- permutation (their section 4.2.1): the total variation distance between the step's output distribution and the
  one when that step's weights are permuted at random over the source's positions, the median over permutations;
- uniform weights at inference: the same distance when every step's weights are uniform over the source.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import torch
from scipy.stats import kendalltau

from suites.common.seq2seq import teacher_batch
from variants.seq2seq_spec import PAD

Reweigh = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (weights (B, T, S), padding (B, S)) -> weights


@contextlib.contextmanager
def reweighed(model, how: Reweigh) -> Iterator[None]:
    """Run ``model``'s attention with its weights replaced by ``how(weights, padding)``; restored on exit."""
    attention = model.attention
    original = attention.forward

    def forward(query, keys, values, key_padding, prepared=None):
        _, weights = original(query, keys, values, key_padding, prepared)
        weights = how(weights, key_padding)
        return weights @ values, weights

    attention.forward = forward
    try:
        yield
    finally:
        del attention.forward  # the class's forward again


def detached(weights: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
    """The weights as constants: a gradient reaches the source through the encoder states alone."""
    return weights.detach()


def uniform(weights: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
    """Every unpadded source position weighed alike, (B, T, S)."""
    keep = (~padding).float().unsqueeze(1)  # (B, 1, S)
    return (keep / keep.sum(-1, keepdim=True)).expand_as(weights)


def permuted(generator: torch.Generator) -> Reweigh:
    """Each step's weights shuffled over its unpadded positions, a fresh permutation per step."""

    def how(weights: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        keys = torch.rand(weights.shape, generator=generator).masked_fill(padding.unsqueeze(1), float("inf"))
        order = keys.argsort(-1)  # (B, T, S): the unpadded positions first, in random order
        # the padded positions stay last in ``order`` and carry weight 0, so gathering keeps them at 0
        return weights.gather(-1, order)

    return how


def tvd(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Total variation distance between distributions over the last axis: (..., V) -> (...)."""
    return 0.5 * (p - q).abs().sum(-1)


@dataclass
class Probe:
    """Per target step of every probed sentence (flattened over sentences): the three taus and the two distances."""

    tau_attention_gradient: list[float]
    tau_attention_loo: list[float]
    tau_gradient_loo: list[float]
    significant_attention_gradient: list[bool]
    permutation_tvd: list[float]
    uniform_tvd: list[float]
    max_attention: list[float]


def probe(model, pairs, batch_size: int, permutations: int, seed: int, device: str) -> Probe:
    """Every measurement of the module docstring on ``pairs`` (source ids ending in EOS, target ids)."""
    out = Probe([], [], [], [], [], [], [])
    gen = torch.Generator().manual_seed(seed)
    model.eval()
    for start in range(0, len(pairs), batch_size):
        src, tgt_in, tgt_out = teacher_batch(pairs[start : start + batch_size], device)
        _probe_batch(model, src, tgt_in, tgt_out, permutations, gen, out)
    return out


def _probe_batch(model, src, tgt_in, tgt_out, permutations, gen, out: Probe) -> None:
    B, S = src.shape
    src_len = src.ne(PAD).sum(1)  # (B,) tokens with EOS
    steps = tgt_out.ne(PAD)  # (B, T) real target steps
    with torch.no_grad():
        logits, weights = model(src, tgt_in, return_attention=True)  # (B, T, V), (B, T, S)
        probs = logits.float().softmax(-1)
    gradient = _gradient_importance(model, src, tgt_in, logits.argmax(-1), steps)  # (B, T, S)
    loo = _leave_one_out(model, src, tgt_in, probs, src_len)  # (B, T, S)
    with torch.no_grad():
        shuffled = []
        for _ in range(permutations):
            with reweighed(model, permuted(gen)):
                shuffled.append(tvd(probs, model(src, tgt_in).float().softmax(-1)))  # (B, T)
        median = torch.stack(shuffled).median(0).values  # (B, T)
        with reweighed(model, uniform):
            flat = tvd(probs, model(src, tgt_in).float().softmax(-1))
    for b in range(B):
        words = int(src_len[b]) - 1  # EOS left out of the rankings
        for i in range(int(steps[b].sum())):
            a, g, l_ = weights[b, i, :words].numpy(), gradient[b, i, :words].numpy(), loo[b, i, :words].numpy()
            if words >= 3:
                tau_ag, p_ag = kendalltau(a, g)
                out.tau_attention_gradient.append(float(tau_ag))
                out.significant_attention_gradient.append(bool(p_ag < 0.05))
                out.tau_attention_loo.append(float(kendalltau(a, l_)[0]))
                out.tau_gradient_loo.append(float(kendalltau(g, l_)[0]))
            out.permutation_tvd.append(float(median[b, i]))
            out.uniform_tvd.append(float(flat[b, i]))
            out.max_attention.append(float(weights[b, i].max()))


def _gradient_importance(model, src, tgt_in, predicted, steps) -> torch.Tensor:
    """(B, T, S): || d log p(predicted_i) / d e_j ||, the attention weights detached."""
    captured: list[torch.Tensor] = []

    def keep(module, inputs, output):
        if not captured:  # the first call embeds the source (RNNSeq2Seq.start), later ones the target
            output.retain_grad()
            captured.append(output)

    hook = model.embed.register_forward_hook(keep)
    try:
        with reweighed(model, detached), torch.enable_grad():
            log_probs = model(src, tgt_in).float().log_softmax(-1)  # (B, T, V)
            chosen = log_probs.gather(-1, predicted.unsqueeze(-1)).squeeze(-1) * steps  # (B, T)
            rows = []
            for i in range(chosen.shape[1]):
                # the rows of a batch are independent, so one backward of their sum gives each row's gradient
                (grad,) = torch.autograd.grad(chosen[:, i].sum(), captured[0], retain_graph=True)
                rows.append(grad.norm(dim=-1))  # (B, S)
    finally:
        hook.remove()
    return torch.stack(rows, 1).detach()


def _leave_one_out(model, src, tgt_in, probs, src_len) -> torch.Tensor:
    """(B, T, S): the distance of each step's output when source word j is removed (0 where j is EOS or padding)."""
    B, S = src.shape
    out = torch.zeros(B, probs.shape[1], S)
    with torch.no_grad():
        for j in range(S - 1):
            rows = (src_len - 1 > j).nonzero().flatten()  # rows where j is a word, not EOS or padding
            if not len(rows):
                break
            kept = torch.cat([src[rows, :j], src[rows, j + 1 :], torch.full((len(rows), 1), PAD)], 1)
            without = model(kept, tgt_in[rows]).float().softmax(-1)  # (R, T, V)
            out[rows, :, j] = tvd(probs[rows], without)
    return out


def summary(values: list[float]) -> float:
    """The mean of finite values (a tau over a ranking with ties may be undefined)."""
    finite = [v for v in values if np.isfinite(v)]
    return float(np.mean(finite)) if finite else float("nan")
