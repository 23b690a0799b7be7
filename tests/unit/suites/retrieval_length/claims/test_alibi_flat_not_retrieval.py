"""ALiBi's accuracy at 8L falls from its own at L, paired over seeds, with its perplexity ratio on the filler."""

from suites.retrieval_length.claims import alibi_flat_not_retrieval as claim
from tests.unit.suites.retrieval_length.claims._records import frame


def test_it_is_a_finding_with_a_smallest_effect():
    assert claim.CLAIM.kind == "finding" and claim.CLAIM.protocol
    assert claim.CLAIM.smallest_effect == 0.2 and "this project's choice" in claim.CLAIM.smallest_effect_source


def test_alibi_retrieval_falls():
    def alibi(at_l, at_8l):
        return claim.judge(
            frame(
                {
                    ("alibi", "accuracy", 64): at_l,
                    ("alibi", "accuracy", 512): at_8l,
                    ("alibi", "text_loss", 64): [1.5, 1.5, 1.5],
                    ("alibi", "text_loss", 512): [1.45, 1.5, 1.48],
                }
            )
        )

    found = alibi([1.0, 0.98, 0.99], [0.1, 0.2, 0.15])
    assert found.verdict == "agrees" and "perplexity" in found.sentence
    assert alibi([0.5, 0.4, 0.45], [0.9, 0.95, 0.92]).verdict == "disagrees"
    assert alibi([1.0, 0.5, 0.9], [0.9, 0.8, 0.7]).verdict == "inconclusive"
    assert claim.judge(frame({("rope", "accuracy", 64): [1.0]})).verdict == "not run"
