"""A verdict is the paired rule's (harness/paired.py) unless the claim says otherwise.

A literal verdict, ``"agrees"`` or ``"disagrees"`` written as the value a decision produces (``"agrees" if ... else
"disagrees"``, ``return "agrees"``, ``verdict = "disagrees"``, a literal passed to ``finding(...)``), may stand in
``suites/`` only in the module of a claim that declares why, ``kind: check`` (true by construction: bytes = the
formula), or in a module that decides by a test of its own and says so by building its verdicts as
``harness.paired.Verdict(word, p_for, p_against)``: the word with the p-values of the test behind it (the board's
false-discovery control reads them; the module's tests simulate the rule's size). Reading a verdict
(``label == "agrees"``, ``{"agrees": ...}[verdict]``) is not deciding one. The judge itself lives in ``harness/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from harness.contract import suites

ROOT = Path(__file__).resolve().parents[1].parent
LITERALS = ("agrees", "disagrees")
#: the nodes whose value a decision produces
PRODUCING = (ast.IfExp, ast.Return, ast.Assign, ast.AnnAssign, ast.Call, ast.keyword)


def literal_verdicts(source: str) -> list[int]:
    """The lines of ``source`` where a verdict literal is produced rather than read."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in LITERALS:
            parent = parents.get(node)
            if isinstance(parent, ast.IfExp) and node is parent.test:
                continue
            if isinstance(parent, PRODUCING):
                lines.append(node.lineno)
    return sorted(set(lines))


def carries_p_values(source: str) -> bool:
    """Whether ``source`` builds a verdict with the p-values of its test: ``Verdict(word, p_for, p_against)``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Verdict":
            if len(node.args) + len(node.keywords) >= 3:
                return True
    return False


def declared_exceptions() -> set[Path]:
    """The claim modules allowed a literal verdict: those of checks."""
    allowed = set()
    for name in suites.names():
        for claim in suites.get(name).claims:
            if claim.kind == "check":
                allowed.add(ROOT / "suites" / name / "claims" / f"{claim.key}.py")
    return allowed


def test_the_scan_finds_each_way_of_deciding_and_none_of_reading():
    deciding = (
        'v = "agrees" if ok else "disagrees"\n'
        'def f():\n    return "agrees"\n'
        'verdict = "disagrees"\n'
        'finding(CLAIM, "agrees", "s")\n'
        'finding(CLAIM, verdict="disagrees")\n'
    )
    assert literal_verdicts(deciding) == [1, 3, 4, 5, 6]
    reading = (
        'if label == "agrees":\n    pass\n'
        'said = {"agrees": "a", "disagrees": "b"}[verdict]\n'
        'bad = [x for x in labels if x != "disagrees"]\n'
        'ok = verdict in ("agrees", "disagrees")\n'
        '"""agrees"""\n'
    )
    assert literal_verdicts(reading) == []
    assert carries_p_values('w = "agrees" if p < 0.025 else "inconclusive"\nv = Verdict(w, p, q)\n')
    assert not carries_p_values('v = Verdict("agrees")\n')


def test_no_literal_verdict_outside_the_declared_checks_and_tests_that_carry_their_p_values():
    allowed = declared_exceptions()
    wrong = []
    for path in sorted((ROOT / "suites").rglob("*.py")):
        if path in allowed or carries_p_values(path.read_text()):
            continue
        wrong += [f"{path.relative_to(ROOT)}:{line}" for line in literal_verdicts(path.read_text())]
    assert not wrong, (
        "a verdict written as a literal: decide with harness/paired.py, or with a test of your own whose verdict is "
        "a Verdict(word, p_for, p_against), or declare the claim `kind: check` in suite.yaml:\n" + "\n".join(wrong)
    )
