"""The index's quality x cost table and Pareto figure from made-up records: one row and one point per trained model,
quality and cost from the same jobs, never joined across model sizes; aliases of one spec shown once."""

import math

import pandas as pd
import pytest

from bench.index import pareto
from bench.index.tradeoffs import build
from harness.groups import split_groups
from tests.unit.bench.made_up import CORPUS, record, spec_of

L = 16
SEEDS = (0, 1, 2)
PE = "position_extrapolation"


def job(
    variant,
    seed,
    ppl_l,
    ppl_8l=None,
    decode_ms=2.0,
    suite=PE,
    spec=None,
    names=None,
    heldout=None,
    kv_heads=12,
    flops_per_token=3.0e6,
):
    """The records one job of a character LM writes: its quality and the cost it measured of its own model."""
    spec = spec or spec_of(variant, suite)
    common = record(
        suite,
        variant,
        seed,
        suite_version=3,
        names=names or [variant],
        profile_settings={"train_len": L},
        spec=spec,
        parameters=450_000 + spec["d_model"],
        **CORPUS,
    )

    def rec(metric, value, x=None, **extra):
        return dict(common, metric=metric, value=value, x=x, extra=extra)

    loss = math.log(ppl_l) if heldout is None else heldout
    rows = [
        rec("loss", loss, float(L)),
        rec("perplexity", ppl_l, float(L)),
        rec("train_loss", loss - 0.05),
        rec("train_throughput", 20000.0 + seed),
        rec("train_flops", flops_per_token * 1e5, flops_per_token=flops_per_token),
        rec("peak_train_memory", 80 * 2**20 + seed),
        rec("kv_cache_bytes_per_token", 2 * 4 * kv_heads * 8 * 4.0),
        rec("prefill_latency", 1.0, float(L), q1=0.9, q3=1.1),
        rec("decode_latency", decode_ms, float(L), q1=decode_ms * 0.95, q3=decode_ms * 1.05),
        rec("decode_latency", decode_ms * 1.2, float(8 * L), q1=decode_ms * 1.1, q3=decode_ms * 1.3),
    ]
    if ppl_8l is not None:
        rows.append(rec("perplexity", ppl_8l, float(8 * L)))
    return rows


def _table(rows):
    frame = split_groups(pd.DataFrame(rows))[0].frame
    return build({PE: frame}, lambda suite: "quick")


def test_each_rope_extension_is_its_own_row_with_its_own_numbers():
    rows = []
    for seed in SEEDS:
        rows += job("rope", seed, 4.2, 27.6 + seed, decode_ms=2.0)
        rows += job("rope+pi", seed, 4.2, 46.9 + seed, decode_ms=2.1)
        rows += job("rope+ntk", seed, 4.2, 13.1 + seed, decode_ms=2.2)
    table = _table(rows)
    frame = table.frame.set_index("model")
    assert list(frame.index) == ["rope", "rope+pi", "rope+ntk"]
    assert frame.loc["rope+pi", "ppl at 8L"].startswith("47.900") and frame.loc["rope+ntk", "ppl at 8L"].startswith(
        "14.100"
    )
    assert "pi applied at evaluation" in frame.loc["rope+pi", "what to know"]
    assert not table.footnotes  # nothing collapsed
    means = {r.label: r.readings["ppl_8L"].mean for r in table.rows}
    assert means == pytest.approx({"rope": 28.6, "rope+pi": 47.9, "rope+ntk": 14.1})


def test_records_of_different_model_sizes_are_never_one_point():
    """Two jobs run under one name but at different sizes are two models: two rows, two points, no mean of both."""
    rows = job("rope", 0, 4.0, 20.0, spec=spec_of("rope", d_model=96)) + job(
        "rope", 1, 6.0, 30.0, spec=spec_of("rope", d_model=128)
    )
    table = _table(rows)
    assert len(table.rows) == 2
    assert sorted(r.readings["ppl_L"].values for r in table.rows) == [(4.0,), (6.0,)]
    assert list(table.frame["size"]) == ["4 x d96, 12 heads, L 32", "4 x d128, 12 heads, L 32"]
    points = pareto.points(table, "ppl_L", "kv_bytes")
    assert sorted(points.y) == [4.0, 6.0]


def test_aliases_of_one_spec_are_one_labelled_row_and_point():
    rows = []
    for seed in SEEDS:
        rows += job("rope", seed, 4.2, 27.0, names=["rope", "baseline"])
        rows += job("alibi", seed, 4.5, 4.4)
    table = _table(rows)
    assert list(table.frame.model) == ["rope", "alibi"]
    assert table.footnotes == ["`rope` (position_extrapolation) is also run as `baseline`: one spec, one model."]
    points = pareto.points(table, "ppl_L", "decode_ms")
    assert list(points.model) == ["rope", "alibi"]


def test_a_model_that_did_not_learn_is_left_out_of_the_figure_and_named():
    rows = []
    for seed in SEEDS:
        rows += job("rope", seed, 4.2, 27.0)
        rows += job("none", seed, 12.0, 13.0, heldout=2.4)  # above bigram entropy - 0.3: did not learn
    table = _table(rows)
    flagged = {r.label: r.flag for r in table.rows}
    assert flagged["rope"] == "" and flagged["none"].startswith("flagged: did not learn")
    assert list(pareto.points(table, "ppl_L", "kv_bytes").model) == ["rope"]
    assert pareto.flagged(table)[0].startswith("none (position_extrapolation: did not learn")


def test_a_cost_inside_another_s_interval_is_a_tie_on_the_front():
    data = pd.DataFrame(
        {
            "model": list("abcd"),
            "x": [1.0, 1.05, 2.0, 3.0],
            "x_low": [0.9, 1.0, 1.9, 2.9],
            "x_high": [1.1, 1.1, 2.1, 3.1],
            "y": [5.0, 4.0, 6.0, 1.0],
        }
    )
    assert pareto.ties(data) == [[0, 1], [2], [3]]
    # b is cheaper than c and better than a at a cost inside a's interval: a is not on the front, nor is c
    assert list(pareto.front(data).model) == ["b", "d"]


def test_axes_are_logarithmic_where_values_span_a_decade():
    assert pareto.spans_decade(pd.Series([1.0, 12.0])) and not pareto.spans_decade(pd.Series([1.0, 9.0]))


def test_old_records_without_costs_say_not_run_with_the_command():
    rows = [
        r for r in job("rope", 0, 4.2, 27.0) if r["metric"] in ("loss", "perplexity", "train_loss", "train_throughput")
    ]
    table = _table(rows)
    cell = table.frame.iloc[0]["decode at L (ms/token)"]
    assert cell.startswith("not run [")
    assert list(table.commands) == ["`bench run suite=position_extrapolation variants=[rope] profile=quick`"]


def test_the_figure_is_drawn_from_the_models_own_costs(tmp_path):
    rows = []
    for seed in SEEDS:
        rows += job("rope", seed, 4.2 + 0.1 * seed, 27.0, decode_ms=2.0)
        rows += job("alibi", seed, 4.5 + 0.1 * seed, 4.4, decode_ms=1.5)
        rows += job("rope+mqa", seed, 4.6, 30.0, kv_heads=1, decode_ms=1.4)
    table = _table(rows)
    found = pareto.panels(table)
    assert {(q, s) for q, s, _ in found} == {("ppl_L", PE), ("ppl_8L", PE)}
    kv = found[("ppl_L", PE, "kv_bytes")].set_index("model")
    assert kv.loc["rope+mqa", "x"] == 2 * 4 * 1 * 8 * 4.0 and kv.loc["rope", "x"] == 2 * 4 * 12 * 8 * 4.0
    path = pareto.figure(table, tmp_path / "pareto.png")
    assert path is not None and path.stat().st_size > 10_000


@pytest.mark.parametrize(
    "ffn_spec, phrase",
    [
        ({"n_kv_heads": 1, "d_ff": 420}, "d_ff widened to 420"),
        ({"kernel": "naive", "scoring": "additive"}, "runs the naive kernel"),
    ],
)
def test_each_row_names_the_confound_of_its_cost(ffn_spec, phrase):
    table = _table(job("rope", 0, 4.2, 27.0, spec={**spec_of("rope"), **ffn_spec}))
    assert phrase in table.frame.iloc[0]["what to know"]


def test_a_panel_whose_costs_all_tie_is_left_out_and_named():
    one_tie = pd.DataFrame({"model": ["a", "b"], "x": [5.16e6, 5.17e6], "x_low": [5.1e6, 5.1e6],
                            "x_high": [5.2e6, 5.2e6], "y": [4.0, 5.0]})  # fmt: skip
    apart = one_tie.assign(x=[1.0, 4.0], x_low=[0.9, 3.9], x_high=[1.1, 4.1])
    found = {("ppl_L", PE, "flops"): one_tie, ("ppl_L", PE, "kv_bytes"): apart}
    kept, left = pareto.drawn(found)
    assert list(kept) == [("ppl_L", PE, "kv_bytes")]
    assert left == [f"training FLOPs per token in {PE}"]
