"""YaRN after the short budget within 0.1 of PI after the long one, and ahead of PI after the same short budget."""

from suites.retrieval_length.claims import yarn_fewer_steps as claim
from tests.unit.suites.retrieval_length.claims._records import frame


def test_it_is_a_finding():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol and not claim.CLAIM.untested_rule


def test_yarn_fewer_steps():
    def yarn(yarn_short, pi_short, pi_long):
        return claim.judge(
            frame(
                {
                    ("rope+yarn", "short_finetuned_accuracy", 128): yarn_short,
                    ("rope+pi", "short_finetuned_accuracy", 128): pi_short,
                    ("rope+pi", "finetuned_accuracy", 128): pi_long,
                }
            )
        ).verdict

    assert yarn([0.9, 0.92, 0.91], [0.4, 0.5, 0.45], [0.93, 0.95, 0.9]) == "agrees"
    assert yarn([0.3, 0.32, 0.31], [0.4, 0.5, 0.45], [0.93, 0.95, 0.9]) == "disagrees"
    assert yarn([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]) == "inconclusive"  # both there already
    assert claim.judge(frame({("rope+pi", "finetuned_accuracy", 128): [1.0]})).verdict == "not run"
