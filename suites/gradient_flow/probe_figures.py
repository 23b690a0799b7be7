"""The figures of the probe this suite's claims cite (harness/probes.py): ``irnn`` and ``rnn_relu`` trained at one
shared peak learning rate each, 3e-3 (the rate every model shared before set.lag_lrs), 1e-3 and 3e-4 (records in
reference/probes/irnn_lr, 3 seeds each)."""

from __future__ import annotations

from harness.probes import Figure, Probes
from suites.gradient_flow.tables import longest_by_seed

PROBE = "irnn_lr"
SUITE = "gradient_flow"
#: the arms the figure sets side by side
ARMS = ("irnn", "rnn_relu")


def by_rate(probes: Probes) -> str:
    """'irnn 13 and rnn_relu 10 steps at 3e-3, ...': the longest lag each arm learns at each shared rate, mean over
    seeds, with the seeds' range where they differ."""
    frame = probes.records(PROBE, SUITE)
    rates = frame.profile_settings.apply(lambda s: float(s["lr"]))
    parts = []
    for lr in sorted(rates.unique(), reverse=True):
        rows = frame[rates == lr]
        settings = rows.profile_settings.iloc[0]
        said = []
        for arm in ARMS:
            longest = longest_by_seed(rows, arm, settings)
            if not longest:
                continue
            values = sorted(longest.values())
            spread = f" (range {values[0]:g}-{values[-1]:g})" if values[0] != values[-1] else ""
            said.append(f"{arm} {sum(values) / len(values):.0f}{spread}")
        if said:
            parts.append(f"{' and '.join(said)} steps at lr {lr:g}")
    return "the longest lag learned is " + "; ".join(parts) if parts else "(no records at a shared rate)"


PROBE_FIGURES: dict[str, Figure] = {f"{PROBE}.by_rate": by_rate}
