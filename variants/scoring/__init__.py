"""Attention scorings: each module registers one under its file name."""
