"""What a sliding window costs at L: a one-sided verdict paired over seeds against rope trained alike."""

import pandas as pd

from suites.position_extrapolation.window_quality import MARGIN, quality_finding


def _records(window_ppl, rope_ppl=(4.0, 4.1, 4.2), train_len=64):
    rows = []
    for variant, spec, ppls in (("rope", {"window": None, "n_layers": 4}, rope_ppl),
                                ("rope+window16", {"window": 16, "n_layers": 4}, window_ppl)):
        for seed, p in enumerate(ppls):
            rows.append({"variant": variant, "seed": seed, "metric": "perplexity", "x": float(train_len),
                         "value": p, "status": "ok", "spec": spec})
            # past L the window is far better; the verdict reads L only
            rows.append({"variant": variant, "seed": seed, "metric": "perplexity", "x": 8.0 * train_len,
                         "value": p * (1.1 if spec["window"] else 5.0), "status": "ok", "spec": spec})
    return pd.DataFrame(rows)


def test_a_window_within_the_margin_or_better_costs_little():
    found = quality_finding(_records([3.98, 4.05, 4.21]), 64)
    assert found.verdict == "agrees" and found.headline.value < 0 and "span 60 of L - 1 = 63" in found.sentence


def test_a_window_worse_by_more_than_the_margin_on_every_seed_costs_more():
    found = quality_finding(_records([4.4, 4.5, 4.65]), 64)  # about +10% on each seed
    assert found.verdict == "disagrees" and f"+{MARGIN:g}%" in found.cause


def test_a_window_whose_interval_reaches_past_the_margin_is_inconclusive():
    found = quality_finding(_records([3.8, 4.4, 4.2]), 64)  # -5%, +7%, 0%
    assert found.verdict == "inconclusive" and "reaches past" in found.cause


def test_no_window_or_no_rope_is_not_run():
    df = _records([4.0, 4.1, 4.2])
    assert quality_finding(df[df.variant == "rope"], 64).verdict == "not run"
    assert quality_finding(df[df.variant != "rope"], 64).verdict == "not run"
