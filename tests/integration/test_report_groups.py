"""`bench report` covers one group of records: the newest by default, another when its keys are given."""

import pytest
from test_cli import TINY, run_cli

from bench.cli import main
from harness.store import ResultsStore

SUITE = "position_extrapolation"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A real tiny quick run, and beside it an older 'standard' group made from its records, from two commits."""
    root = tmp_path_factory.mktemp("groups") / "results"
    assert (
        main(["run", f"suite={SUITE}", "variants=[rope]", "seeds=[0]", "profile=quick", f"results_dir={root}", *TINY])
        == 0
    )
    store = ResultsStore(root)
    quick = store.load(SUITE)
    assert {r["profile"] for r in quick} == {"quick"}
    for seed, commit in ((0, "feedfacecafe0000"), (1, "0ddba11c0ffee000")):
        older = [
            {
                **r,
                "profile": "standard",
                "profile_settings": {**r["profile_settings"], "steps": 3},
                "seed": seed,
                "git_commit": commit,
                "git_dirty": False,
                "timestamp": "2020-01-0%dT00:00:00+00:00" % (seed + 1),
            }
            for r in quick
        ]
        store.write(SUITE, f"standard{seed}", f"rope-s{seed}", older)
    return root


def test_report_covers_the_newest_group_and_lists_the_others(capsys, results, tmp_path):
    code, out, _ = run_cli(capsys, "report", f"suite={SUITE}", f"results_dir={results}", f"reports_dir={tmp_path}")
    assert code == 0
    assert f"{SUITE}: 2 groups of records" in out and "reported the newest" in out
    assert f"-> bench report suite={SUITE} profile=standard" in out
    text = (tmp_path / f"{SUITE}.md").read_text()
    assert "profile `quick`" in text and "standard" not in text
    assert "seeds [0]" in text and "code from" not in text


def test_profile_selects_the_other_group_whose_setup_names_both_commits(capsys, results, tmp_path):
    code, out, _ = run_cli(
        capsys, "report", f"suite={SUITE}", "profile=standard", f"results_dir={results}", f"reports_dir={tmp_path}"
    )
    assert code == 0 and "reported the one selected" in out
    text = (tmp_path / f"{SUITE}.md").read_text()
    assert "profile `standard`" in text and "seeds [0, 1]" in text and "3 steps" in text
    assert "code from 2 commits (0ddba11c0f, feedfaceca)" in text


def test_report_over_all_suites_still_works(capsys, results, tmp_path):
    code, out, _ = run_cli(capsys, "report", f"results_dir={results}", f"reports_dir={tmp_path}")
    assert code == 0 and (tmp_path / f"{SUITE}.md").exists()


@pytest.mark.parametrize(
    "args,expected",
    [
        (["profile=huge"], "No position_extrapolation results have profile=huge; present: quick, standard."),
        (["device=cuda"], "device=cuda; present: cpu."),
        (["set.stepz=3"], "no setting 'stepz'"),
        (["profle=quick"], "Did you mean 'profile'?"),
    ],
)
def test_an_unknown_group_key_is_one_sentence_with_exit_status_2(capsys, results, tmp_path, args, expected):
    code, _, err = run_cli(
        capsys, "report", f"suite={SUITE}", *args, f"results_dir={results}", f"reports_dir={tmp_path}"
    )
    assert code == 2 and expected in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing was written


def test_the_index_names_every_group_it_does_not_cover_with_the_command_that_reports_it(capsys, results, tmp_path):
    code, _, _ = run_cli(capsys, "report", f"suite={SUITE}", f"results_dir={results}", f"reports_dir={tmp_path}")
    index = (tmp_path / "index.md").read_text()
    assert code == 0 and f"{SUITE} also holds profile=standard" in index
    assert f"`bench report suite={SUITE} profile=standard` reports it." in index


def test_index_false_writes_the_suite_report_alone(capsys, results, tmp_path):
    code, _, _ = run_cli(
        capsys,
        "report",
        f"suite={SUITE}",
        "profile=standard",
        "index=false",
        f"results_dir={results}",
        f"reports_dir={tmp_path}",
    )
    assert code == 0 and (tmp_path / f"{SUITE}.md").exists()
    assert not (tmp_path / "index.md").exists() and not (tmp_path / "support_matrix.md").exists()


def test_a_group_no_keys_select_is_named_as_an_earlier_form_of_its_profile(tmp_path):
    from bench.index.page import other_groups
    from harness.groups import report_command, split_groups
    from harness.report import records_frame

    root = tmp_path / "results"
    assert (
        main(["run", f"suite={SUITE}", "variants=[rope]", "seeds=[0]", "profile=quick", f"results_dir={root}", *TINY])
        == 0
    )
    store = ResultsStore(root)
    newer = store.load(SUITE)
    # the same profile before it declared a setting: its records lack it, so no set.KEY=VALUE can pick them apart
    older = [
        {
            **r,
            "profile_settings": {k: v for k, v in r["profile_settings"].items() if k != "eval_tokens"},
            "timestamp": "2020-01-01T00:00:00+00:00",
        }
        for r in newer
    ]
    store.write(SUITE, "older", "rope-s0", older)
    found = split_groups(records_frame(store.load(SUITE)))
    assert len(found) == 2 and report_command(SUITE, found[1], found) is None
    (line,) = other_groups(store, {SUITE: found[0]})
    assert "an earlier form of its profile (without eval_tokens)" in line and "`bench report suite=" not in line
