"""A variant's own warm-up: the ``long_warmup`` or ``no_warmup`` part of a variant expression (``post_ln+long_warmup``).

Xiong et al. 2020 (arXiv 2002.04745) say Post-LN trains worse than Pre-LN *without a long warm-up*; the claim's
control arm is the same Post-LN model warmed up for longer. A warm-up is a training setting, not an axis of the
architecture, so no preset of ``variants/`` sets it: this suite reads ``long_warmup`` off the expression itself,
resolves the rest as usual, and records the warm-up in the job's spec (``warmup_fraction``), so the job has its
own identity (hash) and its records say how it was trained. Every other variant keeps the profile's warm-up
and its spec, dict and hash are what they were.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from harness.errors import UserError
from harness.train import TrainSettings
from variants.spec import TransformerSpec, split_variant

#: the expression part that asks for the long warm-up
LONG_WARMUP = "long_warmup"
#: the expression part that asks for none: Xiong et al.'s "without warm-up" (their Post-LN row at BLEU 8.45)
NO_WARMUP = "no_warmup"
#: its length, a share of the training steps: 250 of the standard profile's 500 (warm-up 50 is the default there),
#: the probe that trained Post-LN to Pre-LN's loss (1.614 against 1.628 nats/char, one seed)
LONG_WARMUP_FRACTION = 0.5


@dataclass(frozen=True)
class ScheduledSpec(TransformerSpec):
    """A TransformerSpec trained with a warm-up of its own: ``warmup_fraction`` of the steps (None: the profile's)."""

    warmup_fraction: Optional[float] = None

    def to_dict(self) -> Dict[str, Any]:
        values = super().to_dict()
        if values.get("warmup_fraction") is None:  # a spec without its own warm-up keeps the plain spec's dict and hash
            values.pop("warmup_fraction", None)
        return values


#: expression part -> the share of the training steps it warms up over
WARMUP_PARTS = {LONG_WARMUP: LONG_WARMUP_FRACTION, NO_WARMUP: 0.0}


def split_schedule(variant: str) -> Tuple[str, Optional[float]]:
    """(the architecture's expression, the warm-up fraction it asks for or None): ``'post_ln+long_warmup'`` ->
    ``('post_ln', 0.5)``, ``'post_ln+no_warmup'`` -> ``('post_ln', 0.0)``; ``'long_warmup'`` or ``'no_warmup'``
    alone is the baseline with that warm-up. Both parts in one expression are refused."""
    parts = split_variant(variant)
    asked = [p for p in parts if p in WARMUP_PARTS]
    if len(asked) > 1:
        raise UserError(f"variant {variant!r} asks for {' and '.join(asked)}; a model trains with one warm-up: "
                         f"keep one of {', '.join(WARMUP_PARTS)}")
    rest = [p for p in parts if p not in WARMUP_PARTS]
    return "+".join(rest) or "baseline", (WARMUP_PARTS[asked[0]] if asked else None)


def with_warmup(spec: TransformerSpec, fraction: Optional[float]) -> TransformerSpec:
    """The spec carrying its own warm-up (unchanged when ``fraction`` is None)."""
    if fraction is None:
        return spec
    return ScheduledSpec(**dataclasses.asdict(spec), warmup_fraction=fraction)


def settings_for(spec: TransformerSpec, settings: TrainSettings) -> TrainSettings:
    """The profile's training settings with the spec's own warm-up, if it has one (round(fraction x steps))."""
    fraction = getattr(spec, "warmup_fraction", None)
    if fraction is None:
        return settings
    return dataclasses.replace(settings, warmup_steps=int(round(fraction * settings.steps)))


def warmup_of(spec: Dict[str, Any], profile_warmup: int, steps: int) -> int:
    """The warm-up steps a stored spec trained with (its own, else the profile's)."""
    fraction = spec.get("warmup_fraction")
    return profile_warmup if fraction is None else int(round(fraction * steps))
