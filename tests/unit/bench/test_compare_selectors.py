"""`bench compare`'s selectors say what `bench report`'s say: the key, the value and the values present; an x given
with at= must be one every compared suite measured."""

import pytest
from test_api import results  # noqa: F401 (fixture: two variants x two seeds, and an older tiny group)

from bench.cli import main


@pytest.mark.parametrize(
    "selection,named",
    [
        (["suite=position_extrapolation", "suite_version=99"], ["suite_version=99", "present: 2"]),
        (["suite=position_extrapolation", "data=zzz"], ["data=zzz", "present: abc"]),
        (["suite=position_extrapolation", "set.steps=7"], ["set.steps=7", "present: 10"]),
        (["suite=position_extrapolation", "set.nosuch=7"], ["nosuch", "settings: "]),
        (["suite=position_extrapolation", "profile=nope"], ["profile=nope", "present: quick"]),
        (["profile=nope"], ["profile=nope", "present: quick"]),
        (["at=12345"], ["at=12345", "suite=position_extrapolation"]),
        (["suite=position_extrapolation", "at=12345"], ["at=12345", "16, 32, 128"]),
    ],
)
def test_a_selection_no_group_has_is_named_with_the_values_present(capsys, results, selection, named):
    code = main(["compare", "sinusoidal", "alibi", *selection, f"results_dir={results}"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    for part in named:
        assert part in err, (part, err)


def test_a_selection_every_group_matches_compares(capsys, results):
    code = main(["compare", "sinusoidal", "alibi", "profile=quick", "at=last", f"results_dir={results}"])
    assert code == 0 and "Verdict:" in capsys.readouterr().out
