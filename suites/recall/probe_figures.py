"""The figures of the probe this suite's claims cite (harness/probes.py): the copying families trained at a learning
rate of 3e-3 instead of 1e-3 (records in reference/probes/recall_lr3e-3)."""

from __future__ import annotations

from harness.probes import Figure, Probes

PROBE = "recall_lr3e-3"
SUITE = "recall"
#: the copy length the claim reads
LENGTH = 16


def best_copy(probes: Probes) -> str:
    """'0.69': the best family's token accuracy copying strings of LENGTH symbols (mean over seeds)."""
    frame = probes.records(PROBE, SUITE)
    rows = frame[(frame.metric == "token_accuracy") & (frame.x == LENGTH)]
    rows = rows[rows.extra.apply(lambda e: e.get("task")) == "copy"]
    return f"{rows.groupby('variant').value.mean().max():.2f}"


PROBE_FIGURES: dict[str, Figure] = {f"{PROBE}.best_copy_16": best_copy}
