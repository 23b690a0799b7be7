"""The scaling suite's ladder: rung parts of variant expressions, each variant written as its rungs, and bad input
refused in one sentence before compute."""

from __future__ import annotations

import pytest

from bench.cli import main
from harness.contract import suites
from suites.scaling.claims._shared import flips
from suites.scaling.ladder import expand, split_rung, steps_for


def test_a_rung_part_is_split_from_a_variant_expression():
    assert split_rung("mla+rung2") == ("mla", 2)
    assert split_rung("rung1+gqa2") == ("gqa2", 1)
    assert split_rung("rung3") == ("baseline", 3)
    assert split_rung("mla") == ("mla", None)


def test_each_variant_is_written_as_its_rungs_largest_first():
    assert expand(["baseline", "mla", "gqa2+rung0"], 3) == [
        "baseline+rung2",
        "mla+rung2",
        "baseline+rung1",
        "mla+rung1",
        "baseline+rung0",
        "mla+rung0",
        "gqa2+rung0",
    ]


def test_a_rung_s_spec_is_its_width_at_the_fixed_depth_and_head_size():
    suite = suites.get("scaling")
    profile = suite.profiles["quick"]
    spec = suite.spec_for("mla+rung2", profile, {})
    assert (spec.d_model, spec.n_layers, spec.n_heads, spec.attention) == (64, 2, 8, "mla")
    assert steps_for(100_000, 20.0, 2048) == 977


def test_flips_names_where_a_verdict_changes_along_the_ladder():
    assert flips([(0, "agrees"), (1, "agrees")]) == ""
    assert flips([(0, "agrees"), (1, "agrees"), (2, "inconclusive"), (3, "disagrees")]) == (
        "agrees at rungs 0-1, inconclusive at rung 2, disagrees at rung 3"
    )


@pytest.mark.parametrize(
    "args, words",
    [
        (["set.rungs=[32,48]"], "needs at least 3 model sizes"),
        (["set.rungs=[32,44,64]"], "width 44, which heads of set.head_dim=8 do not divide"),
        (["set.rungs=[64,48,96]"], "must rise"),
        (["set.tokens_per_parameter=0.001"], "under one step"),
        (["variants=[mla+rung7]"], "names rung 7"),
        (["variants=[mamba2]"], "is not a Transformer"),
        (["set.eval_tokens=100000"], "held-out characters"),
    ],
)
def test_a_ladder_that_cannot_be_built_is_refused_in_one_sentence_before_compute(args, words, tmp_path, capsys):
    assert main(["run", "suite=scaling", *args, f"results_dir={tmp_path}", "dry_run=true"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "scaling").exists()
