"""Bad input to ``bench run``: every one is a single sentence naming the key, exit status 2, no traceback,
and nothing is trained or written. Good input of the same kinds is still accepted (dry runs).

The table runs in-process through ``harness.cli.main``; every suite's ``run_job`` is replaced by one that
records the call, so a bad value that slipped through planning would show as a training attempt.
"""

import re

import pytest
import torch

from harness.cli import main
from harness.config import RunConfig, parse, usable_device
from harness.errors import UsageError
from harness.plan import apply_overrides
from harness.rules import problems_of
from harness.contract import suites

LM_TINY = ["set.steps=2", "set.d_model=16", "set.n_layers=1", "set.n_heads=2", "set.train_len=8", "set.batch_size=2",
           "set.eval_tokens=256", "set.warmup_steps=1"]
CUDA = torch.cuda.is_available()
#: a CUDA device this machine lacks: cuda:0 without CUDA, else one past the devices present
MISSING_CUDA = f"cuda:{torch.cuda.device_count()}" if CUDA else "cuda:0"

# (arguments after `bench run`, the key the message must name, a fragment of the bad value it must show)
# <empty>, <ten>, <file>, <tiny_src>, <tiny_tgt> and <missing> stand for files made by the `files` fixture.
BAD = [
    # malformed lists and variant expressions
    (["variants=[rope"], "variants", "[rope"),
    (["variants=[rope+]"], "variants", "rope+"),
    (["variants=[+alibi]"], "variants", "+alibi"),
    (["variants=[rope,]"], "variants", "[rope,]"),
    (["variants=[[rope]]"], "variants", "[[rope]]"),
    (["variants=[]"], "variants", "[]"),
    (["variants=[rope,rope]"], "variants", "rope"),
    (["variants=rope,alibi"], "variants", "rope,alibi"),
    (["variants=[ropee]"], "variant", "ropee"),
    (["seeds=[1,2"], "seeds", "[1,2"),
    (["seeds=[1.5]"], "seeds", "1.5"),
    (["seeds=[-1]"], "seeds", "-1"),
    (["seeds=[0,0]"], "seeds", "0"),
    (["seeds=[]"], "seeds", "[]"),
    (["seeds=[a]"], "seeds", "a"),
    (["seeds=[4294967296]"], "seeds", "4294967296"),
    # interpolation and control characters
    (["data=${foo}"], "data", "${foo}"),
    (["data=${oc.env:HOME}"], "data", "${oc.env:HOME}"),
    (["results_dir=${oc.env:HOME}/r"], "results_dir", "${oc.env:HOME}"),
    (["variants=[rope\x01]"], "variants", "\\x01"),
    (["data=corpus\x1b.txt"], "data", "\\x1b"),
    (["suite=position\nextrapolation"], "suite", "\\n"),
    (["set.steps=1\x7f"], "set.steps", "\\x7f"),
    (["profile=quick\x00"], "profile", "\\x00"),
    # types and unknown keys
    (["dry_run=maybe"], "dry_run", "maybe"),
    (["progress=2"], "progress", "2"),
    (["set.steps=1.5"], "set.steps", "1.5"),
    (["set.steps=many"], "set.steps", "many"),
    (["set.lr=abc"], "set.lr", "abc"),
    (["set.eval_multipliers=4,8"], "set.eval_multipliers", "4,8"),
    (["set=5", "set.steps=20"], "set", "5"),
    (["set.steps.x=3"], "set.steps", "set.steps.x"),
    (["set.=3"], "set", "set."),
    (["suite.x=3"], "suite", "suite.x"),
    (["set.stepz=3"], "set.stepz", "stepz"),
    (["steps=5"], "steps", "steps"),
    (["results_dir="], "results_dir", "results_dir="),
    (["executor=slurm"], "executor", "slurm"),
    (["submitit.timeout_min=5"], "submitit", "timeout_min"),
    (["suite=nope"], "suite", "nope"),
    (["profile=huge"], "profile", "huge"),
    # devices, dtypes and folders
    ([f"device={MISSING_CUDA}"], "device", MISSING_CUDA),
    (["device=tpu"], "device", "tpu"),
    (["device=cuda:x"], "device", "cuda:x"),
    (["dtype=float8"], "dtype", "float8"),
    (["dtype=float64"], "dtype", "float64"),
    (["results_dir=<file>"], "results_dir", "afile"),
    (["results_dir=<file>/sub"], "results_dir", "afile"),
    (["results_dir=/proc/x"], "results_dir", "/proc/x"),
    (["reports_dir=<file>"], "reports_dir", "afile"),
    (["reports_dir=/proc/x"], "reports_dir", "/proc/x"),
    # ranges of position_extrapolation's settings
    (["set.steps=0"], "set.steps", "0"),
    (["set.steps=-5"], "set.steps", "-5"),
    (["set.lr=-1"], "set.lr", "-1"),
    (["set.lr=0"], "set.lr", "0"),
    (["set.lr=nan"], "set.lr", "nan"),
    (["set.lr=inf"], "set.lr", "inf"),
    (["set.batch_size=0"], "set.batch_size", "0"),
    (["set.d_model=0"], "set.d_model", "0"),
    (["set.train_len=-8"], "set.train_len", "-8"),
    (["set.eval_multipliers=[]"], "set.eval_multipliers", "[]"),
    (["set.eval_multipliers=[0,1]"], "set.eval_multipliers", "0"),
    (["set.eval_multipliers=[2,2]"], "set.eval_multipliers", "2"),
    (["set.protocol=foo"], "set.protocol", "foo"),
    (["protocol=foo"], "protocol", "foo"),
    (["set.heldout_fraction=1"], "set.heldout_fraction", "1"),
    (["set.heldout_fraction=0"], "set.heldout_fraction", "0"),
    (["set.weight_decay=-0.1"], "set.weight_decay", "-0.1"),
    (["set.warmup_steps=-1"], "set.warmup_steps", "-1"),
    (["set.stride=-1"], "set.stride", "-1"),
    (["protocol=sliding", "set.stride=9999"], "set.stride", "9999"),
    (["set.eval_tokens=10"], "set.eval_tokens", "10"),
    # corpus size against the evaluation plan
    (["data=<empty>"], "data", "empty.txt"),
    (["data=<ten>"], "data", "ten.txt"),
    (["data=<ten>", *LM_TINY], "data", "ten.txt"),
    (["data=<missing>"], "data", "missing.txt"),
    (["set.data=<ten>"], "data", "ten.txt"),
    # language_modeling
    (["suite=language_modeling", "set.position=foo"], "set.position", "foo"),
    (["suite=language_modeling", "data=<ten>"], "data", "ten.txt"),
    (["suite=language_modeling", "set.eval_tokens=4"], "set.eval_tokens", "4"),
    (["suite=language_modeling", "protocol=sliding"], "protocol", "protocol"),
    (["suite=language_modeling", "set.n_heads=-2"], "set.n_heads", "-2"),
    # training_stability
    (["suite=training_stability", "set.init=kaiming"], "set.init", "kaiming"),
    (["suite=training_stability", "set.lrs=[]"], "set.lrs", "[]"),
    (["suite=training_stability", "set.lrs=[-0.01]"], "set.lrs", "-0.01"),
    (["suite=training_stability", "set.warmups=[-1]"], "set.warmups", "-1"),
    (["suite=training_stability", "set.depths=[0]"], "set.depths", "0"),
    (["suite=training_stability", "set.grad_clip=-1"], "set.grad_clip", "-1"),
    (["suite=training_stability", "data=<empty>"], "data", "empty.txt"),
    # attention_scaling
    (["suite=attention_scaling", "set.d_ks=[]"], "set.d_ks", "[]"),
    (["suite=attention_scaling", "set.curve_every=1000"], "set.curve_every", "1000"),
    (["suite=attention_scaling", "set.n_keys=0"], "set.n_keys", "0"),
    (["suite=attention_scaling", "data=<ten>"], "data", "ten.txt"),
    # gradient_flow
    (["suite=gradient_flow", "set.lags=[1,5]"], "set.lags", "1"),
    (["suite=gradient_flow", "set.clip_lag=1"], "set.clip_lag", "1"),
    (["suite=gradient_flow", "set.radii=[0]"], "set.radii", "0"),
    (["suite=gradient_flow", "set.clip_momentum=1"], "set.clip_momentum", "1"),
    (["suite=gradient_flow", "set.alphabet=1"], "set.alphabet", "1"),
    (["suite=gradient_flow", "set.learned_accuracy=0"], "set.learned_accuracy", "0"),
    (["suite=gradient_flow", "data=pydoc"], "data", "data"),
    # kv_cache
    (["suite=kv_cache", "set.contexts=[]"], "set.contexts", "[]"),
    (["suite=kv_cache", "set.threads=-1"], "set.threads", "-1"),
    (["suite=kv_cache", "set.generate=0"], "set.generate", "0"),
    (["suite=kv_cache", "set.prompt_len=-1"], "set.prompt_len", "-1"),
    # attention_cost
    (["suite=attention_cost", "set.passes=[fwd,bwd]"], "set.passes", "bwd"),
    (["suite=attention_cost", "set.lengths=[0]"], "set.lengths", "0"),
    (["suite=attention_cost", "set.causal=[maybe]"], "set.causal", "maybe"),
    (["suite=attention_cost", "set.max_call_s=-1"], "set.max_call_s", "-1"),
    (["suite=attention_cost", "set.min_run_time=0"], "set.min_run_time", "0"),
    (["suite=attention_cost", "dtype=float8"], "dtype", "float8"),
    # translation
    (["suite=translation", "set.max_len=2"], "set.max_len", "2"),
    (["suite=translation", "set.beam_size=0"], "set.beam_size", "0"),
    (["suite=translation", "set.length_buckets=[30,10]"], "set.length_buckets", "[30,10]"),
    (["suite=translation", "set.dropout=1"], "set.dropout", "1"),
    (["suite=translation", "set.vocab_size=2"], "set.vocab_size", "2"),
    (["suite=translation", "set.test_limit=-1"], "set.test_limit", "-1"),
    (["suite=translation", "data=nope"], "data", "nope"),
    (["suite=translation", "data=<tiny_src>,<tiny_tgt>"], "data", "20"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    (root / "empty.txt").write_text("")
    (root / "ten.txt").write_text("abcdefghij")
    (root / "afile").write_text("not a folder")
    (root / "src.txt").write_text("one\ntwo\nthree\n")
    (root / "tgt.txt").write_text("un\ndeux\ntrois\n")
    return {"empty": root / "empty.txt", "ten": root / "ten.txt", "file": root / "afile", "missing": root / "missing.txt",
            "tiny_src": root / "src.txt", "tiny_tgt": root / "tgt.txt"}


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


def test_the_table_has_at_least_sixty_bad_inputs_across_suites():
    assert len(BAD) >= 60
    named = {a.split("=", 1)[1] for args, _, _ in BAD for a in args if a.startswith("suite=")}
    assert {"language_modeling", "training_stability", "attention_scaling", "gradient_flow", "kv_cache",
            "attention_cost", "translation"} <= named


@pytest.mark.parametrize("args,key,value", BAD, ids=[" ".join(a).encode("unicode_escape").decode()[:60] for a, _, _ in BAD])
def test_bad_input_is_one_sentence_naming_the_key_exit_2_before_any_compute(capsys, tmp_path, files, no_training, args, key, value):
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
    assert code == 2 and "dtype=float32" in err and "dtype=bfloat16" in err and not re.search(r"\b(float16|float64)\b", err)


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
    code, out, err = run(capsys, ["device=cuda:0", "variants=[rope]", "dry_run=true", f"results_dir={tmp_path}", *LM_TINY])
    assert code == 0, err


GOOD = [
    ["variants=rope", "seeds=0", *LM_TINY],
    ["variants=[rope, alibi]", "seeds=[0,1]", "set.lr=1e-3", "set.eval_multipliers=[1,2]", *LM_TINY],
    ["variants=[rope]", "protocol=sliding", "set.stride=8", "set.lr=3", "dry_run=yes", *LM_TINY],
    ["variants=[alibi]", "device=cpu", "dtype=bfloat16", "set.warmup_steps=0", "set.weight_decay=0", *LM_TINY],
    ["variants=[rope]", "data=<corpus>", *LM_TINY],
    ["variants=[rope]", "set.steps=5", "set.steps=3", *LM_TINY],  # the later value wins
    ["suite=language_modeling", "variants=[baseline]", "set.position=alibi", *LM_TINY],
    ["suite=training_stability", "set.warmups=[0]", "set.grad_clip=0", "set.depths=[1]", "set.d_model=16", "set.n_heads=2",
     "set.train_len=16", "set.eval_tokens=64"],
    ["suite=attention_scaling", "set.d_ks=[8]", "set.curve_every=2", "set.steps=4", "set.train_len=16", "set.eval_tokens=64"],
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
    changed = apply_overrides(profile, {"lr": "3", "eval_multipliers": "[1,2]", "protocol": "sliding", "steps": "1_000"})
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
