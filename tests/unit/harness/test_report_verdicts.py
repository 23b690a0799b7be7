"""The toolkit's verdict helpers: a metric's direction decides better and worse; verdicts combine; variants order."""

import math

import pandas as pd

from harness.contract import Metric
from harness.report_kit import better, combine, in_order, metric, status_notes, worse


def test_the_direction_of_a_metric_decides_better_and_worse():
    ppl = metric("language_modeling", "perplexity")
    assert not ppl.higher_is_better
    assert better(ppl, 4.0, 5.0) and worse(ppl, 5.0, 4.0)
    acc = Metric("accuracy", "", True)
    assert better(acc, 0.9, 0.5) and not better(acc, 0.5, 0.9)
    assert not better(acc, math.nan, 0.5) and not worse(acc, math.nan, 0.5)


def test_combine_and_order_and_status_notes():
    assert combine([]) == "not run"
    assert combine(["agrees", "agrees"]) == "agrees"
    assert combine(["disagrees"]) == "disagrees"
    assert combine(["agrees", "disagrees"]) == "inconclusive"
    assert in_order(["b", "z", "a", "y"], ("z", "y")) == ["z", "y", "a", "b"]
    df = pd.DataFrame(
        [
            {"variant": "a", "status": "ok", "reason": None},
            {"variant": "b", "status": "diverged", "reason": "loss nan at step 3"},
            {"variant": "b", "status": "diverged", "reason": "loss nan at step 3"},
            {"variant": "c", "status": "skipped", "reason": "over budget"},
        ]
    )
    assert status_notes(df) == ["- `b`: diverged: loss nan at step 3", "- `c`: skipped: over budget"]
    assert status_notes(df, statuses=["skipped"]) == ["- `c`: skipped: over budget"]
