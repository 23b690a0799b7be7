"""What every claim declares before any result: a finding its smallest effect of interest (where it comes from
named), so an undecided verdict plans seeds from it and never from the estimate; and no claim may declare a rule
that is not a test of stated size (a claim is a finding judged by a test, or a check)."""

from __future__ import annotations

from harness.contract import suites


def _claims():
    return [claim for name in suites.names() for claim in suites.get(name).claims]


def test_every_finding_declares_its_smallest_effect_of_interest_and_its_source():
    missing = [
        c.key
        for c in _claims()
        if c.kind == "finding" and (c.smallest_effect is None or c.smallest_effect <= 0 or not c.smallest_effect_source)
    ]
    assert not missing, f"findings without smallest_effect / smallest_effect_source in suite.yaml: {missing}"


def test_a_claim_declaring_an_untested_rule_is_refused_in_one_sentence(tmp_path):
    import pytest

    from harness.errors import UsageError
    from harness.suite_file import SuiteFile

    (tmp_path / "suite.yaml").write_text(
        "claims:\n  k:\n    name: n\n    source: s\n    published: p\n    untested_rule: a bar on a mean\n"
    )
    with pytest.raises(UsageError, match="claim k must be a mapping of"):
        SuiteFile.of(tmp_path / "suite.py").claims()
