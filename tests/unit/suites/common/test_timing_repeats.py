"""The test on timing repeats (suites/common/timing_repeats.py): what it reads from a record, and its size under the
null (a true ratio exactly on the threshold), simulated."""

import math

import numpy as np
import pytest

from suites.common import timing_repeats as repeats


def test_the_kept_repeats_are_the_clean_ones_unless_too_few_were_clean():
    extra = {"times": [1.0, 9.0, 2.0, 3.0], "kept_mask": [True, False, True, True], "kept": 3}
    assert repeats.kept_times(extra) == [1.0, 2.0, 3.0]
    assert repeats.kept_times({**extra, "kept": 4}) == [1.0, 9.0, 2.0, 3.0]  # too few clean: every repeat kept
    assert repeats.kept_times({}) == []


def test_a_record_without_repeats_falls_back_on_its_iqr_and_count_and_else_has_no_test():
    t = repeats.log_timing(2.0, {"noise": 0.1349, "kept": 10})
    assert t.centre == pytest.approx(math.log(2.0)) and t.df == 9
    assert t.var == pytest.approx(math.pi / 2 * 0.1**2 / 10)
    assert repeats.log_timing(2.0, {"noise": 0.1349}, repeats_at_least=5).df == 4
    assert repeats.log_timing(2.0, {"noise": 0.1349}) is None
    assert repeats.log_timing(2.0, {"times": [2.0]}) is None


def test_a_clear_ratio_agrees_one_on_the_wrong_side_disagrees_and_one_near_the_bar_is_inconclusive():
    def ratio(a_ms, b_ms, sd=0.01):
        ts = [
            repeats.log_timing(ms, {"times": list(ms * np.exp(sd * np.linspace(-1.5, 1.5, 9)))}) for ms in (a_ms, b_ms)
        ]
        return repeats.Contrast.of([(1, ts[0]), (-1, ts[1])])

    assert ratio(20.0, 10.0).verdict(1.1) == "agrees"
    assert ratio(10.0, 10.0).verdict(1.1) == "disagrees"
    assert ratio(11.0, 10.0, sd=0.2).verdict(1.1) == "inconclusive"
    low, high = ratio(20.0, 10.0).bounds()
    assert low < 2.0 < high and high / low < 1.05
    v = ratio(20.0, 10.0).verdict(1.1)
    assert v.p_for < 0.025 and v.p_against > 0.975
    # below a bar (a share under half): the sides swap
    assert ratio(3.0, 10.0).verdict(0.5, above=False) == "agrees"


def test_over_seeds_the_per_seed_ratios_spread_decides():
    c = repeats.ratio_contrast(
        {s: [(1, repeats.LogTiming(math.log(r), 0.0, math.inf))] for s, r in enumerate([2.0, 2.2, 1.9])}
    )
    assert c.over == "seeds" and c.seeds == 3 and c.df == 2
    assert isinstance(c.estimate("x").interval_text(), str) and "repeats" not in c.estimate("x").interval_text()
    one = repeats.ratio_contrast({0: [(1, repeats.LogTiming(0.7, 0.01, 8.0))]})
    assert one.over == "timing repeats" and one.estimate("x").interval_text().endswith("over timing repeats")


@pytest.mark.parametrize("n", [3, 5, 11])
@pytest.mark.parametrize("sd_a,sd_b", [(0.05, 0.05), (0.02, 0.2)])
def test_at_a_true_ratio_on_the_threshold_each_verdict_comes_at_most_2_5_percent_of_the_time(n, sd_a, sd_b):
    """The size of the one-ratio test: log-normal repeats of two calls whose true medians differ by exactly the
    threshold (1.1); each verdict must come at most 2.5% (+ simulation slack) of the time, both at most 5.5%."""
    rng = np.random.default_rng(n)
    sims = 20_000
    a = np.exp(math.log(1.1) + sd_a * rng.standard_normal((sims, n)))
    b = np.exp(sd_b * rng.standard_normal((sims, n)))
    (ca, va, da), (cb, vb, db) = repeats.log_medians(a), repeats.log_medians(b)
    centre, se, df = repeats.combine([1, -1], np.stack([ca, cb], -1), np.stack([va, vb], -1), np.stack([da, db], -1))
    codes = repeats.codes(centre, se, df, math.log(1.1))
    agrees, disagrees = (codes == 1).mean(), (codes == -1).mean()
    assert agrees <= 0.03 and disagrees <= 0.03 and agrees + disagrees <= 0.055


def test_a_growth_of_a_ratio_four_timings_holds_its_size_too():
    """The growth part of a speed-up claim: (a_L / b_L) / (a_S / b_S) at a true growth of exactly 1."""
    rng = np.random.default_rng(7)
    sims, n = 20_000, 5
    sds = np.array([0.03, 0.1, 0.05, 0.2])
    draws = [np.exp(sd * rng.standard_normal((sims, n))) for sd in sds]
    parts = [repeats.log_medians(t) for t in draws]
    centre, se, df = repeats.combine([1, -1, -1, 1], *(np.stack([p[i] for p in parts], -1) for i in range(3)))
    codes = repeats.codes(centre, se, df, 0.0)
    assert (codes == 1).mean() <= 0.03 and (codes == -1).mean() <= 0.03
