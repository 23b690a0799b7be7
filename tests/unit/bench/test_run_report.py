"""`bench run report=true` reports the group the run wrote, never a newer one of another run."""

import time

from bench.cli import main
from tests.tiny import DECODER, tiny

TINY = [
    *tiny("position_extrapolation", DECODER, steps=None, finetune_steps=1, eval_multipliers=[1, 2]),
    "variants=[rope]",
]


def test_a_run_reports_its_own_group_not_the_newest(tmp_path, capsys):
    dirs = [f"results_dir={tmp_path / 'results'}", f"reports_dir={tmp_path / 'reports'}"]
    assert main(["run", *dirs, *TINY, "set.steps=2"]) == 0
    time.sleep(1.1)  # records are stamped to the second: two tiny runs in one second would tie for the newest
    assert main(["run", *dirs, *TINY, "set.steps=3"]) == 0  # another group, now the newest
    capsys.readouterr()
    assert main(["run", *dirs, *TINY, "set.steps=2", "report=true"]) == 0  # stored: nothing reruns, it reports
    out = capsys.readouterr().out
    assert "set.steps=2" in out and "reported the one selected" in out
    first_screen = (
        (tmp_path / "reports" / "position_extrapolation.md").read_text().splitlines()[:10]
    )  # title, its line, a load note
    assert any(l.startswith("Records: profile=quick steps=2 ") and "of 2 groups" in l for l in first_screen)


def test_the_run_names_the_command_that_rebuilds_its_own_report(tmp_path, capsys):
    assert main(["run", f"results_dir={tmp_path}", *TINY, "set.steps=2"]) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if "rebuilds this run's report" in l)
    for key in (
        "suite=position_extrapolation",
        "profile=quick",
        "device=cpu",
        "dtype=float32",
        "suite_version=",
        "data=",
        "set.steps=2",
        f"results_dir={tmp_path}",
    ):
        assert key in line


def test_a_folder_of_no_known_suite_is_left_out_with_a_warning_not_fatal(tmp_path, capsys):
    import shutil

    results = tmp_path / "results"
    dirs = [f"results_dir={results}", f"reports_dir={tmp_path / 'reports'}"]
    assert main(["run", *dirs, *TINY, "set.steps=2"]) == 0
    (results / "notasuite").mkdir()
    shutil.copy(next((results / "position_extrapolation").glob("*.jsonl")), results / "notasuite" / "x.jsonl")
    capsys.readouterr()
    for which in ([], ["suite=position_extrapolation"]):
        assert main(["report", *dirs, *which]) == 0
        assert (tmp_path / "reports" / "index.md").is_file()
    assert "no known suite 'notasuite'" in capsys.readouterr().err
