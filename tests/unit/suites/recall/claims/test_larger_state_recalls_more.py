"""The state ladder: each family's adjacent state sizes in order, and attention above the arms short of solving MQAR."""

from suites.recall.claims import larger_state_recalls_more as claim
from tests.unit.suites.recall.claims._records import arm, frame, judged


def test_it_is_a_finding_with_a_precondition():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.precondition


def test_the_state_ladder_orders_each_family_and_puts_attention_above_the_unsolved():
    assert claim.ladders(["mamba2+state64", "rope", "mamba2+state16", "gla+state8"]) == {
        "mamba2": [(16, "mamba2+state16"), (64, "mamba2+state64")]
    }
    # bare mamba2 is its default N = 64; gla's default depends on the width, so bare gla is no rung
    assert claim.ladders(["mamba2", "mamba2+state16", "gla", "gla+state8"]) == {
        "mamba2": [(16, "mamba2+state16"), (64, "mamba2")]
    }
    found = judged(claim, frame(arm("mamba2+state16", 0.4), arm("mamba2+state64", 0.7), arm("rope", 0.99)))
    assert found.verdict == "agrees"
    labels = [e.label for e in found.estimates]
    assert labels[0].startswith("mamba2+state64 - mamba2+state16") and any(
        l.startswith("rope - mamba2+state64") for l in labels
    )
    flat = judged(claim, frame(arm("mamba2+state16", 0.7), arm("mamba2+state64", 0.4)))
    assert flat.verdict == "disagrees"
