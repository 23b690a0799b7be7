"""Fixed-offset heads, stated per position encoding: a family has them when its count exceeds the shuffled-position
null's, paired over seeds, and lacks them when its strongest head stays below the bar; the claim agrees when some
family has them (Holm over the families); the query itself (d = 0) does not count."""

import numpy as np

from harness.estimate import Estimate
from harness.paired import paired
from suites.attention_heads import null
from suites.attention_heads.claims import offset_heads as claim
from suites.attention_heads.claims._shared import family_verdict, some_family
from tests.unit.suites.attention_heads.claims._records import FALLS, judged, made_up_records

FLAT = (1.5, 1.5, 1.5)


def test_it_is_a_finding_with_a_null_its_smallest_effect_and_precondition():
    c = claim.CLAIM
    assert c.kind == "finding" and "shuffled" in c.protocol
    assert c.smallest_effect == 1.0 and "this project's choice" in c.smallest_effect_source
    assert "shuffled key positions" in c.precondition


def test_it_disagrees_when_every_familys_strongest_head_stays_below_the_bar():
    found = judged(*(made_up_records(v, s, False, FLAT) for v in ("rope", "alibi") for s in (0, 1)))["offset_heads"]
    assert found.verdict == "disagrees" and found.cause and "below the bar" in found.sentence
    assert found.headline.label.endswith("largest fixed-offset share - the bar") and found.headline.value < 0


def test_one_seed_decides_nothing_and_models_that_did_not_learn_are_left_out():
    found = judged(made_up_records("rope", 0, False, FLAT), made_up_records("alibi", 0, True, FALLS, loss=3.0))
    offset = found["offset_heads"]
    assert offset.verdict == "inconclusive" and "`alibi` (did not learn" in offset.sentence
    assert judged(made_up_records("rope", 0, True, FLAT, loss=3.0))["offset_heads"].verdict == "not run"


def test_a_head_on_the_query_itself_is_not_a_fixed_offset_head():
    """Offset 0 is the current token, which Clark et al. find most heads ignore; fixed offsets are d >= 1."""
    on_self = judged(*(made_up_records("rope", s, True, FALLS, offset=0) for s in (0, 1)))["offset_heads"]
    assert on_self.verdict == "disagrees" and "d = 0, does not count" in on_self.sentence
    two_back = judged(*(made_up_records("rope", s, True, FALLS, offset=2) for s in (0, 1)))["offset_heads"]
    assert two_back.verdict == "agrees" and "at d = 2" in two_back.sentence
    assert "null's count is 0 in every seed" in two_back.sentence


def test_fixed_offset_heads_are_stated_per_family_against_the_null():
    """One family whose count exceeds the null's in every seed is enough for 'some heads'; a family with such a head
    in one seed of two neither has nor lacks them."""
    jobs = [made_up_records("rope", s, True, FALLS) for s in (0, 1)]
    jobs += [made_up_records(v, s, False, FALLS) for v in ("alibi", "learned", "sinusoidal") for s in (0, 1)]
    found = judged(*jobs)["offset_heads"]
    assert found.verdict == "agrees" and "`rope`'s count exceeds it" in found.sentence
    assert found.headline.label == "rope fixed-offset heads over the shuffled-position null" and found.p < 0.05
    once = [made_up_records("rope", 0, True, FALLS), made_up_records("rope", 1, False, FALLS)]
    assert judged(*once)["offset_heads"].verdict == "inconclusive"


def test_too_few_scored_queries_leave_the_precondition_unmet():
    """4 windows of 8 characters: a shuffled head's share could reach 0.5 by chance, so a count above it says nothing."""
    few = judged(*(made_up_records("rope", s, True, FALLS, windows=4) for s in (0, 1)))["offset_heads"]
    assert few.verdict == "not testable here" and "eval_windows" in few.cause


def test_a_family_alone_at_two_and_a_half_percent_does_not_decide_five():
    """Counts 2, 3, 3 over the null's 0: one-sided p 0.0076, enough for one family, not for five held together."""
    count = paired("c", {0: 2.0, 1: 3.0, 2: 3.0}, {0: 0.0, 1: 0.0, 2: 0.0}, "heads")
    below = Estimate.of("m", [-0.2, -0.25, -0.22], kind="bounded", bounds=(-1.0, 1.0))
    above = Estimate.of("m", [0.3, 0.35, 0.3], kind="bounded", bounds=(-1.0, 1.0))
    has = family_verdict(count, above)
    lacks = family_verdict(paired("c", {0: 0.0, 1: 0.0, 2: 0.0}, {0: 0.0, 1: 0.0, 2: 0.0}), below)
    assert has == "agrees" and lacks == "disagrees"
    assert some_family([has]) == "agrees" and some_family([has] + [lacks] * 4) == "inconclusive"
    assert some_family([lacks] * 5) == "disagrees"


def test_a_shuffled_head_never_counts():
    """The null itself: heads as sharp as can be (all attention on one key per query) on keys drawn at random among
    those a query sees, 512 windows of 64 characters: no head's share at any offset reaches the bound, far below 0.5,
    so the rule never says "agrees" on such heads (its size under this null is 0)."""
    rng = np.random.default_rng(0)
    windows, length, heads = 512, 64, 32
    i = np.arange(null.FIRST_QUERY, length)  # the scored queries
    d = np.arange(1, length)[:, None]  # offsets 1 .. L-1
    p = np.where(i[None, :] >= d, 1.0 / (i[None, :] + 1), 0.0)  # (offsets, queries): a hit's chance per window
    hits = rng.binomial(windows, np.broadcast_to(p, (20, heads) + p.shape))  # 20 models
    share = hits.sum(-1) / null.scored_queries(windows, length)  # (models, heads, offsets)
    bound = null.offset_bound(windows, length, heads)
    assert abs(null.offset_mean(length) - 0.0594) < 1e-3 and bound < 0.08
    assert share.max() < bound and (share >= 0.5).sum() == 0


def test_the_existential_combiner_holds_its_size():
    """Five families of 3 seeds whose counts over the null are pure noise (mean 0): "agrees" (some family has them)
    at most about 2.5% of the time, where "any family agrees" would be 11.9%; one family's strongest head exactly on
    the bar, the others far below: "disagrees" at most about 2.5% (fails above 5.5% in all)."""
    rng = np.random.default_rng(1)
    draws, seeds = 1000, range(3)
    zero = dict.fromkeys(seeds, 0.0)
    agree = disagree = 0
    far = Estimate.of("m", [-0.3, -0.31, -0.29], kind="bounded", bounds=(-1.0, 1.0))
    for _ in range(draws):
        counts = rng.normal(0.0, 1.0, (5, 3))
        on_bar = Estimate.of("m", rng.normal(0.0, 0.05, 3), kind="bounded", bounds=(-1.0, 1.0))
        fams = [family_verdict(paired("c", dict(zip(seeds, c)), zero), far) for c in counts]
        agree += some_family(fams) == "agrees"
        margins = [on_bar] + [far] * 4
        lacking = [family_verdict(paired("c", zero, zero), m) for m in margins]
        disagree += some_family(lacking) == "disagrees"
    assert agree / draws <= 0.035 and disagree / draws <= 0.035 and (agree + disagree) / draws <= 0.055
