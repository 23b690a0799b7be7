"""language_modeling's control arms: a variant's own warm-up (schedule.py) and the sinusoidal scoring arm."""

import dataclasses

from harness.contract import suites
from harness.design import is_transformer
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
