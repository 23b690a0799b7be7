"""Bad input to ``bench run``: every one is a single sentence naming the key, exit status 2, no traceback,
and nothing is trained or written. Good input of the same kinds is still accepted (dry runs).

The table runs in-process through ``bench.cli.main``; every suite's ``run_job`` is replaced by one that
records the call, so a bad value that slipped through planning would show as a training attempt.
"""

import re
from pathlib import Path

import pytest
import torch
from bad_inputs import BAD, CUDA, LM_TINY  # the table of bad input, and the settings it is written with

from bench.cli import main
from bench.config import RunConfig, parse, usable_device
from harness.contract import suites
from harness.errors import UsageError
from harness.footprint import memory_bytes
from harness.overrides import apply_overrides
from harness.rules import problems_of


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    (root / "empty.txt").write_text("")
    (root / "ten.txt").write_text("abcdefghij")
    (root / "afile").write_text("not a folder")
    (root / "src.txt").write_text("one\ntwo\nthree\n")
    (root / "tgt.txt").write_text("un\ndeux\ntrois\n")
    (root / "adir").mkdir()
    (root / "shared").mkdir()
    (root / "shared").chmod(0o777)
    (root / "loop_a").symlink_to(root / "loop_b")
    (root / "loop_b").symlink_to(root / "loop_a")
    with open(root / "huge.txt", "wb") as sparse:  # as large as this machine's memory, taking no disk
        sparse.truncate(memory_bytes() or 2**40)
    return {
        "loop": root / "loop_a",
        "huge": root / "huge.txt",
        "empty": root / "empty.txt",
        "ten": root / "ten.txt",
        "file": root / "afile",
        "missing": root / "missing.txt",
        "tiny_src": root / "src.txt",
        "tiny_tgt": root / "tgt.txt",
        "dir": root / "adir",
        "world_writable": root / "shared",
    }


@pytest.fixture
def no_training(monkeypatch):
    """Every suite's run_job replaced by one that records the attempt (and fails it)."""
    calls = []
    for name in suites.names():
        suite = suites.get(name)

        def refuse(spec, profile, seed, ctx, _name=name):
            calls.append(_name)
            raise AssertionError(f"{_name} trained on bad input")

        monkeypatch.setattr(suite, "run_job", refuse)
    return calls


def fill(text, files):
    """``text`` with each <name> replaced by the path of that file."""
    return re.sub(r"<(\w+)>", lambda m: str(files[m.group(1)]), text)


def run(capsys, args):
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_table_has_at_least_150_bad_inputs_across_suites():
    assert len(BAD) >= 150
    named = {a.split("=", 1)[1] for args, _, _ in BAD for a in args if a.startswith("suite=")}
    assert {
        "language_modeling",
        "training_stability",
        "attention_scaling",
        "gradient_flow",
        "kv_cache",
        "attention_cost",
        "translation",
    } <= named


@pytest.mark.parametrize(
    "args,key,value", BAD, ids=[" ".join(a).encode("unicode_escape").decode()[:60] for a, _, _ in BAD]
)
def test_bad_input_is_one_sentence_naming_the_key_exit_2_before_any_compute(
    capsys, tmp_path, files, no_training, args, key, value
):
    args = [fill(a, files) for a in args]
    results = tmp_path / "results"
    if not any(a.startswith("results_dir=") for a in args):
        args.append(f"results_dir={results}")
    code, out, err = run(capsys, [*args, "progress=false"])
    assert code == 2, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bench: "), err
    assert key in err, f"{key!r} not named in {err!r}"
    assert fill(value, files) in err, f"{value!r} not shown in {err!r}"
    assert no_training == [], "a job started"
    assert not results.exists() or not any(results.rglob("*")), "something was written"
    assert "Plan:" not in out  # refused before the plan, let alone a job


def test_interpolation_is_never_resolved(capsys, tmp_path, monkeypatch, no_training):
    monkeypatch.setenv("BENCH_SECRET_DIR", "/resolved/secret")
    code, _, err = run(capsys, ["data=${oc.env:BENCH_SECRET_DIR}", f"results_dir={tmp_path}"])
    assert code == 2 and "/resolved/secret" not in err and "${oc.env:BENCH_SECRET_DIR}" in err


def test_dtype_choices_are_only_those_of_the_suite(capsys, tmp_path, no_training):
    code, _, err = run(capsys, ["suite=translation", "dtype=float8", f"results_dir={tmp_path}"])
    assert code == 2 and "dtype=float32" in err
    assert not re.search(r"\b(float16|float64|bfloat16)\b", err)
    code, _, err = run(capsys, ["dtype=float8", f"results_dir={tmp_path}"])  # position_extrapolation: float32, bfloat16
    assert (
        code == 2
        and "dtype=float32" in err
        and "dtype=bfloat16" in err
        and not re.search(r"\b(float16|float64)\b", err)
    )


def test_a_folder_check_leaves_nothing_behind(capsys, tmp_path, no_training):
    code, _, _ = run(capsys, ["set.steps=0", f"results_dir={tmp_path}", f"reports_dir={tmp_path / 'r'}"])
    assert code == 2 and list(tmp_path.iterdir()) == []


def test_cuda_devices_are_checked_against_those_present(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert usable_device("device", "cuda") is None
    assert usable_device("device", "cuda:1") is None
    assert "sees 2" in usable_device("device", "cuda:2")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert "no CUDA device" in usable_device("device", "cuda:0")
    assert usable_device("device", "cpu") is None and usable_device("device", "auto") is None


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device; torch sees none")
def test_cuda_0_is_accepted_where_present(capsys, tmp_path):
    code, out, err = run(
        capsys, ["device=cuda:0", "variants=[rope]", "dry_run=true", f"results_dir={tmp_path}", *LM_TINY]
    )
    assert code == 0, err


GOOD = [
    ["variants=rope", "seeds=[0]", *LM_TINY],
    ["variants=[rope, alibi]", "seeds=[0,1]", "set.lr=1e-3", "set.eval_multipliers=[1,2]", *LM_TINY],
    ["variants=[rope]", "protocol=sliding", "set.stride=8", "set.lr=3", "dry_run=yes", *LM_TINY],
    ["variants=[alibi]", "device=cpu", "dtype=bfloat16", "set.warmup_steps=0", "set.weight_decay=0", *LM_TINY],
    ["variants=[rope]", "data=<corpus>", *LM_TINY],
    ["variants=[rope]", "set.steps=5", "set.steps=3", *LM_TINY],  # the later value wins
    ["suite=language_modeling", "variants=[baseline]", "set.position=alibi", *LM_TINY],
    [
        "suite=training_stability",
        "set.warmups=[0]",
        "set.grad_clip=0",
        "set.depths=[1]",
        "set.d_model=16",
        "set.n_heads=2",
        "set.train_len=16",
        "set.eval_tokens=64",
    ],
    [
        "suite=attention_scaling",
        "set.d_ks=[8]",
        "set.curve_every=2",
        "set.steps=4",
        "set.train_len=16",
        "set.eval_tokens=64",
    ],
    ["suite=gradient_flow", "set.lags=[2,3]", "set.clip_lag=2", "set.radii=[0.5]"],
    ["suite=kv_cache", "set.threads=0", "set.contexts=[8]"],
    ["suite=attention_cost", "set.max_call_s=0", "set.passes=[fwd]", "set.causal=[false,true]", "set.lengths=[16]"],
    ["suite=translation", "variants=[lstm]", "set.test_limit=0", "set.length_buckets=[5,10]", "set.dropout=0"],
]


@pytest.mark.parametrize("args", GOOD, ids=[" ".join(a)[:60] for a in GOOD])
def test_good_input_is_still_accepted(capsys, tmp_path, no_training, args):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the quick brown fox jumps over the lazy dog. " * 200)
    args = [fill(a, {"corpus": corpus}) for a in args]
    code, out, err = run(capsys, [*args, "dry_run=true", "progress=false", f"results_dir={tmp_path / 'results'}"])
    assert code == 0, err
    assert "dry_run=true: nothing was run" in out and no_training == []


def test_every_built_in_profile_keeps_its_own_rules():
    for name in suites.names():
        for profile in suites.get(name).profiles.values():
            assert problems_of(profile) == [] and profile.problems() == [], (name, profile.name)


def test_overrides_keep_the_types_job_hashes_were_made_with():
    profile = suites.get("position_extrapolation").profiles["quick"]
    changed = apply_overrides(
        profile, {"lr": "3", "eval_multipliers": "[1,2]", "protocol": "sliding", "steps": "1_000"}
    )
    assert changed.lr == 3.0 and isinstance(changed.lr, float)
    assert changed.eval_multipliers == (1, 2) and changed.protocol == "sliding" and changed.steps == 1000
    assert apply_overrides(profile, {"lr": 0.5}).lr == 0.5  # typed values from code are accepted too
    with pytest.raises(UsageError, match=r"set\.lr=x"):
        apply_overrides(profile, {"lr": "x"})


def test_report_refuses_an_unwritable_reports_folder(capsys, files):
    code = main(["report", "reports_dir=/proc/x"])
    _, err = capsys.readouterr()
    assert code == 2 and "reports_dir" in err and "Traceback" not in err


def test_parse_gives_typed_values():
    cfg = parse(["variants=rope", "seeds=[0, 2]", "dry_run=true", "set.steps=7", "submitit.timeout_min=5"], RunConfig)
    assert cfg.variants == ["rope"] and cfg.seeds == [0, 2] and cfg.dry_run is True
    assert cfg.set == {"steps": "7"} and cfg.submitit == {"timeout_min": 5}


def read_only(monkeypatch, folder):
    """Make ``folder`` read-only to the write check, as a read-only mount is (which root cannot write either)."""
    import errno
    import tempfile

    import bench.config

    real = tempfile.mkdtemp

    def mkdtemp(*args, dir=None, **kwargs):
        if dir is not None and str(dir).startswith(str(folder)):
            raise OSError(errno.EROFS, "Read-only file system")
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(bench.config.tempfile, "mkdtemp", mkdtemp)


@pytest.mark.parametrize("key", ["results_dir", "reports_dir"])
def test_a_read_only_folder_is_refused_before_any_compute(capsys, tmp_path, no_training, monkeypatch, key):
    folder = tmp_path / "ro"
    folder.mkdir()
    read_only(monkeypatch, folder)
    code, out, err = run(
        capsys,
        ["variants=[rope]", f"results_dir={tmp_path / 'results'}", f"{key}={folder}", "progress=false", *LM_TINY],
    )
    assert code == 2 and no_training == [] and "Plan:" not in out and "Traceback" not in err
    example = "reports" if key == "reports_dir" else "results"
    assert err.strip() == (
        f"bench: {key}={folder} cannot be written (Read-only file system in it); give a folder "
        f"that can be written, e.g. {key}={example}."
    )
    assert main(["report", f"reports_dir={folder / 'sub'}"]) == 2
    assert "Read-only file system" in capsys.readouterr().err


def test_a_folder_without_write_permission_is_refused(capsys, tmp_path, no_training):
    import os
    import stat

    if os.geteuid() == 0:
        pytest.skip("root writes into a folder without write permission; the read-only case is tested through EROFS")
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        code, _, err = run(capsys, ["variants=[rope]", f"results_dir={folder / 'results'}", *LM_TINY])
    finally:
        folder.chmod(stat.S_IRWXU)
    assert code == 2 and no_training == [] and "Permission denied" in err and "results_dir=" in err


REFERENCE = Path(__file__).resolve().parents[2] / "reference" / "results"
LONG = "/tmp/" + "q" * 300

# bad input to `bench report` and `bench compare`: (arguments, the key the message names, a fragment it shows);
# <reference> stands for the stored reference results, read only
OTHER_BAD = [
    (["report", f"results_dir={LONG}"], "results_dir", "q" * 50),
    (["report", "results_dir=<file>"], "results_dir", "afile"),
    (["report", f"reports_dir={LONG}"], "reports_dir", "q" * 50),
    (["report", "reports_dir=<file>"], "reports_dir", "afile"),
    (["report", "suite=nope"], "suite", "nope"),
    (["report", "index=maybe"], "index", "maybe"),
    (["report", "colour=red"], "colour", "colour"),
    (["report", "suite=kv_cache", "profile=huge", "results_dir=<reference>"], "profile", "huge"),
    (["compare", "rope", "rope"], "rope", "twice"),
    (["compare", "rope"], "two variants", "rope"),
    (["compare", "rope", "alibi", f"results_dir={LONG}"], "results_dir", "q" * 50),
    (["compare", "rope", "alibi", "results_dir=<file>"], "results_dir", "afile"),
    (["compare", "rope", "alibi", "metric=nosuch", "results_dir=<reference>"], "metric", "nosuch"),
    (["compare", "rope", "alibi", "suite=position_extrapolation", "at=999", "results_dir=<reference>"], "at", "999"),
    (["compare", "rope", "alibi", "suite=nope", "results_dir=<reference>"], "suite", "nope"),
    (["compare", "rope", "alibi", "colour=red"], "colour", "colour"),
]


@pytest.mark.parametrize("args,key,value", OTHER_BAD, ids=[" ".join(a)[:60] for a, _, _ in OTHER_BAD])
def test_bad_input_to_report_and_compare_is_one_sentence_and_exit_2(capsys, tmp_path, files, args, key, value):
    if any("<reference>" in a for a in args) and not REFERENCE.is_dir():
        pytest.skip("no stored reference results")
    args = [fill(a, {**files, "reference": REFERENCE}) for a in args]
    if not any(a.startswith("results_dir=") for a in args):
        args.append(f"results_dir={tmp_path / 'results'}")
    if args[0] == "report" and not any(a.startswith("reports_dir=") for a in args):
        args.append(f"reports_dir={tmp_path / 'reports'}")
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert "Traceback" not in err and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bench: "), err
    assert key in err and fill(value, files) in err, err
    assert not (tmp_path / "reports").exists()
