"""SIGTERM stops bench run with one sentence, exit status 143, and nothing half-written left behind."""

import signal
import subprocess
import sys
import time


def test_sigterm_during_a_run_says_so_and_exits_143(tmp_path):
    args = [
        sys.executable,
        "-m",
        "bench.cli",
        "run",
        "suite=position_extrapolation",
        "variants=[rope]",
        "set.steps=100000",
        "set.d_model=16",
        "set.n_layers=1",
        "set.n_heads=2",
        "set.train_len=8",
        f"results_dir={tmp_path}",
        "progress=false",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:  # wait for the plan: training has started after it
        line = proc.stdout.readline()
        if "rope" in line and " run" in line:
            break
    time.sleep(2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "stopped by SIGTERM" in err and "Traceback" not in err
    assert not list(tmp_path.glob("*/.tmp-*")) and not list(tmp_path.glob("*/.lock-*"))
