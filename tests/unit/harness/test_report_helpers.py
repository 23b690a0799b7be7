"""Aggregation over seeds."""

import math

import pytest

from harness.report import fmt_mean_ci, mean_ci


def test_mean_ci_uses_the_student_t_interval():
    mean, half, n = mean_ci([1.0, 2.0, 3.0])
    assert (mean, n) == (2.0, 3)
    assert half == pytest.approx(4.302653 * 1.0 / math.sqrt(3), rel=1e-5)


def test_one_seed_has_no_interval():
    assert fmt_mean_ci([5.0]) == "5.00 (n=1)"
    assert fmt_mean_ci([]) == "-"
    assert fmt_mean_ci([1.0, 3.0]).endswith("(n=2)")


def test_a_records_free_text_reaches_markdown_literally():
    import pandas as pd

    from harness.report_kit import markdown_text, status_notes

    reason = "<img src=x onerror=alert(1)> | `rm` &\nnext"
    assert markdown_text(reason) == "&lt;img src=x onerror=alert(1)&gt; \\| 'rm' &amp; next"
    (note,) = status_notes(pd.DataFrame([{"variant": "rope", "status": "failed", "reason": reason}]))
    assert "<img" not in note and "&lt;img" in note and "\n" not in note and note.startswith("- `rope`: failed: ")
