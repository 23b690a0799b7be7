"""The sentence a cost report adds when some shares of the measured matmul peak exceed 100%."""

from __future__ import annotations


def over_peak_note(df, what: str) -> str:
    """Say how many ``peak_fraction`` cells exceed 100% and the two reasons a measured ceiling can be beaten.

    The ceiling is the fastest repeat of one library's square matmul (torch.mm, MKL on a CPU build), not the
    device's nominal peak: a ``what`` (kernel, layer) served by another library (oneDNN's fused LSTM and GRU on a
    CPU) can run faster than it, and so can one timed while the machine was quieter than during the matmul.
    """
    over = int(((df.metric == "peak_fraction") & (df.status == "ok") & (df.value > 100)).sum())
    if not over:
        return ""
    return (
        f" {over} cells exceed 100%: the ceiling is the fastest torch.mm measured in the job, not the device's "
        f"nominal peak, and a {what} served by another library (oneDNN's fused LSTM and GRU on a CPU) or timed "
        "while the machine was quieter can run faster than it; read those cells as at the ceiling, not above it."
    )
