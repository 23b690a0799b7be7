"""The p-values behind the verdicts (harness/pvalues.py): read back from the interval so a verdict and its p agree,
carried into the finding, and the board's Benjamini-Hochberg q-values."""

import math

import pytest
from scipy import stats

from harness import pvalues
from harness.findings import Claim, finding
from harness.paired import all_hold, directional, paired


def test_the_p_value_is_the_paired_t_test_on_the_difference_and_on_the_log_ratio():
    d = paired("x", {0: 1.0, 1: 2.0, 2: 3.5}, {0: 0.0, 1: 0.5, 2: 0.2})
    expected = stats.ttest_1samp([1.0, 1.5, 3.3], 0.0).pvalue
    assert d.p_value() == pytest.approx(expected, rel=1e-6)
    r = paired("ppl", {0: 4.4, 1: 4.0, 2: 4.6}, {0: 4.0, 1: 3.9, 2: 4.0}, relative=True)
    logs = [math.log(4.4 / 4.0), math.log(4.0 / 3.9), math.log(4.6 / 4.0)]
    assert r.p_value() == pytest.approx(stats.ttest_1samp(logs, 0.0).pvalue, rel=1e-6)


def test_the_interval_excludes_the_boundary_exactly_when_p_is_below_five_percent():
    for shift in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0):
        d = paired("x", {0: shift + 1.0, 1: shift - 0.4, 2: shift + 0.2}, {0: 0.0, 1: 0.0, 2: 0.0})
        assert d.interval_excludes_zero == (d.p_value() < 0.05)


def test_a_finding_carries_its_rules_p_and_none_without_a_test():
    claim = Claim("k", "s", "n", "src", "pub")
    d = paired("x", {0: 1.0, 1: 1.2, 2: 1.1}, {0: 0.0, 1: 0.1, 2: 0.05})
    f = finding(claim, directional(d, +1), "s", [d.estimate])
    assert f.verdict == "agrees" and type(f.verdict) is str and f.p == pytest.approx(d.p_value())
    both = all_hold([directional(d, +1), directional(d, +1)])
    assert finding(claim, both, "s", [d.estimate]).p == pytest.approx(both.p)
    one = paired("x", {0: 1.0}, {0: 0.0}, margin=0.5)
    assert finding(claim, directional(one, +1), "s", [one.estimate]).p is None
    assert finding(claim, "not testable here", "s", [d.estimate]).p is None


def test_benjamini_hochberg_q_values():
    p = [0.01, 0.04, 0.03, math.nan, 0.5]
    q = pvalues.bh_q(p)
    # ranks among the 4 tested: 0.01 -> 0.04, 0.03 -> 0.04*... step-up: min over larger ranks of p * m / rank
    assert q[0] == pytest.approx(0.04) and q[2] == pytest.approx(0.04 * 4 / 3) and q[1] == pytest.approx(0.04 * 4 / 3)
    assert math.isnan(q[3]) and q[4] == pytest.approx(0.5)
