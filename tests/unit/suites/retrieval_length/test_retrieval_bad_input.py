"""Bad settings of retrieval_length are refused before any compute, in one sentence naming the key, with status 2."""

import pytest

from bench.cli import main
from harness.contract import suites


@pytest.fixture
def no_training(monkeypatch):
    suite = suites.get("retrieval_length")

    def refuse(*args, **kwargs):
        raise AssertionError("trained on bad input")

    monkeypatch.setattr(suite, "run_job", refuse)


@pytest.mark.parametrize(
    "setting, key, said",
    [
        ("set.needle_depths=[0,1.5]", "set.needle_depths", "1.5"),
        ("set.needle_depths=[-0.1]", "set.needle_depths", "-0.1"),
        ("set.finetune_len=32", "set.finetune_len", "32"),
        ("set.task=haystack", "set.task", "haystack"),
        ("set.short_finetune_steps=500", "set.short_finetune_steps", "500"),
        ("set.train_len=40", "set.train_len", "40"),
        ("set.finetune_task=lm", "set.finetune_task", "lm"),
    ],
)
def test_bad_input_is_refused_naming_the_key_and_the_choices(capsys, tmp_path, no_training, setting, key, said):
    code = main(["run", "suite=retrieval_length", "variants=[rope]", setting, f"results_dir={tmp_path}"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert key in err and said in err and "Traceback" not in err
    assert not list(tmp_path.rglob("*.jsonl"))


def test_the_valid_choices_are_said():
    from harness.errors import UsageError
    from harness.overrides import apply_overrides

    profile = suites.get("retrieval_length").profiles["quick"]
    with pytest.raises(UsageError, match=r"set\.task.*passkey"):
        apply_overrides(profile, {"task": "haystack"}).check()
    with pytest.raises(UsageError, match=r"set\.needle_depths.*<= 1"):
        apply_overrides(profile, {"needle_depths": "[0.5,2]"}).check()
    with pytest.raises(UsageError, match=r"at least 64"):
        apply_overrides(profile, {"finetune_len": "32"}).check()
