"""The ranking of position encodings on length generalisation: a mean rank over the tasks that test each published
pair (at least two), by an exact sign-flip test over the paired (task, seed) cells; every tested pair must hold,
refuted only with the pairs held at 5% together; arms that did not learn a task in distribution are left out."""

import numpy as np
import pytest

from harness.paired import all_hold
from suites.recall.claims import position_length_generalisation as claim
from tests.unit.suites.recall.claims._records import frame, judged, rows

DRAWS = 4000
#: 2.5% plus three Monte-Carlo standard errors: one direction of a test of size 2.5% passes
BRANCH = 0.025 + 3 * (0.025 * 0.975 / DRAWS) ** 0.5


def _tasks(ood_by_arm, tasks=("copy", "reverse"), at_n=1.0, jitter=0.01):
    """Length-task records: each arm learned every task (``at_n`` at n = 8) and scores ``ood_by_arm[arm]`` at 16."""
    return frame(*(rows(v, t, {8: at_n, 16: acc}, 8, jitter=jitter) for t in tasks for v, acc in ood_by_arm.items()))


def test_it_is_a_finding_whose_precondition_is_a_mean_over_tasks():
    assert claim.CLAIM.kind == "finding" and "at least two length tasks" in claim.CLAIM.precondition
    assert claim.CLAIM.smallest_effect == 0.5 and claim.CLAIM.smallest_effect_source


def test_the_published_order_over_two_tasks_agrees_and_its_reverse_disagrees():
    published = _tasks({"none": 0.8, "t5_bias": 0.8, "alibi": 0.6, "rope": 0.3})
    found = judged(claim, published)
    assert found.verdict == "agrees" and found.seeds == 6  # 2 tasks x 3 seeds, paired cells
    assert found.headline.label.startswith("mean rank of")
    # two pairs reversed on 6 cells each: each p against is 1/64, above Holm's 2.5% / 2 for the pair of them
    held = judged(claim, _tasks({"none": 0.2, "alibi": 0.6, "rope": 0.9}))
    assert held.verdict == "inconclusive" and "not below Holm's 2.5%/2" in held.cause
    reversed_ = judged(claim, _tasks({"none": 0.2, "alibi": 0.6, "rope": 0.9}, tasks=("copy", "reverse", "addition")))
    assert reversed_.verdict == "disagrees" and "the order reversed" in reversed_.cause
    assert reversed_.p is not None and reversed_.p < 0.05


def test_one_task_never_decides_the_ranking_whatever_it_shows():
    # a clear reversal on copy alone: the source's estimand is a mean over tasks, so it is not testable here
    for alibi in (0.97, 0.3):
        found = judged(claim, _tasks({"t5_bias": 0.7, "alibi": alibi, "rope": 0.5}, tasks=("copy",)))
        assert found.verdict == "not testable here", alibi
        assert "t5_bias > alibi (copy:" in found.cause and "at least 2 of copy, reverse and addition" in found.cause


def test_arms_that_did_not_learn_a_task_are_left_out_and_so_are_pairs_short_of_two_tasks():
    df = frame(
        *(rows(v, t, {8: 1.0, 16: acc}, 8) for t in ("copy", "reverse") for v, acc in (("alibi", 0.8), ("rope", 0.3))),
        *(rows("none", t, {8: 0.5, 16: 0.9}, 8) for t in ("copy", "reverse")),
    )
    found = judged(claim, df)
    assert found.verdict == "agrees"  # alibi > rope over two tasks; none learned neither, so none > alibi is untested
    assert "none on copy" in found.sentence and "none > alibi (no task)" in found.sentence


def test_three_seeds_on_two_tasks_are_the_fewest_cells_that_can_decide():
    assert np.isclose(min(claim.sign_flip(np.ones(6))), 1 / 64)  # two-sided 1/32 < 5%
    assert claim.rank_verdict(np.ones(5)) == "inconclusive"  # 1/32 one-sided > 2.5%: five cells decide nothing
    assert claim.interval(np.ones(5)) == (None, None) and claim.interval(np.ones(6)) == (1.0, 1.0)
    low, high = claim.interval(np.array([1.0, 2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 1.0]))
    assert 0.0 < low < 1.125 < high <= 2.0


@pytest.mark.parametrize("cells", [6, 9, 11])
def test_the_rank_test_holds_its_size_where_the_arms_are_exchangeable(cells):
    # rank differences of two exchangeable arms among four: symmetric about 0, often tied in magnitude; a t test on
    # them says "agrees" or "disagrees" far more often than 2.5% a side (zero spread when all cells rank alike)
    rng = np.random.default_rng(cells)
    d = rng.choice([-3, -2, -1, 1, 2, 3], size=(DRAWS, cells), p=[0.1, 0.15, 0.25, 0.25, 0.15, 0.1])
    words = [claim.rank_verdict(row) for row in d]
    agree, disagree = words.count("agrees") / DRAWS, words.count("disagrees") / DRAWS
    assert agree <= BRANCH and disagree <= BRANCH, (agree, disagree)


def test_the_ranking_of_three_null_pairs_holds_its_size():
    rng = np.random.default_rng(3)
    d = rng.choice([-2, -1, 1, 2], size=(DRAWS, 3, 6))
    words = [all_hold([claim.rank_verdict(pair) for pair in draw]) for draw in d]
    assert words.count("disagrees") / DRAWS <= BRANCH and words.count("agrees") / DRAWS <= BRANCH


def test_missing_arms_are_not_run():
    df = frame(rows("lstm", "mqar", {1: 0.5}, 1), rows("lstm", "copy", {4: 0.5}, 4))
    assert judged(claim, df).verdict == "not run"
