"""The test on timing repeats as kv_cache's timing checks use it (suites/common/timing_repeats.py): its size under the
null, simulated."""

import math

import numpy as np
import pytest

from suites.common import timing_repeats as repeats


@pytest.mark.parametrize("n", [3, 9])
def test_at_a_true_ratio_on_the_bar_each_verdict_comes_at_most_2_5_percent_of_the_time(n):
    """MHA's step exactly 1.1x MQA's, log-normal repeats of unequal spread: each verdict at most 2.5% (+ slack)."""
    rng = np.random.default_rng(n)
    sims = 20_000
    a = repeats.log_medians(np.exp(math.log(1.1) + 0.03 * rng.standard_normal((sims, n))))
    b = repeats.log_medians(np.exp(0.15 * rng.standard_normal((sims, n))))
    centre, se, df = repeats.combine([1, -1], *(np.stack([a[i], b[i]], -1) for i in range(3)))
    codes = repeats.codes(centre, se, df, math.log(1.1))
    assert (codes == 1).mean() <= 0.03 and (codes == -1).mean() <= 0.03
