"""Command-line behaviour: every user mistake is one sentence and exit status 2, before any compute."""

import subprocess
import sys

import pytest

from bench.cli import main
from tests.tiny import DECODER, tiny

TINY = tiny(base=DECODER)


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "args,expected",
    [
        (["run", "varients=[rope]"], "Unknown option 'varients'. Did you mean 'variants'?"),
        (["run", "suite=position_extrapolaton"], "Did you mean 'position_extrapolation'"),
        (["run", "variants=[rope,alibbi]"], "Unknown variant preset 'alibbi'"),
        (["run", "variants=rope,alibi"], "variants=[rope,alibi]"),
        (["run", "variants=[rope+alibi]"], "disagree on position"),
        (["run", "profile=huge"], "Unknown profile 'huge'"),
        (["run", "set.stepz=3"], "Did you mean 'set.steps'?"),
        (["run", "set.steps=many"], "Bad profile override"),
        (["run", "protocol=strided"], "choose one of nonoverlapping, sliding"),
        (["run", "device=tpu"], "Unknown device 'tpu'"),
        (["run", "executor=slurm"], "Unknown executor 'slurm'"),
        (["run", "dry_run=maybe"], "Bad option"),
        (["run", "dtype=float64"], "does not compute in float64"),
        (["run", "rope"], "is not key=value"),
        (["list", "widgets"], "Unknown list 'widgets'"),
        (["frobnicate"], "unknown command 'frobnicate'"),
    ],
)
def test_user_errors_are_one_sentence_with_exit_status_2(capsys, tmp_path, args, expected):
    code, out, err = run_cli(
        capsys, *args, *([f"results_dir={tmp_path}"] if args[0] == "run" and len(args) > 1 and "=" in args[1] else [])
    )
    assert code == 2
    assert expected in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing was computed or written


def test_the_console_command_exits_2_without_a_traceback(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "bench.cli", "run", "variants=[alibii]", f"results_dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Did you mean 'alibi'" in done.stderr and "Traceback" not in done.stderr


def test_dry_run_prints_the_plan_and_runs_nothing(capsys, tmp_path):
    code, out, _ = run_cli(
        capsys, "run", "variants=[rope,learned+naive]", "seeds=[0,1]", "dry_run=true", f"results_dir={tmp_path}", *TINY
    )
    assert code == 0
    assert out.count(" run\n") + out.count(" run") >= 4 and "dry_run=true: nothing was run" in out
    assert not any(tmp_path.iterdir())


def test_impossible_specs_are_planned_with_their_reason_and_a_request_of_only_those_is_refused(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "run", "variants=[rope,rope+gqa3]", "dry_run=true", f"results_dir={tmp_path}", *TINY)
    assert code == 0 and "cannot run: n_kv_heads 3 must divide n_heads 2" in out
    code, out, err = run_cli(capsys, "run", "variants=[rope+gqa3]", "dry_run=true", f"results_dir={tmp_path}", *TINY)
    assert code == 2 and "Plan:" not in out and "variants=[rope+gqa3] cannot run with these settings" in err


def test_list_shows_every_section(capsys):
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    for word in ("position_extrapolation", "alibi", "gqa2", "sdpa", "naive", "plugins"):
        assert word in out


def test_report_on_a_corrupt_results_file_is_a_clear_error_and_keeps_the_file(capsys, tmp_path):
    bad = tmp_path / "results" / "position_extrapolation" / "rope-s0-0123.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text("{oops\n")
    code, _, err = run_cli(
        capsys, "report", f"results_dir={tmp_path / 'results'}", f"reports_dir={tmp_path / 'reports'}"
    )
    assert code == 2 and "rope-s0-0123.jsonl is corrupt" in err
    assert bad.read_text() == "{oops\n"


def test_report_without_results_says_what_to_run(capsys, tmp_path):
    code, _, err = run_cli(capsys, "report", f"results_dir={tmp_path}")
    assert code == 2 and "bench run" in err


def test_help(capsys):
    assert main(["--help"]) == 0
    assert "bench run" in capsys.readouterr().out


@pytest.mark.parametrize(
    "command,usage",
    [
        ("run", "bench run key=value"),
        ("list", "bench list [WHAT]"),
        ("report", "bench report key=value"),
        ("compare", "bench compare A B"),
    ],
)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_command_has_help(capsys, command, usage, flag):
    code, out, err = run_cli(capsys, command, flag)
    assert code == 0 and out.startswith(usage) and err == ""


def test_a_closed_pipe_ends_quietly():
    """`bench list | head`: the reader is gone before bench writes; no BrokenPipeError traceback, SIGPIPE's status."""
    child = subprocess.Popen(
        [sys.executable, "-m", "bench.cli", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    child.stdout.close()  # no reader is left, so bench's first write meets a broken pipe
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141
    assert err == ""
