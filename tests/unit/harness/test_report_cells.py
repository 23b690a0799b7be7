"""Report cells whose intervals fit the quantity (harness/intervals.py), on made-up records: a positive quantity's
lower bound stays above 0, a BLEU's upper bound at most 100, an accuracy's within [0, 1], a count shows its range
over seeds; a caption over one seed promises no interval."""

import re

import pandas as pd
import pytest

from harness.report_kit import fmt_pct, most_seeds, over_seeds

#: noisy per-seed values of a positive quantity: their Student-t interval runs below 0
NOISY = [1.5, 40.0, 3.0]
BOUNDS = re.compile(r"\[([+-]?[\d.]+)%?, ([+-]?[\d.]+)%?\]")


def _bounds(text: str):
    """Every '[low, high]' of a table's text, as floats."""
    return [(float(lo), float(hi)) for lo, hi in BOUNDS.findall(text)]


def test_the_noisy_values_would_give_a_negative_t_interval():
    from harness.intervals import spread

    assert spread(NOISY).low < 0  # what the cells below must not show


def test_fmt_pct_is_the_log_ratio_interval_of_a_relative_change():
    text = fmt_pct([-90.0, -10.0, -60.0])  # per-seed changes of a positive quantity
    ((low, high),) = _bounds(text)
    assert text.startswith("-53.3% [") and -100.0 < low < -53.3 < high and text.endswith("(n=3)")
    assert fmt_pct([4.0]) == "+4.0% (n=1)" and fmt_pct([]) == "-"


def test_a_count_every_seed_shares_says_so():
    from harness.report import fmt_mean_ci

    assert fmt_mean_ci([5, 5, 5], 0, "count") == "5 (all 5, n=3)"


def test_captions_say_what_the_cells_show_and_promise_no_interval_with_one_seed():
    assert over_seeds(1) == over_seeds(0) == "one seed: no interval"
    assert over_seeds(3) == "mean [95% interval] over seeds"
    assert over_seeds(3, counts=True, differences=True) == (
        "mean [95% interval] over seeds; differences: mean ± 95% interval; counts: mean (range over seeds)"
    )
    assert over_seeds(2, brackets=False) == "mean ± 95% interval over seeds"
    frame = pd.DataFrame({"variant": ["a", "a", "b"], "metric": "m", "x": 1.0, "seed": [0, 1, 0], "status": "ok"})
    assert most_seeds(frame) == 2 and most_seeds(frame[frame.variant == "b"]) == 1


def _ppl_frame(values_by_variant, train_len=64):
    rows = []
    for v, values in values_by_variant.items():
        for seed, value in enumerate(values):
            for x, scale in ((train_len, 1.0), (8 * train_len, 3.0)):
                rows.append(
                    {
                        "variant": v,
                        "seed": seed,
                        "metric": "perplexity",
                        "x": float(x),
                        "value": value * scale,
                        "status": "ok",
                        "reason": "",
                    }
                )
    return pd.DataFrame(rows)


def test_position_extrapolation_perplexities_never_show_a_negative_lower_bound():
    from suites.position_extrapolation.tables import perplexity_section

    df = _ppl_frame({"rope": NOISY, "alibi": [4.0, 4.1, 4.2]})
    text = "\n".join(perplexity_section(df, df, ["rope", "alibi"], [64.0, 512.0], 64))
    assert "mean [95% interval] over seeds" in text and "±" not in text
    found = _bounds(text)
    assert len(found) == 4 and all(low > 0 for low, _ in found)


def test_a_one_seed_position_table_promises_no_interval():
    from suites.position_extrapolation.tables import perplexity_section

    df = _ppl_frame({"rope": [4.0], "alibi": [4.2]})
    text = "\n".join(perplexity_section(df, df, ["rope", "alibi"], [64.0, 512.0], 64))
    heading = text.splitlines()[0]
    assert "one seed: no interval" in heading and "95%" not in heading and "(n=1)" in text


def test_a_bleu_cell_is_never_above_100():
    from suites.translation.report import _by_length

    rows = [
        {"variant": v, "seed": s, "metric": "bleu_by_length", "x": 10.0, "value": value, "status": "ok"}
        for v, values in (("lstm", [99.0, 100.0, 96.0]), ("rnn", [0.0, 0.5, 3.0]))
        for s, value in enumerate(values)
    ]
    text = "\n".join(_by_length(pd.DataFrame(rows), ["lstm", "rnn"], {10.0: "1-10 words (n=50)"}))
    found = _bounds(text)
    assert len(found) == 2 and all(0.0 <= low and high <= 100.0 for low, high in found)
    assert "mean [95% interval] over seeds" in text


def test_the_longest_lag_learned_shows_its_range_over_seeds():
    from suites.gradient_flow.tables import lag_table

    s = {"lags": [5, 10, 100], "learned_accuracy": 0.9, "alphabet": 8}
    accs = {0: [1.0, 1.0, 1.0], 1: [1.0, 0.1, 0.1], 2: [0.2, 0.1, 0.1]}  # longest lag per seed: 100, 5, 0
    rows = [
        {"metric": "copy_accuracy", "variant": "rnn", "seed": seed, "x": float(lag), "value": acc, "status": "ok"}
        for seed, values in accs.items()
        for lag, acc in zip(s["lags"], values)
    ]
    lines, longest = lag_table(pd.DataFrame(rows), ["rnn"], s)
    text = "\n".join(lines)
    assert longest["rnn"] == {0: 100.0, 1: 5.0, 2: 0.0}
    assert "35 (range 0-100, n=3)" in text  # no interval running below 0
    assert all(0.0 <= low and high <= 1.0 for low, high in _bounds(text))  # accuracies kept to [0, 1]
    assert "the longest lag learned: mean (range over seeds)" in text


def test_head_counts_show_their_range_and_shares_stay_within_0_and_1():
    from suites.attention_heads.tables import specialist_section

    table = pd.DataFrame(
        {
            "variant": "rope",
            "seed": [0, 1, 2],
            "heads": 8,
            "offset": [0, 3, 5],
            "delimiter": [1, 1, 2],
            "sink": [0, 0, 4],
            "offset_names": [[], ["L1H1 d=1"], ["L1H2 d=1"]],
            "delimiter_names": [["L1H3"]] * 3,
            "max_offset_share": [0.2, 0.99, 0.97],
            "max_delimiter_share": [0.5, 0.9, 0.6],
        }
    )
    text = "\n".join(specialist_section(table, ["rope"]))
    assert "2.7 (range 0-5, n=3); 2 of 3 seeds" in text and "1.3 (range 0-4, n=3)" in text
    assert "1.3 (range 1-2, n=3); 3 of 3 seeds" in text
    found = _bounds(text)
    assert len(found) == 2 and all(0.0 <= low and high <= 1.0 for low, high in found)


def test_losses_in_the_learning_checks_stay_above_0():
    from suites.common.learning import LearningCheck, learning_section

    checks = {"a": LearningCheck("a", (0.05, 2.0, 0.1), (0.04, 1.9, 0.1), 3.0, 4.0)}
    text = "\n".join(learning_section(checks))
    found = _bounds(text)
    assert len(found) == 2 and all(low > 0 for low, _ in found) and "Losses: mean [95% interval] over seeds" in text
    one = "\n".join(learning_section({"a": LearningCheck("a", (1.0,), (0.9,), 3.0, 4.0)}))
    assert "Losses: one seed: no interval" in one and "95%" not in one


@pytest.mark.parametrize("seeds", [1, 3])
def test_recall_accuracies_stay_within_0_and_1_and_the_note_says_so(seeds):
    from suites.recall.tables import accuracy_table

    values = [0.99, 1.0, 0.9][:seeds]
    rows = [
        {
            "metric": "token_accuracy",
            "task": "copy",
            "variant": "lstm",
            "seed": s,
            "x": 8.0,
            "value": v,
            "status": "ok",
            "train_max": 8.0,
            "chance_token": 0.14,
        }
        for s, v in enumerate(values)
    ]
    text = "\n".join(accuracy_table(pd.DataFrame(rows), ["lstm"], "copy", "token_accuracy", "Copy", "A note."))
    assert all(0.0 <= low and high <= 1.0 for low, high in _bounds(text))
    if seeds == 1:
        assert "One seed: no interval. A note." in text and "95%" not in text
    else:
        assert "Mean [95% interval] over seeds. A note." in text and len(_bounds(text)) == 1
