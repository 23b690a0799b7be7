"""The claims registry (harness/claims.py): every claim of every suite.yaml is judged by exactly one module named by
its key, and a key without its module or a module without its key is one sentence."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

from harness.claims import check, judge_all, modules
from harness.contract import suites
from harness.errors import UsageError


def test_every_claim_key_has_exactly_one_module_and_every_module_a_key():
    for name in suites.names():
        suite = suites.get(name)
        keys = sorted(c.key for c in suite.claims)
        assert modules(suite) == keys, name
        check(suite, suite.claims)


def _fake_suite(tmp_path, monkeypatch, claim_files: tuple[str, ...]):
    """A suite package ``fake_claims`` declaring claims ``a`` and ``b``, with the given claim modules."""
    package = tmp_path / "fake_claims"
    (package / "claims").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "suite.py").write_text(
        "from harness.claims import claims_of\n\n\nclass Fake:\n    name = 'fake'\n    claims = property(claims_of)\n"
    )
    (package / "suite.yaml").write_text(
        "profiles:\n  quick: {}\nclaims:\n"
        + "".join(f"  {k}:\n    name: claim {k}\n    source: s\n    published: p\n" for k in "ab")
    )
    (package / "claims" / "__init__.py").write_text("")
    (package / "claims" / "_shared.py").write_text("def prepare(records):\n    return len(records)\n")
    for key in claim_files:
        (package / "claims" / f"{key}.py").write_text(
            "from harness.claims import declared\nfrom harness.findings import finding\n\nCLAIM = declared(__file__)\n\n"
            "def judge(n):\n    return finding(CLAIM, 'inconclusive', f'{n} records')\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("fake_claims")]:
        monkeypatch.delitem(sys.modules, name)
    from fake_claims.suite import Fake  # noqa: PLC0415  (made above)

    suite = Fake()
    return suite, suite.claims


def test_a_declared_claim_without_its_module_is_one_sentence(tmp_path, monkeypatch):
    suite, claims = _fake_suite(tmp_path, monkeypatch, ("a",))
    with pytest.raises(UsageError, match=r"declares claim b in suite.yaml but has no module fake_claims/claims/b.py"):
        check(suite, claims)


def test_a_module_judging_no_declared_claim_is_one_sentence(tmp_path, monkeypatch):
    suite, claims = _fake_suite(tmp_path, monkeypatch, ("a", "b", "c"))
    with pytest.raises(UsageError, match=r"fake_claims/claims/c.py judges no claim of suite fake"):
        check(suite, claims)


def test_each_judge_reads_what_shared_prepares_in_the_file_s_order(tmp_path, monkeypatch):
    suite, _ = _fake_suite(tmp_path, monkeypatch, ("a", "b"))
    found = judge_all(suite, pd.DataFrame({"x": [1, 2, 3]}))
    assert [f.claim.key for f in found] == ["a", "b"]
    assert [f.sentence for f in found] == ["3 records", "3 records"]


def test_a_suite_outside_any_package_has_no_claims(tmp_path, monkeypatch):
    (tmp_path / "loose_suite.py").write_text("class Loose:\n    name = 'loose'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from loose_suite import Loose  # noqa: PLC0415  (made above)

    from harness.claims import claims_of, probe_figures

    assert claims_of(Loose()) == () and modules(Loose()) == [] and probe_figures(Loose()) == {}
