"""How close a computation must come to its reference to count as the same: one tolerance per dtype.

Every "matches naive" check of the project reads this table: attention_cost's check of each kernel
against float64 naive (suites/attention_cost/check.py), sequence_cost's check of each layer against float64,
kv_cache's cached decode step against the full forward and its decode paths against float64, and the
kernel equivalence gate (tests/unit/variants/test_equivalence.py, test_kernels.py). The rule is one number per
comparison: max |got - want| <= atol + rtol * max |want|, the relative part scaled by the reference's
largest magnitude (not elementwise, as torch.allclose does), so values near zero are held to the
precision of the computation rather than to an exact zero.

float32 and float16 keep about 7 and 3 significant decimal digits, bfloat16 about 2; the rtol column is
a few units in the last place of each, the atol column what summing in another order costs near zero.
"""

from __future__ import annotations

from typing import NamedTuple

import torch


class Tolerance(NamedTuple):
    """``atol`` + ``rtol`` x the reference's largest magnitude: the largest error allowed against it."""

    atol: float
    rtol: float

    def allowed(self, reference: torch.Tensor) -> float:
        """The largest |error| allowed against ``reference`` (any dtype; read as float64)."""
        return self.atol + self.rtol * reference.detach().abs().max().item()

    def check(self, got: torch.Tensor, want: torch.Tensor) -> tuple[float, float]:
        """(max |got - want| in float64, the error allowed against ``want``); it matches when the first <= the second."""
        error = (got.detach().double() - want.detach().double()).abs().max().item()
        return error, self.allowed(want)


#: per dtype of the computation checked; values attention_cost has recorded as ``allowed_error`` since its version 1
TOLERANCES: dict[torch.dtype, Tolerance] = {
    torch.float64: Tolerance(1e-10, 1e-9),
    torch.float32: Tolerance(1e-5, 1e-4),
    torch.float16: Tolerance(2e-3, 1e-2),
    torch.bfloat16: Tolerance(1e-2, 3e-2),
}


def tolerance(dtype) -> Tolerance:
    """The tolerance of a computation in ``dtype`` (float32's for a dtype the table lacks, or None)."""
    return TOLERANCES.get(dtype, TOLERANCES[torch.float32])
