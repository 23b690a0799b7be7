"""One attention case (inputs of a given shape) and the check of a kernel against `naive` on it.

The reference is the naive kernel in float64 on a sample of query rows: softmax is taken per row, so
the output of any set of rows is exact without the (T, S) score matrix of the whole sequence, and the
check costs O(rows x S) instead of O(T x S). For the backward pass the upstream gradient is non-zero
only on those rows, so the gradients of *every* query, key and value follow from the same rows exactly;
a kernel's backward does the same work whatever the gradient's values, so timing uses a dense one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from variants.kernel import AttentionKernel, kernels, tolerance


@dataclass
class Case:
    """Inputs of one measurement: q (B, H, T, Dh), k and v (B, Hkv, T, Dh), an optional (H, T, T) bias."""

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    bias: torch.Tensor | None
    causal: bool
    rows: torch.Tensor  # (R,) query rows the check compares
    grad_rows: torch.Tensor  # (B, H, T, Dh) upstream gradient, zero outside ``rows``
    grad_dense: torch.Tensor  # (B, H, T, Dh) upstream gradient used for timing

    @property
    def length(self) -> int:
        return self.q.shape[-2]

    def inputs(self, requires_grad: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return tuple(x.detach().requires_grad_(requires_grad) for x in (self.q, self.k, self.v))


def check_rows(length: int, count: int) -> torch.Tensor:
    """Up to ``count`` query rows spread evenly over the sequence, always the first and the last."""
    if length <= count:
        return torch.arange(length)
    return torch.linspace(0, length - 1, count).round().long().unique()


def make_case(
    batch: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    length: int,
    causal: bool,
    bias: torch.Tensor | None,
    dtype: torch.dtype,
    device: str,
    seed: int,
    rows: int,
) -> Case:
    """Random unit-variance inputs, the same for a given seed and shape whatever the kernel."""
    gen = torch.Generator().manual_seed(seed)

    def randn(*shape):
        return torch.randn(*shape, generator=gen).to(device=device, dtype=dtype)

    q, k, v = (
        randn(batch, heads, length, head_dim),
        randn(batch, kv_heads, length, head_dim),
        randn(batch, kv_heads, length, head_dim),
    )
    grad_dense = randn(batch, heads, length, head_dim)
    picked = check_rows(length, rows)
    grad_rows = torch.zeros_like(grad_dense)
    grad_rows[:, :, picked.to(device)] = grad_dense[:, :, picked.to(device)]
    return Case(
        q, k, v, None if bias is None else bias.to(device=device, dtype=dtype), causal, picked, grad_rows, grad_dense
    )


def reference(case: Case, backward: bool) -> dict[str, torch.Tensor]:
    """float64 naive attention of the sampled rows: 'out' (B, H, R, Dh) and, with backward, full dq, dk, dv."""
    naive: AttentionKernel = kernels.get("naive")
    rows = case.rows.to(case.q.device)
    q, k, v = (x.detach().double().requires_grad_(backward) for x in (case.q, case.k, case.v))
    q_rows = q[:, :, rows]
    keys = torch.arange(case.length, device=q.device)
    bias = torch.zeros(len(rows), case.length, dtype=torch.float64, device=q.device)  # (R, S)
    if case.causal:  # query i sees keys j <= i (T == S)
        bias = bias.masked_fill(keys[None, :] > rows[:, None], -math.inf)
    if case.bias is not None:
        bias = bias + case.bias.double()[:, rows]  # (H, R, S)
    out = naive.attend(q_rows, k, v, causal=False, bias=bias)
    result = {"out": out.detach()}
    if backward:
        dq, dk, dv = torch.autograd.grad(out, (q, k, v), case.grad_rows.double()[:, :, rows])
        result.update(dq=dq, dk=dk, dv=dv)
    return result


@dataclass
class CheckResult:
    """The worst error of a kernel against the reference, relative to the tolerance."""

    ok: bool
    worst: str  # which tensor: out, dq, dk or dv
    max_abs_error: float
    allowed: float
    errors: dict[str, float]

    def reason(self) -> str:
        return (
            f"output differs from naive: max |error| of {self.worst} is {self.max_abs_error:.3g} > allowed "
            f"{self.allowed:.3g} (checked on the sampled rows against float64 naive)"
        )


def compare(case: Case, got: dict[str, torch.Tensor], want: dict[str, torch.Tensor]) -> CheckResult:
    """Each tensor must satisfy max|got - want| <= atol + rtol * max|want| (the kernel layer's tolerance of the inputs' dtype)."""
    atol, rtol = tolerance(case.q.dtype)
    rows = case.rows.to(case.q.device)
    worst, errors = None, {}
    for name, ref in want.items():
        value = got[name][:, :, rows] if name == "out" else got[name]
        value = value.double()
        if not torch.isfinite(value).all():
            error, allowed = math.inf, atol + rtol * ref.abs().max().item()
        else:
            error, allowed = (value - ref).abs().max().item(), atol + rtol * ref.abs().max().item()
        errors[name] = error
        if worst is None or error / allowed > worst[1] / worst[2]:
            worst = (name, error, allowed)
    return CheckResult(worst[1] <= worst[2], worst[0], worst[1], worst[2], errors)
