"""A suite that trains nothing, for tests of the run loop: each job appends its label and pid to a log.

``BENCH_COUNTING_LOG`` names the log and ``BENCH_COUNTING_SLEEP`` how long a job takes (seconds);
``BENCH_COUNTING_KILL=LABEL`` kills the process by SIGKILL when it starts the job LABEL (after logging it);
``BENCH_COUNTING_BARRIER=DIR,N`` holds each process's first job until N processes have reached theirs,
so that concurrent runs really overlap. The FFN or norm preset picks an outcome: ``relu`` raises (failed), ``rmsnorm`` diverges, ``swiglu`` is
unsupported; any other spec measures one value. Run as a script, it registers itself and runs ``bench``.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.contract import Diverged, Measurement, Metric, Profile, Suite, Unsupported, suites
from variants.spec import TransformerSpec

NAME = "counting"


class CountingSuite(Suite):
    """Counts its jobs in a log file instead of training."""

    name = NAME
    metrics = (Metric("loss", "nats", False),)
    profiles = {"quick": Profile(name="quick")}
    default_variants = ("baseline",)

    def base_spec(self, profile, options):
        return TransformerSpec(vocab_size=16, d_model=16, n_layers=1, n_heads=2, max_len=8)

    def run_job(self, spec, profile, seed, ctx):
        _barrier()
        with open(os.environ["BENCH_COUNTING_LOG"], "a") as log:
            log.write(f"{ctx.label} {os.getpid()}\n")
        if os.environ.get("BENCH_COUNTING_KILL") == ctx.label:
            import signal

            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(float(os.environ.get("BENCH_COUNTING_SLEEP", "0")))
        if spec.ffn == "relu":
            raise RuntimeError("boom")
        if spec.norm == "rmsnorm":
            raise Diverged("loss became nan at step 3")
        if spec.ffn == "swiglu":
            raise Unsupported("swiglu is not supported by this suite")
        return [Measurement("loss", 1.0)]

    def report(self, records, out_dir):
        from harness.report_sections import Report

        return Report(["# Counting", ""])  # a title and nothing else: the tests read its records, not its report


def _barrier() -> None:
    if not os.environ.get("BENCH_COUNTING_BARRIER"):
        return
    folder, n = os.environ.pop("BENCH_COUNTING_BARRIER").split(",")  # popped: only the first job waits
    (Path(folder) / str(os.getpid())).touch()
    deadline = time.time() + 120
    while len(list(Path(folder).iterdir())) < int(n) and time.time() < deadline:
        time.sleep(0.05)


def register() -> None:
    """Add the suite to the registry once per process."""
    if NAME not in suites:
        suites.add(NAME, CountingSuite())


def trainings(log: Path):
    """The labels trained, in order, from the log."""
    return [line.split()[0] for line in log.read_text().splitlines()] if log.exists() else []


if __name__ == "__main__":
    register()
    from bench.cli import main

    sys.exit(main(sys.argv[1:]))


# --- what the tests of the run loop share (tests/integration/test_run_store.py, test_faults.py) ---------------


@pytest.fixture
def log(tmp_path, monkeypatch):
    """The counting suite registered, its log in a fresh folder, and a cache folder of the test's own."""
    register()
    path = tmp_path / "trained.log"
    monkeypatch.setenv("BENCH_COUNTING_LOG", str(path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return path


@pytest.fixture
def results(tmp_path):
    return tmp_path / "results"


def command(results, *args) -> list[str]:
    """``bench run suite=counting`` into ``results`` with ``args``, as the command line of a process of its own (this
    file as the program)."""
    return [sys.executable, str(Path(__file__).resolve()), "run", f"suite={NAME}", *args, f"results_dir={results}"]


def environment(log: Path, **counting) -> dict[str, str]:
    """This process's environment with the counting log at ``log`` and ``BENCH_COUNTING_<KEY>`` for each of
    ``counting`` (sleep, kill, barrier)."""
    return {
        **os.environ,
        "BENCH_COUNTING_LOG": str(log),
        **{f"BENCH_COUNTING_{k.upper()}": v for k, v in counting.items()},
    }


def run_apart(log: Path, results, *args, **counting) -> subprocess.CompletedProcess:
    """``command(results, *args)`` run to its end with ``environment(log, **counting)``: its exit status and output."""
    return subprocess.run(
        command(results, *args), env=environment(log, **counting), capture_output=True, text=True, timeout=240
    )


def run(capsys, results, *args):
    """``bench run suite=counting seeds=[0]`` into ``results``: (exit status, stdout, stderr)."""
    from bench.cli import main

    code = main(["run", f"suite={NAME}", "seeds=[0]", "progress=false", f"results_dir={results}", *args])
    out, err = capsys.readouterr()
    return code, out, err
