"""A variant's own warm-up or budget: the ``long_warmup``, ``no_warmup`` or ``steps<N>`` part of a variant expression.

Xiong et al. 2020 (arXiv 2002.04745) say Post-LN trains worse than Pre-LN *without a long warm-up*; the claim's
control arm is the same Post-LN model warmed up for longer. A warm-up is a training setting, not an axis of the
architecture, so no preset of ``variants/`` sets it: this suite reads ``long_warmup`` off the expression itself,
resolves the rest as usual, and records the warm-up in the job's spec (``warmup_fraction``), so the job has its
own identity (hash) and its records say how it was trained. Every other variant keeps the profile's warm-up
and its spec, dict and hash are what they were.

A ``steps<N>`` part (``mla+steps2000``) trains the variant N steps instead of the profile's (the same warm-up steps,
cosine decay over N): the training budget as a declared axis of a claim, in the same group of records as the
profile's budget, so that a verdict can be read at each budget (DeepSeek-V2's MLA claim, claims/mla_beats_mha.py).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

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


#: the expression part that sets the training budget: ``steps2000`` trains 2000 steps
STEPS_PART = re.compile(r"steps(\d+)")


@dataclass(frozen=True)
class ScheduledSpec(TransformerSpec):
    """A TransformerSpec trained with a warm-up of its own (``warmup_fraction`` of the steps) or a budget of its own
    (``steps``); None: the profile's."""

    warmup_fraction: float | None = None
    steps: int | None = None

    def to_dict(self) -> dict[str, Any]:
        values = super().to_dict()
        for key in ("warmup_fraction", "steps"):  # a spec without its own keeps the plain spec's dict and hash
            if values.get(key) is None:
                values.pop(key, None)
        return values


#: expression part -> the share of the training steps it warms up over
WARMUP_PARTS = {LONG_WARMUP: LONG_WARMUP_FRACTION, NO_WARMUP: 0.0}


def split_schedule(variant: str) -> tuple[str, float | None]:
    """(the architecture's expression, the warm-up fraction it asks for or None): ``'post_ln+long_warmup'`` ->
    ``('post_ln', 0.5)``, ``'post_ln+no_warmup'`` -> ``('post_ln', 0.0)``; ``'long_warmup'`` or ``'no_warmup'``
    alone is the baseline with that warm-up. Both parts in one expression are refused."""
    parts = split_variant(variant)
    asked = [p for p in parts if p in WARMUP_PARTS]
    if len(asked) > 1:
        raise UserError(
            f"variant {variant!r} asks for {' and '.join(asked)}; a model trains with one warm-up: "
            f"keep one of {', '.join(WARMUP_PARTS)}"
        )
    rest = [p for p in parts if p not in WARMUP_PARTS]
    return "+".join(rest) or "baseline", (WARMUP_PARTS[asked[0]] if asked else None)


def split_steps(variant: str) -> tuple[str, int | None]:
    """(the rest of the expression, the steps it asks for or None): ``'mla+steps2000'`` -> ``('mla', 2000)``;
    ``'steps2000'`` alone is the baseline with that budget. Two budgets in one expression are refused."""
    parts = split_variant(variant)
    asked = [p for p in parts if STEPS_PART.fullmatch(p)]
    if len(asked) > 1:
        raise UserError(f"variant {variant!r} asks for {' and '.join(asked)}; a model trains with one budget: keep one")
    rest = [p for p in parts if not STEPS_PART.fullmatch(p)]
    steps = int(STEPS_PART.fullmatch(asked[0]).group(1)) if asked else None
    if steps is not None and steps < 1:
        raise UserError(f"variant {variant!r} asks for {asked[0]}; a model trains at least 1 step")
    return "+".join(rest) or "baseline", steps


def with_warmup(spec: TransformerSpec, fraction: float | None, steps: int | None = None) -> TransformerSpec:
    """The spec carrying its own warm-up and budget (unchanged when both are None)."""
    if fraction is None and steps is None:
        return spec
    return ScheduledSpec(**dataclasses.asdict(spec), warmup_fraction=fraction, steps=steps)


def settings_for(spec: TransformerSpec, settings: TrainSettings) -> TrainSettings:
    """The profile's training settings with the spec's own budget and warm-up, if it has them (the warm-up:
    round(fraction x steps))."""
    steps = getattr(spec, "steps", None)
    if steps is not None:
        settings = dataclasses.replace(settings, steps=steps)
    fraction = getattr(spec, "warmup_fraction", None)
    if fraction is None:
        return settings
    return dataclasses.replace(settings, warmup_steps=int(round(fraction * settings.steps)))


def steps_of(spec: dict[str, Any], profile_steps: int) -> int:
    """The training steps a stored spec trained with (its own, else the profile's)."""
    return spec.get("steps") or profile_steps


def warmup_of(spec: dict[str, Any], profile_warmup: int, steps: int) -> int:
    """The warm-up steps a stored spec trained with (its own, else the profile's)."""
    fraction = spec.get("warmup_fraction")
    return profile_warmup if fraction is None else int(round(fraction * steps_of(spec, steps)))
