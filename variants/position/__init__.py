"""Position encodings: each module registers one under its file name."""
