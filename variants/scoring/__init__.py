"""Attention scorings: each module registers one under its file name."""

from ._base import Scoring, scorings

__all__ = ["Scoring", "scorings"]
