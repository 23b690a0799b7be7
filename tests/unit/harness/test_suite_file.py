"""suite.yaml: profiles converted like set.FIELD=value, shared metrics by name, claims by key, one-sentence errors."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest

from harness.contract import Metric, Profile, suites
from harness.errors import UsageError
from harness.rules import at_least
from harness.suite_file import SuiteFile


@dataclass(frozen=True)
class ToyProfile(Profile):
    steps: int = 10
    lr: float = 1e-3
    sizes: tuple[int, ...] = (1, 2)
    label: str = "a"

    rules = {"steps": at_least(1)}


SHARED = {"latency": Metric("latency", "ms", False, "median time of one call")}


def write(tmp_path, text: str) -> SuiteFile:
    folder = tmp_path / "toy"
    folder.mkdir(exist_ok=True)
    (folder / "suite.yaml").write_text(text)
    return SuiteFile(folder / "suite.py")


def test_profiles_take_the_class_defaults_and_convert_like_the_command_line(tmp_path):
    sf = write(
        tmp_path,
        """
profiles:
  quick:
    description: the defaults
  standard:
    description: "longer: 3 seeds"
    seeds: [0, 1, 2]
    steps: 500
    lr: 3e-3
    sizes: [4]
""",
    )
    quick, standard = sf.profiles(ToyProfile).values()
    assert quick == ToyProfile(name="quick", description="the defaults")
    assert standard == ToyProfile(
        name="standard", description="longer: 3 seeds", seeds=(0, 1, 2), steps=500, lr=0.003, sizes=(4,)
    )
    assert isinstance(standard.lr, float) and isinstance(standard.sizes, tuple) and isinstance(standard.seeds, tuple)


@pytest.mark.parametrize(
    "entry, words",
    [
        ("stepz: 5", ["profile standard", "set.stepz", "set.steps"]),
        ("steps: many", ["profile standard", "set.steps", "many"]),
        ("lr: [1, 2]", ["profile standard", "set.lr"]),
    ],
)
def test_a_bad_profile_entry_names_the_file_the_profile_and_the_setting(tmp_path, entry, words):
    sf = write(tmp_path, f"profiles:\n  standard:\n    description: x\n    {entry}\n")
    with pytest.raises(UsageError) as err:
        sf.profiles(ToyProfile)
    message = str(err.value)
    assert str(sf.path) in message and all(w in message for w in words), message


def test_a_file_without_profiles_or_with_an_unknown_section_is_refused(tmp_path):
    with pytest.raises(UsageError, match="declares no profile"):
        write(tmp_path, "metrics: {}\n").profiles(ToyProfile)
    with pytest.raises(UsageError, match="unknown section 'profile'"):
        write(tmp_path, "profile: {}\n")
    with pytest.raises(UsageError, match="is missing"):
        SuiteFile(tmp_path / "nowhere" / "suite.py")


def test_metrics_keep_the_file_order_and_take_shared_ones_by_name(tmp_path):
    sf = write(
        tmp_path,
        """
metrics:
  loss: {unit: nats/char, higher_is_better: false, description: "held-out loss, per character"}
  latency: common
""",
    )
    assert sf.metrics(SHARED) == (Metric("loss", "nats/char", False, "held-out loss, per character"), SHARED["latency"])
    with pytest.raises(UsageError, match="no shared metric"):
        write(tmp_path, "metrics:\n  speed: common\n").metrics(SHARED)
    with pytest.raises(UsageError, match="unit and higher_is_better required"):
        write(tmp_path, "metrics:\n  loss: {unit: nats}\n").metrics(SHARED)


def test_claims_by_key_in_the_order_asked_and_a_missing_key_is_named(tmp_path):
    sf = write(
        tmp_path,
        """
claims:
  first: {name: A holds, source: Someone 2020, published: "x = 1", variants: [a, b]}
  second: {name: B holds, source: Someone 2021, published: "y = 2"}
""",
    )
    second, first = sf.claims("second", "first")
    assert (first.key, first.suite, first.variants) == ("first", "toy", ("a", "b"))
    assert second.variants == ()
    assert [c.key for c in sf.claims()] == ["first", "second"]
    with pytest.raises(UsageError, match="no claim third; its claims: first, second"):
        sf.claims("third")


def test_every_suite_reads_its_file_and_its_profiles_pass_their_checks():
    built_in = [suites.get(name) for name in suites.names() if type(suites.get(name)).__module__.startswith("suites.")]
    assert len(built_in) >= 10
    for suite in built_in:
        name = suite.name
        assert suite.profiles and suite.metrics, name
        for profile in suite.profiles.values():
            profile.check()  # every declared profile is in range
        assert len({m.name for m in suite.metrics}) == len(suite.metrics), name
        declared = SuiteFile.of(sys.modules[type(suite).__module__].__file__).claims()
        assert suite.claims == declared, name  # the report states every claim of the file, in its order


def test_a_setting_added_later_is_left_out_at_its_earlier_value_so_stored_jobs_keep_their_hash():
    import dataclasses

    from harness.overrides import apply_overrides

    for name, key, before in [
        ("gradient_flow", "weight_decay", 0.0),
        ("attention_scaling", "weight_decay", 0.1),
        ("position_extrapolation", "finetune_steps", 0),
    ]:
        profile = suites.get(name).profiles["standard"]
        assert getattr(profile, key) == before and key not in profile.settings(), name
        changed = apply_overrides(profile, {key: str(before + 1)})
        assert changed.settings()[key] == before + 1, name  # any other value is part of the job's identity
        assert dataclasses.replace(changed, **{key: before}).settings() == profile.settings()
