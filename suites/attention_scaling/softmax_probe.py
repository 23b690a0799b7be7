"""What a scoring does to attention at initialisation: score variance, softmax entropy, gradients through softmax.

Vaswani et al. 2017, section 3.2.1 (arXiv 1706.03762): if the components of q and k are independent with mean 0
and variance 1, q.k has variance d_k; without the 1/sqrt(d_k) factor the scores grow with d_k and push the
softmax toward one-hot weights, "regions where it has extremely small gradients". Every function here takes
a scoring module (variants/scoring/) and unit-variance Gaussian queries and keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

#: a query's softmax is saturated when its Jacobian norm is below this fraction of a uniform softmax's
SATURATED = 0.1


@dataclass
class SoftmaxStats:
    """Statistics of one scoring at one d_k, each a mean over queries."""

    qk_variance: float  # variance of the plain dot product q.k (theory: d_k)
    score_variance: float  # variance of the scoring's score
    entropy: float  # softmax entropy over the keys, nats (uniform: log n_keys)
    jacobian_norm: float  # Frobenius norm of the softmax Jacobian diag(p) - p p^T
    saturated_fraction: float  # share of queries whose Jacobian norm is below SATURATED x a uniform softmax's
    query_grad_norm: float  # ||dL/dq|| for L = <G, softmax(s(q, K)) V>, G and V standard normal


def unit_gaussians(n_queries: int, n_keys: int, d_k: int, generator: torch.Generator):
    """(q (n_queries, d_k), k (n_queries, n_keys, d_k), v like k, upstream gradient g (n_queries, d_k))."""
    q = torch.randn(n_queries, d_k, generator=generator)
    k = torch.randn(n_queries, n_keys, d_k, generator=generator)
    v = torch.randn(n_queries, n_keys, d_k, generator=generator)
    g = torch.randn(n_queries, d_k, generator=generator)
    return q, k, v, g


def softmax_stats(scoring, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, g: torch.Tensor) -> SoftmaxStats:
    """Each query attends over its own n_keys keys: q (N, d), k and v (N, S, d), g (N, d)."""
    q = q.clone().requires_grad_(True)
    scores = scoring.score(q.unsqueeze(1), k).squeeze(1)  # (N, 1, d) x (N, S, d) -> (N, S)
    p = torch.softmax(scores, dim=-1)  # (N, S)
    out = (p.unsqueeze(1) @ v).squeeze(1)  # (N, d)
    (grad,) = torch.autograd.grad((out * g).sum(), q)
    with torch.no_grad():
        qk = (q.unsqueeze(1) @ k.transpose(1, 2)).squeeze(1)  # (N, S)
        entropy = -(p * torch.log(p.clamp_min(1e-30))).sum(-1)  # (N,)
        # ||diag(p) - p p^T||_F^2 = sum p_i^2 - 2 sum p_i^3 + (sum p_i^2)^2
        p2 = (p * p).sum(-1)
        jac = (p2 - 2 * (p**3).sum(-1) + p2 * p2).clamp_min(0).sqrt()  # (N,)
        n = p.shape[-1]
        uniform = ((n - 1) / n**2) ** 0.5  # the same norm for p = 1/n everywhere
        return SoftmaxStats(
            qk_variance=float(qk.var()),
            score_variance=float(scores.var()),
            entropy=float(entropy.mean()),
            jacobian_norm=float(jac.mean()),
            saturated_fraction=float((jac < SATURATED * uniform).float().mean()),
            query_grad_norm=float(grad.norm(dim=-1).mean()),
        )
