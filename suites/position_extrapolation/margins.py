"""One-seed margins of position_extrapolation: each judged quantity's own, from the standard profile's seeds.

One seed (the quick profile, `make run`) has no interval, so harness/paired.py lets it count only beyond a margin
calibrated from the standard profile's per-seed spread of the very quantity judged (``one_seed_margin``: the 95%
prediction bound of one new seed, t(0.975, n - 1) sd, which carries the uncertainty of an sd read from n = 3 seeds:
4.30 sd, where a fixed 2.8 sd counted null noise 10.6% of the time). ``STANDARD_PER_SEED`` is that small table: for each quantity, by the label the verdict code gives it, its
per-seed values in % (the per-seed change (a - b) / b, or a ratio's change from 1) in the reference records
reference/results/position_extrapolation, profile standard, seeds 0, 1 and 2 (the profile's seeds).
tests/unit/suites/position_extrapolation/test_position_margins.py recomputes every entry from those records through the verdict code, so the
table cannot drift from them. A quantity missing from it (another profile's variant, say) has no margin: one seed
of it gives no verdict ("1 seed: no verdict").

Every entry is the judged one-seed quantity itself, seed by seed: a ratio's change from 1 within one model
(ALiBi's ppl(8L)/ppl(L)), a change between two scalings of one model's weights (rope+pi against rope at 2L), or a
change between two models trained on the same seed (a window against rope, ALiBi's ratio against sinusoidal's),
whose per-seed values already carry both arms' noise. None is one arm's spread standing for a difference of two
one-seed arms, so every margin is taken with ``arms=1`` (``ARMS``); an entry of one arm's spread judged as a
difference would need ``arms=2``.

The spread differs by quantity: ppl at L varies by a few % per seed, a RoPE extension's ppl at 4L by tens of %,
so one margin for all would be too wide for the first and too narrow for the second.
"""

from __future__ import annotations

from harness.paired import one_seed_margin

#: quantity (the verdict code's label) -> its per-seed values in %, standard profile, seeds 0, 1, 2
STANDARD_PER_SEED: dict[str, tuple[float, ...]] = {
    "ALiBi ppl(8L) vs ppl(L)": (-2.70, -2.73, -2.61),
    "sinusoidal ppl(8L) vs ppl(L)": (324.36, 338.44, 339.39),
    "ALiBi vs sinusoidal ppl(8L)/ppl(L)": (-77.07, -77.81, -77.83),
    "rope ppl(4L) vs ppl(L)": (261.22, 335.74, 223.48),
    "rope+pi2 ppl(1L) vs rope ppl(L)": (270.47, 305.86, 262.48),
    "rope+pi ppl(2L) vs rope ppl(2L)": (232.27, 187.86, 214.19),
    "rope+pi ppl(4L) vs rope ppl(4L)": (154.75, 98.08, 156.79),
    # NTK-aware and YaRN with their free parameters chosen on validation text at the judged 4L
    "rope+ntk ppl(4L) vs rope ppl(L)": (19.81, 23.04, 18.17),
    "rope+ntk ppl(4L) vs rope ppl(4L)": (-66.93, -72.00, -63.46),
    "rope+yarn ppl(4L) vs rope+pi": (-86.01, -84.86, -84.33),
    "rope+yarn ppl(4L) vs rope+ntk": (7.79, 7.14, 10.13),
    "rope+window16 Δ ppl at L vs rope": (-0.03, -2.57, -1.78),
    "rope+window32 Δ ppl at L vs rope": (0.13, -2.75, -1.24),
    "rope+window4 Δ ppl at L vs rope": (-0.22, -3.93, -2.34),
}

#: quantity -> how many one-seed arms its judged value differs across, beyond what its per-seed values already hold:
#: 1 for every entry (each is the judged quantity's own per-seed value, see above)
ARMS: dict[str, int] = {k: 1 for k in STANDARD_PER_SEED}

#: quantity -> the margin in % one seed of it must exceed (the t prediction bound of its standard per-seed values)
MARGINS: dict[str, float] = {k: one_seed_margin(v, arms=ARMS[k]) for k, v in STANDARD_PER_SEED.items()}


def margin_of(quantity: str) -> float | None:
    """The calibrated one-seed margin of ``quantity`` in %, or None (one seed of it: no verdict)."""
    return MARGINS.get(quantity)
