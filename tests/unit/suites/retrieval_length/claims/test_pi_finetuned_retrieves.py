"""PI fine-tuned at s x L beats fine-tuned plain RoPE there and retrieves at 0.8 or more at every seed."""

from suites.retrieval_length.claims import pi_finetuned_retrieves as claim
from tests.unit.suites.retrieval_length.claims._records import frame


def test_it_is_a_finding_with_its_untested_rule_declared():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and "0.8" in claim.CLAIM.untested_rule


def test_pi_finetuned_agrees_disagrees_inconclusive_not_run():
    def pi(pi_vals, rope_vals):
        return claim.judge(
            frame({("rope+pi", "finetuned_accuracy", 128): pi_vals, ("rope", "finetuned_accuracy", 128): rope_vals})
        ).verdict

    assert pi([0.95, 0.97, 0.9], [0.3, 0.35, 0.2]) == "agrees"
    assert pi([0.3, 0.35, 0.2], [0.95, 0.97, 0.9]) == "disagrees"
    assert pi([0.9, 0.75, 0.95], [0.8, 0.7, 0.6]) == "inconclusive"
    assert pi([0.6, 0.62, 0.61], [0.2, 0.21, 0.22]) == "disagrees"  # beats it but never reaches the threshold
    assert pi([0.9], [0.2]) == "inconclusive"  # one seed: no calibrated margin, no verdict
    assert claim.judge(frame({("rope", "finetuned_accuracy", 128): [1.0]})).verdict == "not run"


def test_the_threshold_part_needs_every_seed_and_fails_on_the_mean():
    assert claim.reaches({0: 0.9, 1: 0.85}) == "agrees"
    assert claim.reaches({0: 0.9, 1: 0.75}) == "inconclusive"  # mean 0.825: not every seed, mean above
    assert claim.reaches({0: 0.9, 1: 0.6}) == "disagrees"  # mean 0.75 below 0.8
    assert claim.reaches({}) == "not run"
