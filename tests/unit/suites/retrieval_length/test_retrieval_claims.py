"""retrieval_length's claims as its suite.yaml declares them, in its report's order."""

from harness.contract import suites


def test_the_claims_are_the_files():
    assert [c.key for c in suites.get("retrieval_length").claims] == [
        "pi_finetuned_retrieves",
        "yarn_fewer_steps",
        "alibi_flat_not_retrieval",
        "window_span_retrieval",
    ]
