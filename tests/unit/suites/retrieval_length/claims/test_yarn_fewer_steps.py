"""YaRN after the short budget within 0.1 of PI after the long one, and ahead of PI after the same short budget,
judged only where the fine-tuning is the source's (plain text at s x L), whatever the comparison's direction."""

import pytest

from suites.retrieval_length.claims import yarn_fewer_steps as claim
from tests.unit.suites.retrieval_length.claims._records import frame

AGREES = ([0.9, 0.92, 0.91], [0.4, 0.5, 0.45], [0.93, 0.95, 0.9])
DISAGREES = ([0.3, 0.32, 0.31], [0.4, 0.5, 0.45], [0.93, 0.95, 0.9])


def test_it_is_a_finding_with_the_shared_protocol_precondition():
    from suites.retrieval_length.claims import pi_finetuned_retrieves

    c = claim.CLAIM
    assert c.kind == "finding" and c.protocol
    assert c.precondition and c.precondition == pi_finetuned_retrieves.CLAIM.precondition  # one judgement for both
    assert c.smallest_effect == claim.REACH_MARGIN and "REACH_MARGIN" in c.smallest_effect_source


def yarn(yarn_short, pi_short, pi_long, task="mixed"):
    return claim.judge(
        frame(
            {
                ("rope+yarn", "short_finetuned_accuracy", 128): yarn_short,
                ("rope+pi", "short_finetuned_accuracy", 128): pi_short,
                ("rope+pi", "finetuned_accuracy", 128): pi_long,
            },
            finetune_task=task,
        )
    )


def test_yarn_fewer_steps_on_the_sources_protocol():
    assert yarn(*AGREES).verdict == "agrees"
    assert yarn(*DISAGREES).verdict == "disagrees"
    assert yarn([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]).verdict == "inconclusive"  # both there already
    assert claim.judge(frame({("rope+pi", "finetuned_accuracy", 128): [1.0]})).verdict == "not run"


@pytest.mark.parametrize("values", [AGREES, DISAGREES])
def test_passkey_fine_tuning_is_not_testable_here_whatever_the_direction(values):
    found = yarn(*values, task="passkey")
    assert found.verdict == "not testable here" and "set.finetune_task=passkey" in found.cause
    assert "set.short_finetune_steps=400" in found.cause  # the sources' own budgets would test it
    assert found.p is None
