"""bench compare: two variants paired by seed, the difference with a 95% interval and a one-line verdict."""

import math

import pandas as pd
import pytest

from bench.compare.table import paired


def records(variant, values, metric="perplexity", x=64.0, extra=None, higher_is_better=False):
    return [
        dict(
            suite="position_extrapolation",
            suite_version=2,
            variant=variant,
            seed=seed,
            metric=metric,
            x=x,
            x_name="eval_length",
            value=value,
            unit="",
            higher_is_better=higher_is_better,
            status="ok",
            profile="quick",
            profile_settings={"train_len": 64},
            device="cpu",
            dtype="float32",
            data_checksum="abc",
            timestamp="2026-12-01T00:00:00+00:00",
            extra=extra or {},
            spec={"position": variant},
        )
        for seed, value in enumerate(values)
    ]


def test_the_difference_is_paired_by_seed():
    # seed-to-seed spread (4 to 6) dwarfs the difference, but every seed of alibi is 0.2 below rope's
    frame = pd.DataFrame(records("rope", [4.0, 5.0, 6.0]) + records("alibi", [3.8, 4.8, 5.8]))
    (c,) = paired(frame, "rope", "alibi")
    mean, low, high = c.interval
    assert c.n == 3 and mean == pytest.approx(-0.2) and low == pytest.approx(-0.2) and high == pytest.approx(-0.2)
    assert c.direction() == "better"  # lower perplexity is better
    line = c.verdict()
    # a perplexity is positive: the verdict reads the per-seed ratios' change with its log-scale interval
    assert line.startswith(
        "`alibi` vs `rope`, perplexity at eval_length=64: alibi - rope = -0.2 (-4.1% of rope, "
        "95% interval -6.2% to -2.0%)"
    )
    assert line.endswith("over 3 seeds: alibi is better than rope.")
    e = c.estimate()
    assert e.seeds == 3 and e.kind == "log" and e.unit == "%" and e.low == pytest.approx(-6.17, abs=0.01)
    assert c.interval_text() == "-4.1% [-6.2%, -2.0%]"


def test_a_relative_change_never_runs_below_minus_100_percent():
    """Noisy positive values: a Student-t interval of the per-seed changes would reach below -100%; the log-ratio one
    stays above it."""
    from harness.intervals import spread

    rope, alibi = [10.0, 30.0, 12.0], [1.0, 20.0, 2.0]
    assert spread([100 * (b / a - 1) for a, b in zip(rope, alibi)]).low < -100.0
    (c,) = paired(pd.DataFrame(records("rope", rope) + records("alibi", alibi)), "rope", "alibi")
    e = c.estimate()
    assert -100.0 < e.low < e.value < e.high and c.interval_text().startswith(f"{e.value:+.1f}% [")


def test_the_verdict_rule_is_harness_paired_separate_seed_ranges_alone_do_not_count():
    """Every seed of alibi is below every seed of rope, yet two seeds leave the paired interval across 0: no
    detectable difference, as in every suite's verdicts (harness/paired.py)."""
    frame = pd.DataFrame(records("rope", [10.0, 20.0]) + records("alibi", [5.0, 8.0]))
    (c,) = paired(frame, "rope", "alibi")
    assert not c.difference.interval_excludes_zero and c.direction() == "no detectable difference"
    assert c.verdict().endswith("no detectable difference (its 95% interval includes 0).")


def test_values_at_or_below_zero_fall_back_to_the_difference():
    frame = pd.DataFrame(records("rope", [0.0, 0.1, 0.2], "gap", None) + records("alibi", [0.5, 0.6, 0.8], "gap", None))
    (c,) = paired(frame, "rope", "alibi")
    assert not c.relative and c.estimate().kind == "t" and c.interval_text().startswith("[+")


def test_an_interval_that_includes_zero_is_no_detectable_difference():
    frame = pd.DataFrame(records("rope", [4.0, 5.0, 6.0]) + records("alibi", [4.3, 4.8, 5.9]))
    (c,) = paired(frame, "rope", "alibi")
    assert c.direction() == "no detectable difference" and "interval includes 0" in c.verdict()


def test_higher_is_better_turns_the_direction():
    frame = pd.DataFrame(
        records("rnn", [10.0, 11.0, 12.0], "bleu", None, higher_is_better=True)
        + records("lstm", [12.0, 13.1, 14.0], "bleu", None, higher_is_better=True)
    )
    (c,) = paired(frame, "rnn", "lstm")
    assert c.at == "" and c.direction() == "better"


def test_one_shared_seed_gives_no_interval_and_no_shared_seed_no_difference():
    one = pd.DataFrame(records("rope", [4.0, 5.0]) + records("alibi", [3.9]))
    (c,) = paired(one, "rope", "alibi")
    assert c.n == 1 and c.direction() == "one seed" and "run more seeds" in c.verdict()
    apart = pd.DataFrame(records("rope", [4.0]) + [dict(r, seed=7) for r in records("alibi", [3.9])])
    (c,) = paired(apart, "rope", "alibi")
    assert c.n == 0 and math.isnan(c.interval[0]) and "share no seed" in c.verdict()


def test_values_are_paired_only_under_the_same_condition():
    frame = pd.DataFrame(
        records("naive", [2.0, 2.1], "latency", 512.0, {"pass": "fwd", "causal": True})
        + records("naive", [5.0, 5.2], "latency", 512.0, {"pass": "fwd+bwd", "causal": True})
        + records("sdpa", [1.0, 1.1], "latency", 512.0, {"pass": "fwd", "causal": True})
        + records("sdpa", [2.0, 2.2], "latency", 512.0, {"pass": "fwd+bwd", "causal": True})
    )
    found = {c.at: c for c in paired(frame, "naive", "sdpa")}
    assert set(found) == {
        " at eval_length=512 (pass fwd, causal True)",
        " at eval_length=512 (pass fwd+bwd, causal True)",
    }
    assert found[" at eval_length=512 (pass fwd, causal True)"].interval[0] == pytest.approx(-1.0)


def test_bench_compare_prints_a_table_and_a_verdict_and_refuses_what_it_cannot_compare(tmp_path, capsys):
    from bench.cli import main
    from harness.store import ResultsStore

    store = ResultsStore(tmp_path)
    for variant, values in (("rope", [4.0, 5.0, 6.0]), ("alibi", [3.8, 4.8, 5.8]), ("sinusoidal", [4.0])):
        for r in records(variant, values):
            store.write("position_extrapolation", f"{variant}{r['seed']}", f"{variant}-s{r['seed']}", [r])
    assert main(["compare", "rope", "alibi", f"results_dir={tmp_path}"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("position_extrapolation: profile=quick cpu float32")
    assert "| perplexity | eval_length=64 |" in out and "Verdict: `alibi` vs `rope`" in out
    assert main(["compare", "rope", f"results_dir={tmp_path}"]) == 2
    assert "takes two variants" in capsys.readouterr().err
    assert main(["compare", "rope", "gqa2", f"results_dir={tmp_path}"]) == 2
    assert "holds both `rope` and `gqa2`" in capsys.readouterr().err
    assert main(["compare", "rope", "alibi", f"results_dir={tmp_path}", "profile=standard"]) == 2
    assert main(["compare", "rope", "alibi", f"results_dir={tmp_path}", "colour=red"]) == 2
    assert "Unknown option 'colour'" in capsys.readouterr().err


def store_of(tmp_path, by_variant):
    """A results folder holding position_extrapolation records: variant -> [(x, [value per seed])]."""
    from harness.store import ResultsStore

    store = ResultsStore(tmp_path)
    for variant, points in by_variant.items():
        rows = [r for x, values in points for r in records(variant, values, x=x)]
        for seed in {r["seed"] for r in rows}:
            store.write(
                "position_extrapolation",
                f"{variant}{seed}",
                f"{variant}-s{seed}",
                [r for r in rows if r["seed"] == seed],
            )
    return tmp_path


def test_compare_gives_the_verdict_at_the_training_length_and_at_the_longest_length(tmp_path, capsys):
    """alibi is slightly worse at L but far better at 8L: one headline at L alone would point the wrong way."""
    from bench.cli import main

    results = store_of(
        tmp_path,
        {
            "rope": [(64.0, [4.0, 4.1, 4.2]), (512.0, [27.0, 30.0, 25.0])],
            "alibi": [(64.0, [4.2, 4.3, 4.5]), (512.0, [4.4, 4.5, 4.3])],
        },
    )
    assert main(["compare", "rope", "alibi", f"results_dir={results}"]) == 0
    verdicts = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Verdict:")]
    assert len(verdicts) == 2
    assert "perplexity at eval_length=64" in verdicts[0] and verdicts[0].endswith("alibi is worse than rope.")
    assert "perplexity at eval_length=512" in verdicts[1] and verdicts[1].endswith("alibi is better than rope.")
    assert main(["compare", "rope", "alibi", f"results_dir={results}", "at=512"]) == 0
    (only,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Verdict:")]
    assert "eval_length=512" in only
    assert main(["compare", "rope", "alibi", f"results_dir={results}", "at=first"]) == 0
    assert "eval_length=64" in [line for line in capsys.readouterr().out.splitlines() if line.startswith("Verdict:")][0]


def test_an_x_the_metric_was_not_measured_at_is_one_sentence_before_any_table(tmp_path, capsys):
    from bench.cli import main

    results = store_of(
        tmp_path,
        {"rope": [(64.0, [4.0, 4.1]), (512.0, [27.0, 30.0])], "alibi": [(64.0, [4.2, 4.3]), (512.0, [4.4, 4.5])]},
    )
    assert main(["compare", "rope", "alibi", f"results_dir={results}", "suite=position_extrapolation", "at=300"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == (
        "bench: at=300 is not where position_extrapolation measured perplexity "
        "(at eval_length = 64, 512); give one of those, at=first or at=last."
    )


def test_a_metric_without_a_direction_differs_and_is_never_better_or_worse():
    """Attention entropy declares no better direction: the difference and its interval, no judgement."""
    frame = pd.DataFrame(
        records("rope", [0.8, 0.9, 0.85], "entropy", 0.0, higher_is_better=False)
        + records("alibi", [2.4, 2.5, 2.45], "entropy", 0.0, higher_is_better=False)
    )
    (old,) = paired(frame, "rope", "alibi")
    assert old.direction() == "worse"  # what an old record's made-up direction said
    (c,) = paired(frame, "rope", "alibi", directions={"entropy": None})
    assert c.direction() == "differs"
    assert c.verdict().endswith("alibi differs from rope (entropy has no better direction).")
    assert "better" not in c.verdict().replace("no better direction", "") and "worse" not in c.verdict()


def test_descriptive_metrics_declare_no_direction():
    from harness.contract import suites

    heads = {m.name: m.higher_is_better for m in suites.get("attention_heads").metrics}
    assert heads["entropy"] is None and heads["mean_distance"] is None and heads["loss"] is False
