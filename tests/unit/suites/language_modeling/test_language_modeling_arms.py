"""language_modeling's control arms: a variant's own warm-up (schedule.py) and the sinusoidal scoring arm."""

import dataclasses

from bench.index.design import is_transformer
from harness.contract import suites
from harness.train import TrainSettings
from suites.language_modeling.schedule import LONG_WARMUP_FRACTION, settings_for, split_schedule, with_warmup
from variants.spec import TransformerSpec


def test_long_warmup_is_read_off_the_expression():
    assert split_schedule("post_ln+long_warmup") == ("post_ln", LONG_WARMUP_FRACTION)
    assert split_schedule("long_warmup") == ("baseline", LONG_WARMUP_FRACTION)
    assert split_schedule("sinusoidal+additive+naive") == ("sinusoidal+additive+naive", None)


def test_a_spec_without_its_own_warm_up_keeps_its_dict_and_hash():
    spec = TransformerSpec(norm_placement="post")
    assert with_warmup(spec, None) is spec
    own = with_warmup(spec, 0.5)
    assert own.to_dict() == {**spec.to_dict(), "warmup_fraction": 0.5} and own.content_hash() != spec.content_hash()
    assert dataclasses.replace(own, warmup_fraction=None).to_dict() == spec.to_dict()


def test_the_own_warm_up_is_a_share_of_the_steps():
    settings = TrainSettings(steps=500, lr=3e-3, warmup_steps=50)
    assert settings_for(with_warmup(TransformerSpec(), 0.5), settings).warmup_steps == 250
    assert settings_for(TransformerSpec(), settings) is settings


def test_the_suite_resolves_the_control_arms():
    lm = suites.get("language_modeling")
    profile = lm.profiles["standard"]
    post = lm.spec_for("post_ln+long_warmup", profile, {"data": "pydoc"})
    assert post.norm_placement == "post" and post.warmup_fraction == LONG_WARMUP_FRACTION
    additive = lm.spec_for("sinusoidal+additive+naive", profile, {"data": "pydoc"})
    assert (additive.position, additive.scoring, additive.kernel) == ("sinusoidal", "additive", "naive")
    assert not hasattr(lm.spec_for("post_ln", profile, {"data": "pydoc"}), "warmup_fraction")


def test_the_quality_cost_table_leaves_out_a_spec_with_its_own_warm_up():
    # joined on its design (Post-LN), its runs would be averaged with post_ln's own
    spec = with_warmup(TransformerSpec(norm_placement="post"), 0.5).to_dict()
    assert not is_transformer(spec) and is_transformer(TransformerSpec(norm_placement="post").to_dict())


def test_depth_and_budget_parts_give_the_spec_its_own_layers_and_steps_and_leave_others_unchanged():
    from suites.language_modeling.depth import split_depth
    from suites.language_modeling.schedule import split_steps

    assert split_depth("post_ln+no_warmup+depth6") == ("post_ln+no_warmup", 6) and split_depth("depth6") == (
        "baseline",
        6,
    )
    assert split_steps("mla+steps2000") == ("mla", 2000) and split_steps("mla") == ("mla", None)
    lm = suites.get("language_modeling")
    profile = lm.profiles["standard"]
    deep = lm.spec_for("post_ln+no_warmup+depth6", profile, {"data": "pydoc"})
    assert (deep.n_layers, deep.norm_placement, deep.warmup_fraction) == (6, "post", 0.0)
    long = lm.spec_for("mla+steps2000", profile, {"data": "pydoc"})
    assert long.steps == 2000 and long.attention == "mla" and long.n_layers == profile.n_layers
    assert settings_for(long, TrainSettings(steps=500, lr=3e-3, warmup_steps=50)).steps == 2000
    # a variant without either part keeps the dict (and so the hash) its stored records were made with
    plain = lm.spec_for("post_ln+no_warmup", profile, {"data": "pydoc"})
    assert "steps" not in plain.to_dict() and plain.to_dict()["n_layers"] == profile.n_layers


def test_two_depths_or_two_budgets_in_one_expression_are_refused():
    import pytest

    from harness.errors import UserError
    from suites.language_modeling.depth import split_depth
    from suites.language_modeling.schedule import split_steps

    with pytest.raises(UserError):
        split_depth("depth6+depth4")
    with pytest.raises(UserError):
        split_steps("steps10+steps20")


def test_the_equivalence_margin_is_the_sources_step_per_character():
    import math

    from suites.common import char_margin as margins

    # ln(5.16 / 5.01) nats per wordpiece over 4.5 characters: about 0.0066 nats per character, 0.66% of perplexity
    assert margins.TOLERANCE_NATS == math.log(5.16 / 5.01) / margins.CHARS_PER_WORDPIECE
    assert margins.TOLERANCE_PCT == 0.66 and "nats per character" in margins.derivation()
