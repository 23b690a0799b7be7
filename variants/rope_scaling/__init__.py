"""RoPE context extensions applied at evaluation time: each module registers one under its file name."""
