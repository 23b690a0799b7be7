"""Attention kernels: each module registers one under its file name."""

from ._base import AttentionKernel, dtype_name, kernels, repeat_kv
from ._decode import DECODE_PATHS, GroupedDecode, use_grouped_decode
from ._tolerance import TOLERANCES, Tolerance, tolerance

__all__ = [
    "AttentionKernel",
    "DECODE_PATHS",
    "GroupedDecode",
    "TOLERANCES",
    "Tolerance",
    "dtype_name",
    "kernels",
    "repeat_kv",
    "tolerance",
    "use_grouped_decode",
]
