"""Attention kernels: each module registers one under its file name."""

from ._base import AttentionKernel, ScoreBias, dense_bias, dtype_name, kernels, repeat_kv
from ._decode import DECODE_PATHS, GroupedDecode, use_grouped_decode

__all__ = ["AttentionKernel", "DECODE_PATHS", "GroupedDecode", "ScoreBias", "dense_bias", "dtype_name", "kernels",
           "repeat_kv", "use_grouped_decode"]
