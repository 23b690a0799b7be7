"""What the matrix-state mixers (GLA, DeltaNet, Gated DeltaNet, Mamba-2) share: options, heads, and the state count.

Each keeps per head a K x V matrix S read by its query (variants/mixer/_chunked.py) and, where it has one, the short
convolution's window (variants/mixer/_short_conv.py). ``state_size`` is K, the key (Mamba-2: state) dimension per
head, the knob that sets how much a model can remember; ``chunk_size`` is C of the chunked training form, which
changes the order of the sums but not the result.
"""

from __future__ import annotations

import torch

from ._base import SequenceMixer

#: tokens per chunk of the chunked form when the spec does not set one
CHUNK = 32
#: the output norms' epsilon, fixed (torch's default is the dtype's epsilon, so float32 and float64 would normalise a
#: near-zero head differently), as the authors' library sets it
NORM_EPS = 1e-5


def option_problems(name: str, state_size: int | None, chunk_size: int | None, default_chunk: int = CHUNK) -> list[str]:
    """The reasons a state or chunk size cannot work (each names the key, its value and what is valid)."""
    out = []
    if state_size is not None and (not isinstance(state_size, int) or state_size < 1):
        out.append(
            f"state_size={state_size!r} cannot build {name}: give a whole number of at least 1 (the key "
            "dimension per head), or leave it unset for the mixer's default."
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        out.append(
            f"chunk_size={chunk_size!r} cannot run {name}: give a whole number of at least 1 (tokens per chunk "
            "of the chunked form; it need not divide the length), or leave it unset for "
            f"{default_chunk}."
        )
    return out


def heads_problem(d_model: int, n_heads: int, what: str = "d_model") -> list[str]:
    if n_heads < 1 or d_model % n_heads:
        return [f"{what} {d_model} is not divisible by n_heads {n_heads}"]
    return []


def split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """(B, T, H X) -> (B, H, T, X); one token (B, H X) -> (B, H, X)."""
    if x.dim() == 2:
        return x.unflatten(-1, (heads, -1))
    return x.unflatten(-1, (heads, -1)).transpose(1, 2)


def merge_heads(o: torch.Tensor) -> torch.Tensor:
    """(B, H, T, V) -> (B, T, H V); one token (B, H, V) -> (B, H V)."""
    if o.dim() == 3:
        return o.flatten(1)
    return o.transpose(1, 2).flatten(2)


class ChunkedMixer(SequenceMixer):
    """What GLA, DeltaNet, Gated DeltaNet and Mamba-2 share: the state and chunk options, and a depth of one step per
    chunk. ``chunk`` is set by the subclass from ``chunk_size``."""

    chunk: int = CHUNK
    #: the chunk when the spec leaves chunk_size unset
    default_chunk: int = CHUNK

    @classmethod
    def problems(cls, d_model: int, n_heads: int, state_size: int | None = None, chunk_size: int | None = None) -> list:
        return heads_problem(d_model, n_heads) + option_problems(
            cls.__name__, state_size, chunk_size, cls.default_chunk
        )

    def sequential_steps(self, length: int) -> int:
        """One per chunk: the state passes from chunk to chunk in order."""
        return -(-length // self.chunk)
