"""The notebook API: a suite's records of one group as a DataFrame with spec fields as columns, and a report from it."""

import math

import pandas as pd
import pytest

from bench.api import records, report
from harness.errors import UsageError
from harness.store import ResultsStore
from tests.unit.bench.made_up import CORPUS, record

SETTINGS = dict(
    train_len=16,
    steps=10,
    batch_size=4,
    lr=3e-3,
    warmup_steps=2,
    weight_decay=0.1,
    grad_clip=1.0,
    protocol="nonoverlapping",
    stride=0,
    heldout_fraction=0.1,
)


def pe_records(variant, seed, ppl, profile="quick"):
    base = record(
        "position_extrapolation",
        variant,
        seed,
        profile=profile,
        profile_settings=SETTINGS,
        **CORPUS,
        parameters=1000,
        torch_version="2.13.0",
        x_name="eval_length",
        eval_chars=512,
        train_chars=4096,
        train_passes=0.5,
        unit="",
        higher_is_better=False,
    )
    out = []
    for multiple in (1, 2, 8):
        x = float(16 * multiple)
        out += [
            dict(base, metric="perplexity", x=x, value=ppl * (1 + 0.01 * multiple)),
            dict(base, metric="loss", x=x, value=math.log(ppl * (1 + 0.01 * multiple))),
        ]
    out.append(dict(base, metric="train_loss", x=None, value=math.log(ppl) - 0.05))
    return out


@pytest.fixture
def results(tmp_path):
    store = ResultsStore(tmp_path / "results")
    for variant, ppl in (("sinusoidal", 5.0), ("alibi", 4.5)):
        for seed in (0, 1):
            store.write(
                "position_extrapolation", f"{variant}{seed}", f"{variant}-s{seed}", pe_records(variant, seed, ppl)
            )
    old = pe_records("alibi", 0, 9.0, profile="tiny")
    store.write(
        "position_extrapolation", "old", "alibi-old", [dict(r, timestamp="2026-01-01T00:00:00+00:00") for r in old]
    )
    return tmp_path / "results"


def test_records_returns_one_group_with_spec_fields_as_columns(results):
    df = records("position_extrapolation", results)
    assert len(df) == 2 * 2 * 7 and set(df.profile) == {"quick"}  # the newest group; the tiny run is another one
    assert {"position", "n_heads", "kernel", "metric", "x", "value", "seed"} <= set(df.columns)
    assert set(df[df.variant == "alibi"].position) == {"alibi"}
    assert df.attrs["suite"] == "position_extrapolation" and df.attrs["group"].startswith("profile=quick")
    tiny = records("position_extrapolation", results, profile="tiny")
    assert set(tiny.variant) == {"alibi"} and len(tiny) == 7


def test_a_selection_no_group_has_and_an_empty_store_are_clear_errors(results, tmp_path):
    with pytest.raises(UsageError, match="profile=standard"):
        records("position_extrapolation", results, profile="standard")
    with pytest.raises(UsageError, match="No results for suite language_modeling"):
        records("language_modeling", results)


def test_report_rebuilds_the_suites_report_from_a_slice(results, tmp_path):
    df = records("position_extrapolation", results)
    paths = report(df[df.seed == 0], tmp_path / "mine")
    text = (tmp_path / "mine" / "position_extrapolation.md").read_text()
    assert paths[0].name == "position_extrapolation.md" and "seeds [0]" in text
    assert "## Against the published finding" in text
    with pytest.raises(UsageError, match="never mixes groups"):
        report(pd.concat([df, records("position_extrapolation", results, profile="tiny")]), tmp_path / "mixed")


#: bad calls of the API, each with what its one sentence must name (the argument and the value)
BAD_CALLS = [
    (lambda r, t: records(123, r), ["suite=123"]),
    (lambda r, t: records("nosuch_suite", r), ["nosuch_suite"]),
    (lambda r, t: records("position_extrapolation", r, nosuch=1), ["nosuch=1", "profile"]),
    (lambda r, t: records("position_extrapolation", r, profil="quick"), ["profil=quick", "Did you mean profile"]),
    (lambda r, t: records("position_extrapolation", r, settings="steps=5"), ["settings=steps=5"]),
    (lambda r, t: records("position_extrapolation", r, settings=[("steps", 5)]), ["settings="]),
    (lambda r, t: records("position_extrapolation", 42), ["results_dir=42"]),
    (lambda r, t: records("position_extrapolation", r, settings={"stepz": 5}), ["stepz"]),
    (lambda r, t: report("not a frame", t), ["str", "not a frame"]),
    (lambda r, t: report(None, t), ["NoneType"]),
    (lambda r, t: report(records("position_extrapolation", r).drop(columns=["status"]), t), ["status"]),
    (lambda r, t: report(records("position_extrapolation", r), "/proc/x/rep"), ["reports_dir=/proc/x/rep"]),
    (lambda r, t: report(records("position_extrapolation", r), t / "afile" / "sub"), ["reports_dir=", "afile"]),
    (lambda r, t: report(records("position_extrapolation", r), 3.5), ["reports_dir=3.5"]),
]


@pytest.mark.parametrize("call,named", BAD_CALLS, ids=[str(i) for i in range(len(BAD_CALLS))])
def test_a_bad_call_raises_the_projects_error_in_one_sentence_naming_the_argument(results, tmp_path, call, named):
    from harness.errors import UserError

    (tmp_path / "afile").write_text("a file")
    with pytest.raises(UserError) as caught:
        call(results, tmp_path)
    message = str(caught.value).strip("'\"")
    assert "\n" not in message and message.endswith(".")
    for part in named:
        assert part in message, (part, message)
