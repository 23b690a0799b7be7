"""The attention-kernel protocol: what a kernel can do, why it cannot run a spec, and the call.

Every kernel computes the same function: softmax(score(q, k) + bias, causal) v, with queries
q: (B, H, T, Dh) and keys/values k, v: (B, Hkv, S, Dh), H a multiple of Hkv (grouped-query
attention). For dot-product scorings score(q, k) = q k^T * scale, which every kernel computes; a kernel
that materialises the scores (``any_scoring``) also accepts any scoring's ``score_fn``. The last T of
the S key positions are the queries' own (a KV cache holds the first S - T), so query i may attend keys
0 .. S - T + i. A kernel declares its devices, dtypes (per device), scorings, whether it takes a score
bias (and passes gradients to a learned one), whether it groups key/value heads natively, the smallest
head dimension it takes per device and on which devices it has a backward pass, so `problems(spec)` can
explain, before anything runs, why a combination is not possible. Facts of the machine (a device present,
an optional library's op that really runs) come from one table, variants/kernel/_capabilities.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch

from .._registry import Registry
from ..score_bias import Bias

if TYPE_CHECKING:
    from ..axis_spec import AxisSpec

kernels: Registry[AttentionKernel] = Registry("kernel", package="variants.kernel", list_command="bench list kernels")

ALL_DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def device_present(device: str) -> bool:
    """Whether torch can use a device of this type here (as the device table in force says: _capabilities.py)."""
    from ._capabilities import current

    return current().present(device)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


@dataclass(frozen=True)
class AttentionKernel:
    """Base class of attention kernels; subclasses implement ``attend`` and declare what they support."""

    devices: tuple[str, ...] = ("cpu", "cuda")
    dtypes: tuple[torch.dtype, ...] = ALL_DTYPES
    takes_score_bias: bool = True
    native_gqa: bool = False
    #: True: computes any registered scoring (calls its score function); False: dot-product scorings only
    any_scoring: bool = False
    #: devices with a backward pass (None: every device the kernel runs on)
    backward_devices: tuple[str, ...] | None = None
    #: compiles on its first call for each shape (measure only after an unmeasured warm-up call)
    compiles: bool = False
    #: holds the whole (B, H, T, S) score matrix by design (naive, SDPA's math path): memory quadratic in length;
    #: False for fused kernels, which stream over blocks of keys (Dao et al. 2022, arXiv 2205.14135)
    materialises_scores: bool = False
    #: (device, smallest head dimension the kernel takes there) pairs; a device not named takes any
    min_head_dims: tuple[tuple[str, int], ...] = ()
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return type(self).__module__.rsplit(".", 1)[-1]

    # --- what the kernel supports; subclasses override the per-device answers
    def missing(self) -> str | None:
        """A package or build feature this installation lacks (one sentence), or None."""
        return None

    def unavailable(self) -> str | None:
        """Why this kernel cannot run here at all (missing package, build feature or device), or None."""
        missing = self.missing()
        if missing:
            return missing
        if not any(device_present(d) for d in self.devices):
            return f"needs a {'/'.join(self.devices)} device and torch sees none"
        return None

    def dtypes_on(self, device: str) -> tuple[torch.dtype, ...]:
        return self.dtypes

    def takes_score_bias_on(self, device: str) -> bool:
        return self.takes_score_bias

    def takes_window_on(self, device: str) -> bool:
        """Whether a sliding window's mask reaches the kernel on ``device``: it is given as a -inf score bias
        (variants/score_bias.py's ``with_window``), so wherever the kernel takes a score bias."""
        return self.takes_score_bias_on(device)

    def min_head_dim_on(self, device: str) -> int:
        """The smallest head dimension this kernel takes on ``device`` (1: any)."""
        return dict(self.min_head_dims).get(device, 1)

    def trains_score_bias_on(self, device: str) -> bool:
        """Whether the backward pass on ``device`` reaches a score bias that requires gradients (T5's buckets)."""
        return self.takes_score_bias_on(device)

    def trains_on(self, device: str) -> bool:
        return device in (self.backward_devices if self.backward_devices is not None else self.devices)

    def supports_scoring(self, scoring: type) -> bool:
        """Whether this kernel computes the scoring class ``scoring`` (a kernel that materialises the scores takes any;
        a fused one a dot product with a plain-number scale, checked against what the scoring returns)."""
        from ..scoring._base import fused_dot_product

        return self.any_scoring or fused_dot_product(scoring)

    def problems(
        self, spec: AxisSpec, device: str = "cpu", dtype: torch.dtype = torch.float32, *, training: bool = True
    ) -> list[str]:
        """Every reason this kernel cannot run ``spec`` on ``device`` in ``dtype`` (and train it, if ``training``)."""
        from ..position._base import adds_score_bias, positions
        from ..scoring._base import scorings

        reasons = []
        missing = self.missing()
        if missing:
            reasons.append(missing)
        if device not in self.devices:
            reasons.append(f"kernel '{self.name}' runs on {'/'.join(self.devices)}, not {device}")
            return reasons
        if dtype not in self.dtypes_on(device):
            allowed = ", ".join(dtype_name(d) for d in self.dtypes_on(device))
            reasons.append(f"kernel '{self.name}' does not support {dtype_name(dtype)} on {device} (only {allowed})")
        head_dim = spec.d_model // spec.n_heads if spec.n_heads else 0
        if head_dim < self.min_head_dim_on(device):
            reasons.append(
                f"kernel '{self.name}' needs a head dimension of at least {self.min_head_dim_on(device)} on "
                f"{device}, got {head_dim} (d_model {spec.d_model} / {spec.n_heads} heads)"
            )
        if spec.scoring in scorings and not self.supports_scoring(scorings.get(spec.scoring)):
            reasons.append(
                f"kernel '{self.name}' computes dot-product scores only, and scoring '{spec.scoring}' is not one"
            )
        if (
            spec.position in positions
            and adds_score_bias(positions.get(spec.position))
            and not self.takes_score_bias_on(device)
        ):
            reasons.append(
                f"kernel '{self.name}' takes no score bias on {device}, which position '{spec.position}' adds"
            )
        elif (
            training
            and spec.position in positions
            and positions.get(spec.position).learned_bias
            and not self.trains_score_bias_on(device)
        ):
            reasons.append(
                f"kernel '{self.name}' passes no gradient to a score bias on {device}, and position "
                f"'{spec.position}' learns its bias, so it cannot train"
            )
        if getattr(spec, "window", None) is not None and not self.takes_window_on(device):
            reasons.append(
                f"kernel '{self.name}' takes no score bias on {device}, and the sliding window ({spec.window} "
                f"keys) reaches kernels as a -inf score mask"
            )
        if training and not self.trains_on(device):
            reasons.append(
                f"kernel '{self.name}' has no backward pass on {device} (inference only), so it cannot train"
            )
        return reasons

    # --- the call
    def dispatch(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        *,
        causal: bool,
        bias: Bias = None,
        scale: float | None = None,
    ) -> str:
        """The implementation that runs for these inputs, as recorded with results (default: the kernel's name)."""
        return self.name

    def attend(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        *,
        causal: bool,
        bias: Bias = None,
        scale: float | None = None,
        score_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """(B, H, T, Dh) attention output; bias is additive, broadcastable to (B, H, T, S).

        ``scale`` multiplies q k^T (None: 1/sqrt(Dh)); ``score_fn(q, k) -> (B, H, T, S)`` replaces q k^T * scale
        for scorings that are not dot products (only kernels with ``any_scoring`` accept it).
        """
        raise NotImplementedError

    def _reject_score_fn(self, score_fn) -> None:
        if score_fn is not None:
            raise ValueError(f"kernel '{self.name}' computes dot-product scores only and cannot call a score function")


def causal_mask(q_len: int, k_len: int, device: torch.device) -> torch.Tensor:
    """(T, S) bool mask, True where query i must NOT see key j (j > S - T + i)."""
    i = torch.arange(q_len, device=device)[:, None]
    j = torch.arange(k_len, device=device)[None, :]
    return j > (k_len - q_len) + i


def repeat_kv(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(B, Hkv, S, Dh) -> (B, H, S, Dh), each K/V head repeated for its group of query heads."""
    groups = n_heads // x.shape[1]
    return x if groups == 1 else x.repeat_interleave(groups, dim=1)
