"""Attention kernels: each module registers one under its file name."""
