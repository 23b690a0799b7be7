"""Imports point one way: variants <- harness <- suites <- bench, and inside suites, suites.common <- each suite.

Every module's imports are read with ``ast`` (module level, inside functions and under TYPE_CHECKING
alike; relative imports resolved; ``importlib.import_module``/``__import__`` of a literal name too), and:
- ``variants`` imports nothing of the project outside ``variants``;
- ``harness`` (the suite toolkit) imports neither ``suites`` nor ``bench``: it finds suites through the registry
  (``harness.contract.suites``), which imports each package of ``suites`` on first lookup;
- ``suites`` import no ``bench`` (the program above them);
- ``bench`` reaches suites only through the registry, never by importing a module of ``suites``;
- no two modules of ``harness`` and ``bench`` import each other, directly or round a longer circle;
- nothing outside ``variants`` imports a ``_private`` module of ``variants`` (each component package re-exports
  what others use);
- inside ``suites``, arrows point from a suite's package to ``suites.common``: common imports no suite, and a suite
  imports no other suite's package except the modules listed in ``READS`` (attention_heads studies the models
  position_extrapolation trains);
- every import of a project module names a module that exists (a moved module leaves no stale import behind,
  not even inside a function that no test calls).
A failure names the file, the line and the import (a circle: its modules). Each rule is a function of the imports
found, and a test hands it an import that breaks it, so that a rule which can no longer fail is seen.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("variants", "harness", "suites", "bench")
#: what several suites share (suites/common/); every other package below suites/ is one suite
COMMON = "suites.common"
SUITE_PACKAGES = tuple(
    sorted(
        f"suites.{p.name}"
        for p in (ROOT / "suites").iterdir()
        if (p / "__init__.py").is_file() and f"suites.{p.name}" != COMMON
    )
)
#: the modules of another suite's package that a suite may import: suite -> modules
READS = {"suites.attention_heads": ("suites.position_extrapolation.models",)}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    path: Path
    line: int
    target: str  # the dotted name imported (a module, or module.attribute)
    nested: bool  # inside a function (or class) body rather than at module level

    def __str__(self) -> str:
        where = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{where}:{self.line} imports {self.target}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(dotted: str) -> bool:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports_of(path: Path, module: str | None = None) -> Iterator[Import]:
    """Every import in ``path`` (the module ``module``, by default named by its place in the tree): for
    ``from a import b`` both ``a`` and, when it is a module, ``a.b``."""
    module = module or module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(), filename=str(path))

    def walk(node: ast.AST, nested: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                targets = [source] + [f"{source}.{a.name}" for a in child.names if is_module(f"{source}.{a.name}")]
            elif (
                isinstance(child, ast.Call)
                and child.args
                and isinstance(child.args[0], ast.Constant)
                and isinstance(child.args[0].value, str)
                and (
                    (isinstance(child.func, ast.Attribute) and child.func.attr == "import_module")
                    or (isinstance(child.func, ast.Name) and child.func.id in ("__import__", "import_module"))
                )
            ):
                targets = [child.args[0].value]
            for target in targets:
                yield Import(module, path, child.lineno, target, nested)
            yield from walk(child, inner)

    yield from walk(tree, False)


def project_imports(*packages: str, tops: tuple[str, ...] = PACKAGES) -> list[Import]:
    """The imports in ``packages`` of a module under one of ``tops``."""
    found = []
    for package in packages:
        for path in sorted(ROOT.joinpath(*package.split(".")).rglob("*.py")):
            found += [i for i in imports_of(path) if i.target.split(".")[0] in tops]
    return found


def top(name: str) -> str:
    return name.split(".")[0]


def suite_package(name: str) -> str | None:
    """The package below suites/ that the dotted ``name`` lies in (suites.common included), or None."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == "suites" and len(parts) > 1 else None


def is_private(target: str) -> bool:
    """A module (or a name) below a package whose own name starts with an underscore: variants.kernel._base."""
    return any(part.startswith("_") and not part.startswith("__") for part in target.split(".")[1:])


def test_the_scan_sees_every_kind_of_import(tmp_path):
    """Relative, nested, TYPE_CHECKING and literal importlib imports are all found (a scan that misses them passes vacuously)."""
    found = {(i.target, i.nested) for i in imports_of(ROOT / "variants" / "position" / "_base.py")}
    assert ("variants.score_bias", False) in found  # from ..score_bias import ScoreBias
    assert ("variants.axis_spec", False) in found  # under TYPE_CHECKING
    assert ("variants.rope_scaling._base", True) in found  # inside a function
    assert any(i.target == "harness.contract" for i in imports_of(ROOT / "suites" / "kv_cache" / "suite.py"))
    assert any(i.target == "suites.common.lm" for i in imports_of(ROOT / "suites" / "language_modeling" / "suite.py"))
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import importlib\nfrom ...harness import contract\n\ndef f():\n    importlib.import_module('suites.kv_cache.suite')\n"
    )
    found = [
        (i.target, i.nested)
        for i in imports_of(probe, "variants.position.probe")
        if top(i.target) in ("harness", "suites")
    ]
    assert found == [("harness", False), ("harness.contract", False), ("suites.kv_cache.suite", True)]


# --- the rules, each a function of the imports found --------------------------------------------------------


def reaching_up(imports: list[Import], above: tuple[str, ...]) -> list[Import]:
    """The imports of a package above it: of ``above``'s top-level packages."""
    return [i for i in imports if top(i.target) in above]


def reaching_a_suite(imports: list[Import]) -> list[Import]:
    """The program's imports of a module of ``suites`` (it reaches suites through the registry only)."""
    return [i for i in imports if top(i.target) == "suites"]


def private_variants(imports: list[Import]) -> list[Import]:
    """Imports of a ``_private`` module of ``variants`` from outside ``variants``."""
    return [i for i in imports if top(i.target) == "variants" and is_private(i.target) and top(i.module) != "variants"]


def module_of(target: str) -> str | None:
    """The module a dotted import target names: itself, or the module an imported attribute lives in."""
    parts = target.split(".")
    for n in range(len(parts), 0, -1):
        if is_module(".".join(parts[:n])):
            return ".".join(parts[:n])
    return None


def circles(imports: list[Import], within: tuple[str, ...]) -> list[list[str]]:
    """Every import circle among the modules of the packages ``within``: each strongly connected group of two or
    more modules (Tarjan's algorithm), sorted; a module importing itself counts too."""
    graph: dict[str, set[str]] = {}
    for i in imports:
        target = module_of(i.target) if i.module != i.target else i.target
        if top(i.module) in within and target and top(target) in within:
            graph.setdefault(i.module, set()).add(target)
            graph.setdefault(target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph[node]:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


# --- the rules hold --------------------------------------------------------------------------------------------


def test_variants_import_nothing_of_the_project_outside_variants():
    wrong = [str(i) for i in reaching_up(project_imports("variants"), ("harness", "suites", "bench"))]
    assert not wrong, "variants must import nothing of harness, suites or bench:\n" + "\n".join(wrong)


def test_harness_imports_neither_suites_nor_bench():
    wrong = [str(i) for i in reaching_up(project_imports("harness"), ("suites", "bench"))]
    assert not wrong, (
        "the harness is what suites are written with: it reaches suites only through the registry "
        "(harness.contract.suites) and never imports the program (bench):\n" + "\n".join(wrong)
    )


def test_suites_import_no_bench():
    wrong = [str(i) for i in reaching_up(project_imports("suites"), ("bench",))]
    assert not wrong, (
        "suites are written with the harness; bench is the program above them (move what a suite "
        "needs into harness):\n" + "\n".join(wrong)
    )


def test_bench_reaches_suites_only_through_the_registry():
    wrong = [str(i) for i in reaching_a_suite(project_imports("bench"))]
    assert not wrong, (
        "the program finds a suite by name in the registry (harness.contract.suites.get), never by "
        "importing its module:\n" + "\n".join(wrong)
    )


def test_no_import_circle_among_harness_and_bench():
    found = circles(project_imports("harness", "bench"), ("harness", "bench"))
    assert not found, "import circles (each a group of modules importing each other):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


def test_no_import_circle_inside_variants():
    """Inside variants imports point down: from models and decode to the specs, the axes and the ground floor (an
    axis's _base reads the spec through variants.axis_spec's Protocol, never variants.spec)."""
    found = circles(project_imports("variants"), ("variants",))
    assert found == [], "import circles inside variants:\n" + "\n".join(" <-> ".join(c) for c in found)


# --- each rule fails when broken -------------------------------------------------------------------------------


def _import(module: str, target: str) -> Import:
    return Import(module, ROOT / (module.replace(".", "/") + ".py"), 1, target, True)


def test_each_rule_fails_on_an_import_that_breaks_it():
    assert reaching_up([_import("variants.spec", "harness.contract")], ("harness", "suites", "bench"))
    assert reaching_up([_import("harness.store", "bench.cli")], ("suites", "bench"))
    assert reaching_up([_import("harness.contract", "suites.kv_cache.suite")], ("suites", "bench"))
    assert reaching_up([_import("suites.kv_cache.report", "bench.index.page")], ("bench",))
    assert reaching_a_suite([_import("bench.index.page", "suites.language_modeling.report")])
    assert private_variants([_import("suites.kv_cache.suite", "variants.kernel._base")])
    assert not reaching_up([_import("suites.kv_cache.suite", "harness.contract")], ("bench",))
    assert not private_variants([_import("variants.position._base", "variants.kernel._base")])


def test_the_circle_rule_finds_a_circle_and_only_a_circle():
    # harness.report -> bench.index.page -> bench.index.columns -> harness.report: the circle this layout opened
    broken = [
        _import("harness.report", "bench.index.page"),
        _import("bench.index.page", "bench.index.columns"),
        _import("bench.index.columns", "harness.report.fmt_mean_ci"),
        _import("bench.cli", "harness.store"),
    ]
    assert circles(broken, ("harness", "bench")) == [["bench.index.columns", "bench.index.page", "harness.report"]]
    assert circles(broken[1:], ("harness", "bench")) == []


def test_the_real_imports_break_a_rule_once_one_is_added():
    """The scan of the tree plus one wrong import: the rule over the real imports reports exactly that one."""
    real = project_imports("harness")
    added = _import("harness.groups", "bench.report.build")
    assert reaching_up(real + [added], ("suites", "bench")) == [added]
    both = project_imports("harness", "bench") + [_import("harness.report", "bench.report.build")]
    assert any("harness.report" in c and "bench.report.build" in c for c in circles(both, ("harness", "bench")))


def test_the_layout_is_common_and_one_package_per_suite():
    assert COMMON.split(".")[1] in {p.name for p in (ROOT / "suites").iterdir()}
    assert "suites.position_extrapolation" in SUITE_PACKAGES and "suites.translation" in SUITE_PACKAGES
    assert not [p.name for p in (ROOT / "suites").glob("*.py") if p.name != "__init__.py"], (
        "a suite is a package, not a module"
    )


def test_common_imports_no_suite():
    wrong = [str(i) for i in project_imports(COMMON) if suite_package(i.target) in SUITE_PACKAGES]
    assert not wrong, (
        "suites/common serves every suite and imports none of them (move what it needs from a suite "
        "into common):\n" + "\n".join(wrong)
    )


def test_a_suite_imports_no_other_suite_beyond_what_it_reads():
    wrong = []
    for package in SUITE_PACKAGES:
        for i in project_imports(package):
            other = suite_package(i.target)
            if other in SUITE_PACKAGES and other != package and i.target not in READS.get(package, ()):
                wrong.append(str(i))
    assert not wrong, (
        "a suite imports its own package, suites.common, the harness API and variants; another suite's "
        "module only when READS lists it:\n" + "\n".join(wrong)
    )


def test_no_private_module_of_variants_is_imported_from_outside():
    wrong = [str(i) for i in private_variants(project_imports("harness", "suites", "bench"))]
    assert not wrong, (
        "import what variants offers from its packages (variants, variants.kernel, variants.position, "
        "...), not their _private modules:\n" + "\n".join(wrong)
    )


def test_every_import_of_the_project_names_a_module_that_exists():
    wrong = [
        str(i)
        for i in project_imports("variants", "harness", "suites", "bench", "tests", tops=(*PACKAGES, "tests"))
        if not is_module(i.target)
    ]
    assert not wrong, (
        "no such module (the suite contract is harness.contract, which also holds JobContext):\n" + "\n".join(wrong)
    )


@pytest.mark.parametrize(
    "package, forbidden",
    [
        ("variants", ("harness", "suites", "bench")),
        ("harness", ("suites", "bench")),
        ("suites", ("bench",)),
        (COMMON, SUITE_PACKAGES),
        ("bench", ()),
    ],
)
def test_importing_a_package_loads_nothing_above_it(package, forbidden):
    """Every module of the package imports in a fresh interpreter (a name missing from a module it imports fails here)
    and leaves no module of the packages above it loaded."""
    names = sorted(module_name(p) for p in ROOT.joinpath(*package.split(".")).rglob("*.py") if p.name != "__main__.py")
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n    importlib.import_module(name)\n"
        f"print(sorted(m for m in sys.modules if any(m == f or m.startswith(f + '.') for f in {forbidden!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", f"importing {package} loaded {done.stdout.strip()}"


def test_a_test_imports_a_helper_by_bare_name_only_from_its_own_folder():
    """pytest puts each test file's folder on sys.path, so ``from test_api import x`` finds a module of another folder
    only when a test there happened to be collected first: import it by its path (tests.unit.bench.test_api)."""
    helpers = {p.stem for p in (ROOT / "tests").rglob("*.py")} - {"conftest", "__init__"}  # conftest: always loaded
    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for i in imports_of(path):
            bare = i.target.split(".")[0]
            if bare in helpers and not (path.parent / f"{bare}.py").is_file():
                wrong.append(str(i))
    assert not wrong, "a bare import of a test module from another folder:\n" + "\n".join(wrong)


# --- inside suites: no circle; a claim module is reached only through the claims registry ----------------------

#: what a module of a suite's claims package may import besides its own suite
CLAIM_MAY_IMPORT = ("harness", COMMON, "variants")


def is_claim_module(name: str) -> bool:
    """suites.<suite>.claims.<key>: one claim's judge (the package itself and its ``_shared`` helpers are not)."""
    parts = name.split(".")
    return len(parts) == 4 and parts[0] == "suites" and parts[2] == "claims" and not parts[3].startswith("_")


def claim_imports_outside(imports: list[Import]) -> list[Import]:
    """Imports made by a claims package of a project module outside harness, suites.common, variants and its suite."""
    wrong = []
    for i in imports:
        parts = i.module.split(".")
        if len(parts) < 3 or parts[0] != "suites" or parts[2] != "claims":
            continue
        own = ".".join(parts[:2])
        allowed = (*CLAIM_MAY_IMPORT, own)
        if not any(i.target == a or i.target.startswith(a + ".") for a in allowed):
            wrong.append(i)
    return wrong


def claim_modules_imported(imports: list[Import]) -> list[Import]:
    """Imports of a claim module by project code (the registry, harness/claims.py, imports them by name)."""
    return [i for i in imports if is_claim_module(module_of(i.target) or i.target) and i.module != i.target]


def test_no_import_circle_inside_suites():
    found = circles(project_imports("suites"), ("suites",))
    assert not found, "import circles inside suites/ (import a module by its full path):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


def test_a_claims_package_imports_only_the_harness_common_variants_and_its_suite():
    wrong = [str(i) for i in claim_imports_outside(project_imports("suites"))]
    assert not wrong, (
        "a claim is judged with harness, suites.common, variants and its own suite's modules:\n" + "\n".join(wrong)
    )


def test_nothing_imports_a_claim_module_but_the_registry():
    wrong = [str(i) for i in claim_modules_imported(project_imports("harness", "suites", "bench"))]
    assert not wrong, (
        "claim modules are found by the registry (harness/claims.py) from their suite.yaml key; share what several "
        "claims use through claims/_shared.py:\n" + "\n".join(wrong)
    )


def test_the_claim_rules_fail_on_imports_that_break_them():
    own = _import("suites.kv_cache.claims.kv_cache_bytes", "suites.kv_cache.tables")
    common = _import("suites.kv_cache.claims._shared", "suites.common.facts")
    other = _import("suites.kv_cache.claims.kv_cache_bytes", "suites.recall.tables")
    upward = _import("suites.kv_cache.claims.kv_cache_bytes", "bench.index.page")
    assert claim_imports_outside([own, common, other, upward]) == [other, upward]
    report = _import("suites.kv_cache.report", "suites.kv_cache.claims.kv_cache_bytes")
    shared = _import("suites.kv_cache.report", "suites.kv_cache.claims._shared")
    assert claim_modules_imported([report, shared]) == [report]
    assert circles(
        [_import("suites.kv_cache", "suites.kv_cache.suite"), _import("suites.kv_cache.suite", "suites.kv_cache")],
        ("suites",),
    ) == [["suites.kv_cache", "suites.kv_cache.suite"]]
