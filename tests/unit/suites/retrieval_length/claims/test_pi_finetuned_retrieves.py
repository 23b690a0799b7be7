"""PI fine-tuned at s x L beats fine-tuned plain RoPE there and its mean reaches 0.8 (a one-sided test), judged only
where the fine-tuning is the source's (plain text at s x L), whatever the comparison's direction."""

import numpy as np
import pytest

from suites.retrieval_length.claims import pi_finetuned_retrieves as claim
from tests.unit.suites.retrieval_length.claims._records import frame

DRAWS = 3000
#: 5% plus three Monte-Carlo standard errors at DRAWS
WHOLE = 0.05 + 3 * (0.05 * 0.95 / DRAWS) ** 0.5


def test_it_is_a_finding_with_a_protocol_precondition_and_a_smallest_effect():
    c = claim.CLAIM
    assert c.kind == "finding" and c.protocol
    assert "source's" in c.precondition and "plain text" in c.precondition
    assert c.smallest_effect == 0.2 and c.smallest_effect_source


def judged(pi_vals, rope_vals, task="mixed", at_l=None):
    values = {("rope+pi", "finetuned_accuracy", 128): pi_vals, ("rope", "finetuned_accuracy", 128): rope_vals}
    if at_l is not None:  # both arms' accuracy at L = 64 after the fine-tuning
        values[("rope+pi", "finetuned_accuracy", 64)] = at_l
        values[("rope", "finetuned_accuracy", 64)] = at_l
    return claim.judge(frame(values, finetune_task=task))


def test_pi_finetuned_agrees_disagrees_inconclusive_not_run_on_the_sources_protocol():
    assert judged([0.95, 0.97, 0.9], [0.3, 0.35, 0.2]).verdict == "agrees"
    assert judged([0.3, 0.35, 0.2], [0.95, 0.97, 0.9]).verdict == "disagrees"
    assert judged([0.9, 0.75, 0.95], [0.8, 0.7, 0.6]).verdict == "inconclusive"
    # beats it but its mean is wholly below the bar: refuted by the one-sided test
    found = judged([0.6, 0.62, 0.61], [0.2, 0.21, 0.22], task="text", at_l=[0.9, 0.9, 0.9])
    assert found.verdict == "disagrees" and found.headline.label.startswith("rope+pi fine-tuned")
    assert found.boundary == 0.8 and found.p is not None and found.p < 0.05
    assert judged([0.9], [0.2]).verdict == "inconclusive"  # one seed: no calibrated margin, no verdict
    assert claim.judge(frame({("rope", "finetuned_accuracy", 128): [1.0]})).verdict == "not run"


def test_a_mean_just_below_the_bar_is_not_evidence_against_it():
    # the old rule said "disagrees" for any mean below 0.8; the interval [0.5, 1.0] here includes it
    found = judged([0.95, 0.6, 0.85, 0.7, 0.8], [0.2, 0.3, 0.25, 0.2, 0.1])
    assert found.verdict == "inconclusive" and "includes 0.8" in found.cause
    assert found.headline.label.startswith("rope+pi fine-tuned")


@pytest.mark.parametrize("pi_vals, rope_vals", [([0.95, 0.97, 0.9], [0.3, 0.35, 0.2]), ([0.3, 0.35, 0.2], [0.95] * 3)])
def test_passkey_fine_tuning_is_not_testable_here_whatever_the_direction(pi_vals, rope_vals):
    found = judged(pi_vals, rope_vals, task="passkey")
    assert found.verdict == "not testable here"
    assert "set.finetune_task=passkey" in found.cause and "set.finetune_task=mixed" in found.cause
    assert "{probe:pi_mixed_finetune.at_both_lengths}" in found.cause  # what the source's protocol showed
    assert found.estimates[0].label.startswith("accuracy at 128")  # the comparison shown, not judged
    # records from before set.finetune_task existed fine-tuned on the passkey task too
    values = {("rope+pi", "finetuned_accuracy", 128): pi_vals, ("rope", "finetuned_accuracy", 128): rope_vals}
    old = frame(values)
    old["profile_settings"] = [{k: v for k, v in s.items() if k != "finetune_task"} for s in old.profile_settings]
    assert claim.judge(old).verdict == "not testable here"


def test_a_fine_tuning_that_makes_every_arm_forget_the_task_is_not_testable_here():
    found = judged([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], task="text", at_l=[0.0, 0.02, 0.0])
    assert found.verdict == "not testable here" and "forgotten" in found.cause
    assert judged([0.95, 0.97, 0.9], [0.3, 0.35, 0.2], task="text", at_l=[0.9, 0.8, 0.95]).verdict == "agrees"


def test_the_rule_holds_its_size_at_the_null():
    # the least favourable null: PI no better than RoPE and PI's true mean exactly on the bar
    rng = np.random.default_rng(57)
    seeds = range(5)
    words, old = [], 0
    for _ in range(DRAWS):
        shared = rng.normal(0.0, 0.08, 5)
        pi = dict(zip(seeds, 0.8 + shared + rng.normal(0, 0.05, 5)))
        rope = dict(zip(seeds, 0.8 + shared + rng.normal(0, 0.05, 5)))
        judged_ = claim.rule(pi, rope, 128.0)
        words.append(judged_.word)
        old += judged_.beats == "disagrees" or sum(pi.values()) / 5 < 0.8  # the old rule: a mean below the bar
    agree, disagree = words.count("agrees") / DRAWS, words.count("disagrees") / DRAWS
    assert disagree <= WHOLE and agree + disagree <= WHOLE, (agree, disagree)
    assert old / DRAWS > 0.4  # where the old rule said "disagrees" about half the time
