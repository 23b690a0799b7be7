"""Whether flash-linear-attention (fla-org) could serve the chunked mixers here, and in one sentence why not.

Its Triton kernels (chunk_gla, chunk_delta_rule, chunk_gated_delta_rule; and state-spaces/mamba's for SSD) compute
the same chunked forms as variants/mixer/_chunked.py on a CUDA device. They are an optional backend: where the
package is installed and a CUDA device is present they would be checked against the in-house form before anything
is timed; elsewhere the mixers run their pure-PyTorch forms and nothing else changes.
"""

from __future__ import annotations

import importlib.util

import torch


def fla_unavailable(device: str = "cuda") -> str:
    """Empty when flash-linear-attention can run on ``device`` here; otherwise one sentence saying why not."""
    if importlib.util.find_spec("fla") is None:
        return (
            "flash-linear-attention is not installed (pip install flash-linear-attention): the chunked mixers "
            "(mamba2, gla, deltanet, gated_deltanet) run their pure-PyTorch chunked forms."
        )
    if not str(device).startswith("cuda") or not torch.cuda.is_available():
        return (
            f"flash-linear-attention's Triton kernels need a CUDA device, and {device} "
            + ("is not one" if not str(device).startswith("cuda") else "has none here")
            + ": the chunked mixers run their pure-PyTorch chunked forms."
        )
    return ""
