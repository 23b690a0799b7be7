"""The state ladder: each family's adjacent state sizes in order, and attention at the top of the frontier: no recurrent
arm above it by more than the smallest effect (non-inferiority, no arm picked by its own score)."""

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
    assert labels[0].startswith("mamba2+state64 - mamba2+state16")
    assert {"mamba2+state16 - rope", "mamba2+state64 - rope"} <= {l.split(" MQAR")[0] for l in labels}
    flat = judged(claim, frame(arm("mamba2+state16", 0.7), arm("mamba2+state64", 0.4)))
    assert flat.verdict == "disagrees"


def test_an_arm_at_the_ceiling_beside_attention_keeps_attention_at_the_top():
    # the larger state solves MQAR as attention does: within the 0.05 margin, attention still tops the frontier
    found = judged(
        claim,
        frame(arm("mamba2+state16", 0.5), arm("mamba2+state64", 0.995, jitter=0.002), arm("rope", 0.998, jitter=0.001)),
    )
    assert found.verdict == "agrees"
    above = judged(
        claim,
        frame(arm("mamba2+state16", 0.5), arm("mamba2+state64", 0.99, jitter=0.002), arm("rope", 0.6, jitter=0.002)),
    )
    assert above.verdict == "disagrees" and "above attention by more than 0.05" in above.cause
    assert above.headline.label.startswith("mamba2+state64 - rope") and above.boundary == 0.05
