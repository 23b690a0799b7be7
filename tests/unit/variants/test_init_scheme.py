"""Initialisation schemes and untied output layers of the Transformer and the mixer LMs (variants/models/init_scheme.py)."""

import dataclasses

import pytest
import torch

from variants.models import mixer_lm, transformer
from variants.models.init_scheme import INIT_SCHEMES, init_problem, weight_std
from variants.models.mixer_lm import MixerSpec
from variants.spec import TransformerSpec, problems


def _stds(model):
    return {name: float(p.detach().std()) for name, p in model.named_parameters()}


def test_fan_in_scheme_draws_each_projection_at_one_over_its_fan_in():
    torch.manual_seed(0)
    spec = TransformerSpec(vocab_size=64, d_model=256, n_heads=4, n_layers=2, init="fan_in")
    stds = _stds(transformer.build(spec))
    # a query projection (256 -> 256): std 256^-0.5 = 0.0625; the FFN's down (1024 -> 256), a residual output,
    # 1024^-0.5 / sqrt(2 x 2) = 0.015625
    assert stds["blocks.0.attn.q_proj.weight"] == pytest.approx(256**-0.5, rel=0.05)
    assert stds["blocks.0.ffn.down.weight"] == pytest.approx(1024**-0.5 / 2, rel=0.05)
    assert stds["embed.weight"] == pytest.approx(256**-0.5, rel=0.05)


def test_gpt2_scheme_is_the_default_and_unchanged():
    torch.manual_seed(0)
    stds = _stds(transformer.build(TransformerSpec(vocab_size=64, d_model=256, n_heads=4, n_layers=2)))
    assert stds["blocks.0.attn.q_proj.weight"] == pytest.approx(0.02, rel=0.05)
    assert stds["blocks.0.ffn.down.weight"] == pytest.approx(0.02 / 2, rel=0.05)


def test_untied_output_layer_is_its_own_parameter():
    tied = transformer.build(TransformerSpec(vocab_size=64, d_model=32, n_heads=4))
    untied = transformer.build(TransformerSpec(vocab_size=64, d_model=32, n_heads=4, tie_embeddings=False))
    assert tied.head.weight is tied.embed.weight
    assert untied.head.weight is not untied.embed.weight
    assert untied.num_parameters() - tied.num_parameters() == 64 * 32
    m = mixer_lm.build(MixerSpec(vocab_size=64, d_model=32, tie_embeddings=False, init="fan_in"))
    assert m.head.weight is not m.embed.weight


def test_new_fields_at_their_defaults_keep_every_earlier_hash():
    spec = TransformerSpec()
    assert "init" not in spec.to_dict() and "tie_embeddings" not in spec.to_dict()
    assert "init" not in MixerSpec().to_dict() and "tie_embeddings" not in MixerSpec().to_dict()
    assert dataclasses.replace(spec, init="fan_in").content_hash() != spec.content_hash()
    assert MixerSpec(tie_embeddings=False).content_hash() != MixerSpec().content_hash()


def test_unknown_scheme_is_named_with_the_choices():
    assert init_problem("fan_in") == ""
    message = init_problem("xavier")
    assert "xavier" in message and all(name in message for name in INIT_SCHEMES)
    assert message in problems(TransformerSpec(init="xavier"))
    assert message in MixerSpec(init="xavier").problems()
    with pytest.raises(ValueError):
        weight_std("xavier", 64)


def test_presets_set_the_scheme_and_the_tying_on_top_of_a_suites_base():
    from suites.recall.suite import PROFILES, Recall
    from variants.spec import resolve

    spec = resolve("rope+fan_in+untied")
    assert (spec.init, spec.tie_embeddings) == ("fan_in", False)
    back = Recall().spec_for("rope+gpt2_init+tied", PROFILES["quick"], {})  # the recall base is fan_in, untied
    assert (back.init, back.tie_embeddings) == ("gpt2", True)
    mixer = Recall().spec_for("mingru+gpt2_init", PROFILES["quick"], {})
    assert (mixer.init, mixer.tie_embeddings) == ("gpt2", False)
