"""Normalisation layers: each module registers one under its file name."""
