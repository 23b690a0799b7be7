"""reports/index.md from made-up records of three suites: scoreboard, quality x cost table, Pareto figure."""

import math

import pandas as pd
import pytest

from bench.index.page import write_index
from bench.index.scoreboard import scoreboard
from bench.index.tradeoffs import build
from harness.groups import split_groups
from tests.unit.bench.made_up import CORPUS, record

SEEDS = (0, 1, 2)
L = 16


def _common(suite, variant, seed, **extra):
    return record(suite, variant, seed, profile_settings={"train_len": L, "batch": 1}, x=None, **extra)


def lm_like(suite, variant, seed, ppl_l, ppl_8l=None, throughput=20000.0, flops=None):
    """Records of a character LM that learned: loss and perplexity at L (and 8L), training loss and throughput."""

    def rec(metric, value, x=None):
        return dict(_common(suite, variant, seed, parameters=800_000, **CORPUS), metric=metric, x=x, value=value)

    rows = [
        rec("loss", math.log(ppl_l), float(L)),
        rec("perplexity", ppl_l, float(L)),
        rec("train_loss", math.log(ppl_l) - 0.05),
        rec("train_throughput", throughput),
    ]
    if ppl_8l is not None:
        rows.append(rec("perplexity", ppl_8l, float(8 * L)))
    if flops is not None:
        rows.append(rec("train_flops", flops))
    return rows


def kv(variant, seed, kv_heads, ms):
    """kv_cache records: cache bytes at two contexts and a decode step at each."""

    def rec(metric, x, value, **extra):
        return dict(_common("kv_cache", variant, seed), metric=metric, x=x, value=value, extra=extra)

    rows = []
    for context in (128.0, 512.0):
        per_token = 2 * 2 * kv_heads * 16 * 4  # 2 layers, head_dim 16, float32
        rows += [
            rec("cache_bytes", context, per_token * context, batch=1, kv_heads=kv_heads),
            rec("decode_latency", context, ms * context / 512, noise=0.04),
            # the decode-step attention over the same cache, one layer: its bytes dominate MHA's step (the verdict
            # reads it)
            rec(
                "decode_path_latency",
                context,
                ms * context / 512,
                path="grouped",
                heads=4,
                kv_heads=kv_heads,
                head_dim=16,
                times=[ms * context / 512 * f for f in (0.98, 0.99, 1.0, 1.01, 1.02)],  # the timing repeats, ms
            ),
        ]
    rows.append(rec("copy_bandwidth", None, 0.1))
    return rows


@pytest.fixture(scope="module")
def groups():
    pe = []
    for seed in SEEDS:
        pe += lm_like("position_extrapolation", "sinusoidal", seed, 5.0 + 0.1 * seed, 21.0 + seed)
        pe += lm_like("position_extrapolation", "alibi", seed, 4.5 + 0.1 * seed, 4.4 + 0.1 * seed)
        pe += lm_like("position_extrapolation", "rope", seed, 4.2 + 0.1 * seed, 30.0 + seed)
    lm = []
    for seed in SEEDS:
        lm += lm_like("language_modeling", "baseline", seed, 4.2 + 0.1 * seed, flops=5.3e12)
        lm += lm_like("language_modeling", "mqa", seed, 4.3 + 0.1 * seed, flops=5.3e12)
    cache = []
    for seed in SEEDS:
        cache += kv("rope", seed, 4, 2.0 + 0.01 * seed) + kv("rope+mqa", seed, 1, 1.5 + 0.01 * seed)
        cache += kv("alibi", seed, 4, 2.2 + 0.01 * seed)
    return {
        name: split_groups(pd.DataFrame(rows))[0]
        for name, rows in (("position_extrapolation", pe), ("language_modeling", lm), ("kv_cache", cache))
    }


def test_the_scoreboard_takes_each_verdict_from_its_suite_and_says_not_run_with_a_command(groups):
    board = scoreboard({name: g.frame for name, g in groups.items()}, lambda suite: "quick")
    rows = {r["finding"]: r for r in board.to_dict("records")}
    alibi = rows["ALiBi extrapolates past the training length; sinusoidal does not"]
    assert alibi["verdict"] == "agrees" and alibi["95% interval, seeds"].endswith(", 3 seeds")
    # the one number the verdict rests on (Finding.headline) and its interval, not every estimate
    assert alibi["our measurement"].startswith("ALiBi ppl(8L) vs ppl(L) -") and ";" not in alibi["our measurement"]
    assert alibi["95% interval, seeds"].startswith("[") and alibi["95% interval, seeds"].count("[") == 1
    assert (
        alibi["source: published"].startswith("Press et al. 2022")
        and alibi["profile, corpus, device"] == "quick, Test corpus, cpu"
    )
    assert rows["KV-cache bytes = 2 x layers x kv_heads x head_dim x tokens x batch x bytes"]["verdict"] == "agrees"
    decode = rows["Fewer key/value heads make the memory-bound decode step faster"]
    assert decode["verdict"] == "agrees" and decode["our measurement"].startswith("MHA / MQA attention op time, rope")
    assert "whole model's step" in decode["our measurement"]
    post_ln = rows["Post-LN trains worse than Pre-LN without a long warm-up"]
    assert post_ln["verdict"] == "not run"
    command = (
        "bench run suite=language_modeling variants=[baseline,no_warmup,post_ln+no_warmup,post_ln,post_ln+long_warmup]"
        " profile=quick"
    )
    assert post_ln["our measurement"] == f"not run: `{command}`"
    warmup = rows["Post-LN needs a learning-rate warm-up; Pre-LN does not"]  # a suite without any record
    assert warmup["verdict"] == "not run" and "bench run suite=training_stability" in warmup["our measurement"]
    assert set(board.verdict) <= {"agrees", "disagrees", "inconclusive", "not run"}


def test_the_verdicts_are_the_suites_own(groups):
    """The index holds no verdict logic: its rows are exactly what each suite's findings() returns."""
    from harness.contract import suites

    frames = {name: g.frame for name, g in groups.items()}
    board = scoreboard(frames)
    for name, frame in frames.items():
        for found in suites.get(name).findings(frame):
            assert (board[board.finding == found.claim.name].verdict == found.verdict).all()


def test_the_quality_cost_table_has_one_row_per_trained_model_and_joins_no_other_suite(groups):
    """Quality and cost come from one model's own jobs: kv_cache's models (of another size) fill no cell here, and
    position_extrapolation's rope and language_modeling's baseline are two models, two rows."""
    table = build({name: g.frame for name, g in groups.items()}, lambda suite: "quick")
    pe, lm = "position_extrapolation", "language_modeling"
    assert list(zip(table.frame.suite, table.frame.model)) == [
        (pe, "sinusoidal"),
        (pe, "alibi"),
        (pe, "rope"),
        (lm, "baseline"),
        (lm, "mqa"),
    ]
    rope = table.frame.set_index("model").loc["rope"]
    assert rope["ppl at L"].startswith("4.300 ") and rope["ppl at 8L"].startswith("31.000 ")
    # these made-up jobs measured no cost of their own: the cell names the run that does, not kv_cache's number
    assert rope["KV cache (B/token)"].startswith("not run [") and rope["decode at L (ms/token)"].startswith("not run [")
    assert "`bench run suite=position_extrapolation variants=[rope] profile=quick`" in table.commands
    assert table.frame.set_index("model").loc["baseline", "ppl at 8L"] == "-"  # language_modeling scores at L only
    assert table.frame.set_index("model").loc["mqa", "what to know"].startswith("MQA, d_ff widened to ")  # its budget
    assert table.sources[pe].startswith("profile `quick`, cpu (Test CPU), float32")


def test_the_index_has_its_three_parts_and_says_why_there_is_no_figure(groups, tmp_path):
    path = write_index(groups, tmp_path)
    text = path.read_text()
    assert text.startswith("# Which variant should I use?")
    for heading in ("## Findings scoreboard", "## Quality and cost per trained model", "## Quality against cost"):
        assert heading in text
    assert (
        "so there is no figure; `bench run suite=position_extrapolation profile=quick` trains and measures both" in text
    )
    assert not (tmp_path / "figures" / "index_pareto.png").exists()
    assert "- position_extrapolation: profile=quick cpu float32" in text


def test_pareto_front_keeps_the_points_nothing_beats_on_both_axes():
    from bench.index.pareto import front

    data = pd.DataFrame({"model": list("abcd"), "x": [1.0, 2.0, 2.0, 3.0], "y": [5.0, 4.0, 6.0, 1.0]})
    data["x_low"], data["x_high"] = data.x, data.x
    assert list(front(data).model) == ["a", "b", "d"]


def test_bench_report_of_one_suite_rebuilds_the_index_over_every_suite(groups, tmp_path, monkeypatch):
    from bench.report.build import build_reports
    from harness.contract import Suite
    from harness.report_sections import Report
    from harness.store import ResultsStore

    monkeypatch.setattr(
        Suite, "report", lambda self, records, out_dir: Report(["# title", ""])
    )  # the suites' own reports are tested elsewhere
    store = ResultsStore(tmp_path / "results")
    for name, group in groups.items():
        for (variant, seed), part in group.frame.groupby(["variant", "seed"]):
            store.write(name, f"{variant}-{seed}".replace("+", "_"), f"{variant}-s{seed}", part.to_dict("records"))
    paths, _ = build_reports("position_extrapolation", tmp_path / "results", tmp_path / "reports")
    assert tmp_path / "reports" / "index.md" in paths
    text = (tmp_path / "reports" / "index.md").read_text()
    assert "- kv_cache: profile=quick" in text and "- language_modeling: profile=quick" in text
    assert f"results_dir={tmp_path / 'results'}" in text  # commands name the results folder that was reported


def test_a_recurrence_row_names_no_length_limit():
    from bench.index.tradeoffs import size

    assert size({"n_layers": 4, "d_model": 128, "n_heads": 8, "max_len": 64}) == "4 x d128, 8 heads, L 64"
    assert size({"n_layers": 4, "d_model": 128, "n_heads": 8, "mixer": "mamba2"}) == "4 x d128, 8 heads"


def test_a_claim_the_reported_group_does_not_test_is_taken_from_another_group_of_its_suite(monkeypatch):
    from harness.contract import suites
    from harness.findings import Finding

    suite = suites.get("translation")
    first, second = suite.claims[0], suite.claims[1]
    reported = pd.DataFrame({"profile": ["bottleneck"], "status": ["ok"], "device": ["cpu"], "seed": [0]})
    other = pd.DataFrame({"profile": ["standard"], "status": ["ok"], "device": ["cpu"], "seed": [0]})

    def findings(frame):  # the reported group tests the first claim, the other group both
        tested = [first, second] if frame is other else [first]
        return [Finding(c, "agrees" if frame is reported else "disagrees", seeds=3) for c in tested]

    monkeypatch.setattr(type(suite), "findings", lambda self, frame: findings(frame))
    board = scoreboard(
        {"translation": reported}, reports={"translation": "translation.md"}, others={"translation": [other]}
    )
    rows = board.set_index("claim")
    # the reported group's own verdict wins where it has one; the other group fills the claim it does not test
    assert rows.loc[first.key, "verdict"] == "agrees" and rows.loc[first.key, "from group"] == ""
    assert rows.loc[second.key, "verdict"] == "disagrees" and rows.loc[second.key, "from group"] == "0"
    assert rows.loc[second.key, "profile, corpus, device"].startswith("standard")
    assert "](translation.md)" not in rows.loc[second.key, "finding"]  # the suite's report covers the other group
    assert rows.loc[first.key, "finding"].endswith("](translation.md)")
