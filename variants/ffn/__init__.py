"""Position-wise feed-forward layers: each module registers one under its file name."""
