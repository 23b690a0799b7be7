"""tools/gpu_check.sh: refuses a machine without CUDA in one sentence, its steps fit the 8-minute budget, and every
suite it runs accepts its settings and finds its data (dry runs on CPU), the data carried by `make gpu-carry`."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "gpu_check.sh"


def run_steps():
    """(name, arguments) of each step that runs ``bench.cli run``, continuation lines joined."""
    text = SCRIPT.read_text().replace("\\\n", " ")
    return [
        (m.group(1), shlex.split(m.group(2)))
        for m in re.finditer(r'^step (\w+) \d+ "\$\{RUN\[@\]\}" (.*)$', text, re.M)
    ]


def carried_sword_modules():
    """The SWORD modules `make gpu-carry` copies into .sword/."""
    return re.search(r"^GPU_SWORD_MODULES \?= (.*)$", (ROOT / "Makefile").read_text(), re.M).group(1).split()


def test_steps_fit_the_nine_minute_budget_with_room_for_reports():
    limits = {name: int(seconds) for name, seconds in re.findall(r"^step (\w+) (\d+) ", SCRIPT.read_text(), re.M)}
    assert {"train_position_extrapolation", "kv_cache", "sequence_cost", "attention_cost", "gpu_tests"} <= set(limits)
    # the reports and the set-up take the rest; with a machine's start (1-2 min) the whole call fits a session's
    # 15 minutes of device time with a rerun of no step
    assert sum(limits.values()) <= 9 * 60 - 30


def test_without_cuda_it_exits_2_with_one_sentence_and_runs_nothing(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device: the check would run")
    out = tmp_path / "out"
    done = subprocess.run(
        ["bash", str(SCRIPT)],
        env={**os.environ, "OUT": str(out), "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "gpu-check needs a CUDA device; torch sees none."
    assert not (out / "results").exists()


def test_the_check_runs_the_suites_whose_claims_need_a_gpu():
    suites = {arg.split("=", 1)[1] for _, args in run_steps() for arg in args if arg.startswith("suite=")}
    assert suites == {"position_extrapolation", "kv_cache", "sequence_cost", "attention_cost"}
    assert all("device=cuda" in args for _, args in run_steps())


@pytest.mark.sword(handles_missing=True)
@pytest.mark.parametrize("name,args", run_steps(), ids=[name for name, _ in run_steps()])
def test_each_suite_step_accepts_its_settings_and_finds_its_data(name, args, tmp_path):
    """The step's command with device=cpu and dry_run=true: every key, value and variant valid and the corpus
    readable, with the SWORD modules from .sword/ as on the GPU machine when `make gpu-carry` made it here. Where
    a module is installed nowhere here, the one refusal allowed is that module's, and gpu-carry must carry it."""
    argv = [("device=cpu" if a == "device=cuda" else a) for a in args]
    env = dict(os.environ)
    if (ROOT / ".sword" / "modules").is_dir():
        env["SWORD_PATH"] = str(ROOT / ".sword")
    done = subprocess.run(
        [sys.executable, "-m", "bench.cli", "run", *argv, "dry_run=true", f"results_dir={tmp_path}", "progress=false"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode == 2 and "needs the SWORD module" in done.stderr:
        module = re.search(r"SWORD module (\w+)", done.stderr).group(1)
        assert module in carried_sword_modules(), f"make gpu-carry does not carry {module}"
        pytest.skip(f"{module} is not installed here (apt-get install sword-text-web)")
    assert done.returncode == 0, done.stderr
    assert "dry_run=true: nothing was run." in done.stdout


def test_attention_cost_runs_every_kernel_of_the_gpu_profile_with_flex_last():
    from harness.contract import suites

    suite = suites.get("attention_cost")
    args = dict(a.split("=", 1) for _, argv in run_steps() for a in argv if "suite=attention_cost" in argv)
    listed = args["variants"].strip("[]").split(",")
    assert sorted(listed) == sorted(suite.variants_for(args["profile"]))
    assert listed[-3:] == ["flex", "flex+gqa2", "flex+mqa"] and listed[0] == "sdpa"
