"""The recurrent arms of language_modeling: a mixer LM (Mamba-2, GLA, DeltaNet, Gated DeltaNet, minGRU, linear
attention, hybrids) at the baseline Transformer's parameter count.

A variant that sets a ``mixer`` builds a MixerSpec with the baseline's depth, heads, vocabulary and initialisation
(variants/models/mixer_lm.py: Pre-LN blocks with a GELU FFN, the baseline's width, depth and heads), its FFN sized until
the model's parameter count is nearest the baseline's (suites/common/families.py ``matched`` over ``d_ff``, as
grouped-query arms are matched): a comparison at equal parameters, the FFN width shown in the record's spec. No position encoding: the recurrence carries
order (a hybrid's attention blocks lean on it too).
"""

from __future__ import annotations

from suites.common.families import count, matched
from variants.models.mixer_lm import MixerSpec
from variants.spec import TransformerSpec, resolve


def mixer_spec(variant: str, base: TransformerSpec) -> MixerSpec:
    """The mixer LM ``variant`` names, its FFN sized to the parameter count nearest ``base``'s."""
    spec = resolve(
        variant,
        MixerSpec(
            vocab_size=base.vocab_size,
            d_model=base.d_model,
            n_layers=base.n_layers,
            n_heads=base.n_heads,
            init=base.init,
            tie_embeddings=base.tie_embeddings,
        ),
    )
    if spec.problems():  # refused as it is: the planner says why, before any width is tried
        return spec
    return matched(spec, count(base), range(1, 8 * spec.d_model + 1), field="d_ff")
