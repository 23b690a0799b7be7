"""The figures of the probe this suite's claims cite (harness/probes.py): the same models trained at fan-in
initialisation (``variants=[rope+fan_in,alibi+fan_in,sinusoidal+fan_in,rope+window16+fan_in]``, 3 seeds, records in
reference/probes/pe_fan_in), set beside the reference run at GPT-2's N(0, 0.02)."""

from __future__ import annotations

import statistics

import pandas as pd

from harness.paired import paired
from harness.probes import Figure, Probes
from suites.position_extrapolation.tables import ppl_by_seed

PROBE = "pe_fan_in"
SUITE = "position_extrapolation"
#: the suffix the probe's variants carry (``rope+fan_in``): without it, the reference run's variant
FAN_IN = "+fan_in"


def _train_len(frame: pd.DataFrame) -> int:
    return int(frame.profile_settings.iloc[0]["train_len"])


def _ppl(frame: pd.DataFrame, variant: str, x: float) -> dict[int, float]:
    return ppl_by_seed(frame[frame.metric == "perplexity"], variant, x)


def lower_at_L(probes: Probes) -> str:
    """'13-18%': how much lower every fan-in model's perplexity at L is than its reference twin's (means over seeds)."""
    fan, ref = probes.records(PROBE, SUITE), probes.reference(SUITE)
    length = _train_len(fan)
    drops = []
    for variant in sorted(set(fan.variant)):
        a, b = _ppl(fan, variant, length), _ppl(ref, variant.removesuffix(FAN_IN), length)
        if a and b:
            drops.append(100.0 * (1.0 - statistics.fmean(a.values()) / statistics.fmean(b.values())))
    return f"{min(drops):.0f}-{max(drops):.0f}%"


def ratio_8L(variant: str) -> Figure:
    """The fan-in ``variant``'s ppl(8L)/ppl(L), the mean of its seeds' ratios: '0.97'."""

    def figure(probes: Probes) -> str:
        fan = probes.records(PROBE, SUITE)
        length = _train_len(fan)
        at_l, at_8l = _ppl(fan, variant + FAN_IN, length), _ppl(fan, variant + FAN_IN, 8 * length)
        return f"{statistics.fmean(at_8l[s] / at_l[s] for s in at_l if s in at_8l):.2f}"

    return figure


def window_against_rope(probes: Probes) -> str:
    """'-1.2% [-1.6, -0.8]': rope+window16's perplexity at L against rope's, paired over the probe's seeds."""
    fan = probes.records(PROBE, SUITE)
    length = _train_len(fan)
    diff = paired("window", _ppl(fan, "rope+window16" + FAN_IN, length), _ppl(fan, "rope" + FAN_IN, length),
                  unit="%", relative=True)  # fmt: skip
    low, high = diff.ends()
    return f"{diff.mean:.1f}% [{low:.1f}, {high:.1f}]"


PROBE_FIGURES: dict[str, Figure] = {
    f"{PROBE}.lower_at_L": lower_at_L,
    f"{PROBE}.alibi_ratio_8L": ratio_8L("alibi"),
    f"{PROBE}.sinusoidal_ratio_8L": ratio_8L("sinusoidal"),
    f"{PROBE}.window_against_rope": window_against_rope,
}
