"""The attention-kernel protocol: what a kernel can do, why it cannot run a spec, and the call.

Every kernel computes the same function: softmax(q k^T * scale + bias, causal) v, with queries
q: (B, H, T, Dh) and keys/values k, v: (B, Hkv, S, Dh), H a multiple of Hkv (grouped-query
attention). The last T of the S key positions are the queries' own (a KV cache holds the first S - T),
so query i may attend keys 0 .. S - T + i. A kernel declares its devices, dtypes and features, so
`problems(spec)` can explain, before anything runs, why a combination is not possible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Tuple

import torch

from .._registry import Registry

if TYPE_CHECKING:
    from ..spec import TransformerSpec

kernels: Registry["AttentionKernel"] = Registry("kernel", package="variants.kernel", list_command="bench list kernels")


@dataclass(frozen=True)
class AttentionKernel:
    """Base class of attention kernels; subclasses implement ``attend``."""

    devices: Tuple[str, ...] = ("cpu", "cuda")
    dtypes: Tuple[torch.dtype, ...] = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
    takes_score_bias: bool = True
    native_gqa: bool = False
    notes: List[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return type(self).__module__.rsplit(".", 1)[-1]

    def unavailable(self) -> Optional[str]:
        """Why this kernel cannot run in this installation at all (missing package), or None."""
        return None

    def problems(self, spec: "TransformerSpec", device: str = "cpu", dtype: torch.dtype = torch.float32) -> List[str]:
        """Every reason this kernel cannot run ``spec`` on ``device`` in ``dtype``."""
        reasons = []
        missing = self.unavailable()
        if missing:
            reasons.append(missing)
        if device not in self.devices:
            reasons.append(f"kernel '{self.name}' runs on {'/'.join(self.devices)}, not {device}")
        if dtype not in self.dtypes:
            reasons.append(f"kernel '{self.name}' does not support {str(dtype).replace('torch.', '')}")
        return reasons

    def attend(
        self,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        *,
        causal: bool,
        bias: Optional[torch.Tensor] = None,
        scale: Optional[float] = None,
    ) -> torch.Tensor:
        """(B, H, T, Dh) attention output; bias is additive, shape broadcastable to (B, H, T, S)."""
        raise NotImplementedError


def causal_mask(q_len: int, k_len: int, device: torch.device) -> torch.Tensor:
    """(T, S) bool mask, True where query i must NOT see key j (j > S - T + i)."""
    i = torch.arange(q_len, device=device)[:, None]
    j = torch.arange(k_len, device=device)[None, :]
    return j > (k_len - q_len) + i


def repeat_kv(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(B, Hkv, S, Dh) -> (B, H, S, Dh), each K/V head repeated for its group of query heads."""
    groups = n_heads // x.shape[1]
    return x if groups == 1 else x.repeat_interleave(groups, dim=1)
