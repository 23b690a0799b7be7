"""The figures of the probe this suite's claims cite (harness/probes.py): ``rope+fan_in`` trained at fan-in
initialisation (3 seeds, records in reference/probes/streaming_fan_in)."""

from __future__ import annotations

from harness.probes import Figure, Probes
from suites.streaming.first_slot import first_slot

PROBE = "streaming_fan_in"
SUITE = "streaming"


def largest_first_slot(probes: Probes) -> str:
    """'0.010 of a layer's attention against 0.0156 for even attention': the largest share any layer of any model
    gives the first slot, read as the suite's precondition reads it, against even attention's."""
    found = first_slot(probes.records(PROBE, SUITE))
    if found is None:
        return "(no first-slot shares recorded)"
    _, largest, even = found
    return f"{largest:.3f} of a layer's attention against {even:.4f} for even attention"


PROBE_FIGURES: dict[str, Figure] = {f"{PROBE}.largest_first_slot": largest_first_slot}
