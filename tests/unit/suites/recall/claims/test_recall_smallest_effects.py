"""Every recall finding declares the smallest effect its seed plans are sized for, and where it comes from; its
precondition is about the setting, never the attention arm learning what the claim predicts it learns."""

from harness.claims import claims_of
from suites.recall.suite import Recall


def test_every_recall_finding_declares_its_smallest_effect_and_a_setting_precondition():
    claims = [c for c in claims_of(Recall()) if c.kind == "finding"]
    assert len(claims) == 7
    for c in claims:
        assert c.smallest_effect is not None and c.smallest_effect > 0 and c.smallest_effect_source, c.key
        assert c.precondition, c.key
        assert "attention arm learns" not in c.precondition and "learns copying" not in c.precondition, c.key
