"""What a sliding window costs at L: a one-sided verdict paired over seeds against rope trained alike, on the windows
whose stack reaches across the context, with a negative control the same rule must catch."""

import pandas as pd

from suites.position_extrapolation.window_quality import CONTROL, MARGIN, MARGIN_NATS, quality_finding

ROPE = (4.0, 4.1, 4.2)
CAUGHT = (4.6, 4.75, 4.8)  # W 4: about +15% on every seed


def _records(window32, window4=CAUGHT, window16=None, train_len=64):
    rows = []
    arms = [("rope", {"window": None, "n_layers": 4}, ROPE), ("rope+window32", {"window": 32, "n_layers": 4}, window32)]
    arms += [(CONTROL, {"window": 4, "n_layers": 4}, window4)] if window4 else []
    arms += [("rope+window16", {"window": 16, "n_layers": 4}, window16)] if window16 else []
    for variant, spec, ppls in arms:
        for seed, p in enumerate(ppls):
            rows.append(
                {
                    "variant": variant,
                    "seed": seed,
                    "metric": "perplexity",
                    "x": float(train_len),
                    "value": p,
                    "status": "ok",
                    "spec": spec,
                }
            )
            # past L the window is far better; the verdict reads L only
            rows.append(
                {
                    "variant": variant,
                    "seed": seed,
                    "metric": "perplexity",
                    "x": 8.0 * train_len,
                    "value": p * (1.1 if spec["window"] else 5.0),
                    "status": "ok",
                    "spec": spec,
                }
            )
    return pd.DataFrame(rows)


def test_a_reaching_window_within_the_margin_costs_little_when_the_control_is_caught():
    found = quality_finding(_records([3.98, 4.05, 4.21]), 64)
    assert found.verdict == "agrees" and "span 124 of L - 1 = 63" in found.sentence
    assert found.headline.label.startswith("rope+window32") and found.boundary == MARGIN
    assert f"{MARGIN_NATS:.4f} nats per character" in found.sentence and "own margin" in found.sentence


def test_the_negative_control_must_be_caught_for_costs_little_to_count():
    found = quality_finding(_records([3.98, 4.05, 4.21], window4=(4.0, 4.12, 4.19)), 64)  # W 4 costs nothing here
    assert found.verdict == "inconclusive" and "negative control" in found.cause
    assert found.headline.label.startswith(CONTROL)
    free = quality_finding(_records([3.98, 4.05, 4.21], window4=(3.99, 4.0, 4.15)), 64)  # W 4 below rope on every seed
    assert free.verdict == "inconclusive" and "more seeds cannot decide it" in free.cause
    assert "12 tokens the control reaches" in free.cause and "would resolve" not in free.cause
    assert "more seeds cannot" not in found.cause  # one seed of the control above 0: seeds may still catch it
    missing = quality_finding(_records([3.98, 4.05, 4.21], window4=None), 64)
    assert missing.verdict == "inconclusive" and "did not run" in missing.cause


def test_a_window_that_does_not_reach_across_is_shown_not_judged():
    found = quality_finding(_records([3.98, 4.05, 4.21], window16=(4.8, 4.9, 5.0)), 64)  # W 16 costs +20%
    assert found.verdict == "agrees" and "span 60 of L - 1 = 63; shown, not judged" in found.sentence


def test_a_reaching_window_worse_by_more_than_the_margin_on_every_seed_costs_more():
    found = quality_finding(_records([4.4, 4.5, 4.65]), 64)  # about +10% on each seed
    assert found.verdict == "disagrees" and f"+{MARGIN:g}%" in found.cause


def test_a_window_whose_interval_reaches_past_the_margin_is_inconclusive():
    found = quality_finding(_records([3.8, 4.4, 4.2]), 64)  # -5%, +7%, 0%
    assert found.verdict == "inconclusive" and "reaches past" in found.cause


def test_no_reaching_window_or_no_rope_is_not_run():
    df = _records([4.0, 4.1, 4.2])
    assert quality_finding(df[df.variant == "rope"], 64).verdict == "not run"
    assert quality_finding(df[df.variant != "rope"], 64).verdict == "not run"
    assert quality_finding(df[df.variant != "rope+window32"], 64).verdict == "not run"
