"""RoPE context extensions applied at evaluation time: each module registers one under its file name."""

from ._base import RopeScaling, rope_scalings, scale_factor

__all__ = ["RopeScaling", "rope_scalings", "scale_factor"]
