"""tools/gpu_check.sh: refuses a machine without CUDA in one sentence, and its steps fit the 8-minute budget."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "gpu_check.sh"


def test_steps_fit_the_eight_minute_budget_with_room_for_reports():
    limits = {name: int(seconds) for name, seconds in re.findall(r"^step (\w+) (\d+) ", SCRIPT.read_text(), re.M)}
    assert {"train_position_extrapolation", "kv_cache", "attention_cost", "gpu_tests"} <= set(limits)
    assert sum(limits.values()) <= 8 * 60 - 20  # the reports and the set-up take the rest


def test_without_cuda_it_exits_2_with_one_sentence_and_runs_nothing(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device: the check would run")
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(SCRIPT)], env={**os.environ, "OUT": str(out), "PYTHON": sys.executable},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == "gpu-check needs a CUDA device; torch sees none."
    assert not (out / "results").exists()
