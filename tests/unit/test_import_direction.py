"""Imports point one way: variants <- harness <- suites, and inside suites, suites.common <- each suite.

Every module's imports are read with ``ast`` (module level, inside functions and under TYPE_CHECKING
alike; relative imports resolved; ``importlib.import_module``/``__import__`` of a literal name too), and:
- ``variants`` imports nothing of the project outside ``variants``;
- ``harness`` imports no module of ``suites`` at all: it finds suites through the registry
  (``harness.contract.suites``), which imports each package of ``suites`` on first lookup;
- ``suites`` import the harness only through ``harness.SUITE_API``, and neither suites nor the harness import a
  ``_private`` module of ``variants`` (each component package re-exports what others use);
- inside ``suites``, arrows point from a suite's package to ``suites.common``: common imports no suite, and a suite
  imports no other suite's package except the modules listed in ``READS`` (attention_heads studies the models
  position_extrapolation trains);
- every import of a project module names a module that exists (a moved module leaves no stale import behind,
  not even inside a function that no test calls).
A failure names the file, the line and the import.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional

import pytest

import harness

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("variants", "harness", "suites")
#: what several suites share (suites/common/); every other package below suites/ is one suite
COMMON = "suites.common"
SUITE_PACKAGES = tuple(sorted(f"suites.{p.name}" for p in (ROOT / "suites").iterdir()
                              if (p / "__init__.py").is_file() and f"suites.{p.name}" != COMMON))
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


def imports_of(path: Path, module: Optional[str] = None) -> Iterator[Import]:
    """Every import in ``path`` (the module ``module``, by default named by its place in the tree): for
    ``from a import b`` both ``a`` and, when it is a module, ``a.b``."""
    module = module or module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(), filename=str(path))

    def walk(node: ast.AST, nested: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
            targets: List[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                targets = [source] + [f"{source}.{a.name}" for a in child.names if is_module(f"{source}.{a.name}")]
            elif (isinstance(child, ast.Call) and child.args and isinstance(child.args[0], ast.Constant)
                  and isinstance(child.args[0].value, str)
                  and ((isinstance(child.func, ast.Attribute) and child.func.attr == "import_module")
                       or (isinstance(child.func, ast.Name) and child.func.id in ("__import__", "import_module")))):
                targets = [child.args[0].value]
            for target in targets:
                yield Import(module, path, child.lineno, target, nested)
            yield from walk(child, inner)

    yield from walk(tree, False)


def project_imports(*packages: str) -> List[Import]:
    found = []
    for package in packages:
        for path in sorted(ROOT.joinpath(*package.split(".")).rglob("*.py")):
            found += [i for i in imports_of(path) if i.target.split(".")[0] in PACKAGES]
    return found


def top(name: str) -> str:
    return name.split(".")[0]


def suite_package(name: str) -> Optional[str]:
    """The package below suites/ that the dotted ``name`` lies in (suites.common included), or None."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == "suites" and len(parts) > 1 else None


def is_private(target: str) -> bool:
    """A module (or a name) below a package whose own name starts with an underscore: variants.kernel._base."""
    return any(part.startswith("_") and not part.startswith("__") for part in target.split(".")[1:])


def test_the_scan_sees_every_kind_of_import(tmp_path):
    """Relative, nested, TYPE_CHECKING and literal importlib imports are all found (a scan that misses them passes vacuously)."""
    found = {(i.target, i.nested) for i in imports_of(ROOT / "variants" / "position" / "_base.py")}
    assert ("variants.kernel._base", False) in found  # from ..kernel._base import ScoreBias
    assert ("variants.spec", False) in found  # under TYPE_CHECKING
    assert ("variants.rope_scaling._base", True) in found  # inside a function
    assert any(i.target == "harness.contract" for i in imports_of(ROOT / "suites" / "kv_cache" / "suite.py"))
    assert any(i.target == "suites.common.lm" for i in imports_of(ROOT / "suites" / "language_modeling" / "suite.py"))
    probe = tmp_path / "probe.py"
    probe.write_text("import importlib\nfrom ...harness import contract\n\ndef f():\n    importlib.import_module('suites.kv_cache.suite')\n")
    found = [(i.target, i.nested) for i in imports_of(probe, "variants.position.probe") if top(i.target) in ("harness", "suites")]
    assert found == [("harness", False), ("harness.contract", False), ("suites.kv_cache.suite", True)]


def test_variants_import_nothing_of_the_project_outside_variants():
    wrong = [str(i) for i in project_imports("variants") if top(i.target) != "variants"]
    assert not wrong, "variants must import nothing of harness or suites:\n" + "\n".join(wrong)


def test_harness_imports_no_suite():
    wrong = [str(i) for i in project_imports("harness") if top(i.target) == "suites"]
    assert not wrong, ("the harness reaches suites only through the registry (harness.contract.suites), never by "
                       "importing them:\n" + "\n".join(wrong))


def test_suites_import_only_the_harness_public_api():
    allowed = set(harness.SUITE_API) | {"harness"}
    wrong = [str(i) for i in project_imports("suites")
             if top(i.target) == "harness" and not any(i.target == a or i.target.startswith(a + ".") for a in allowed)]
    assert not wrong, ("suites import the harness through harness.SUITE_API only (add a module there if it is "
                       "meant for suites):\n" + "\n".join(wrong))


def test_the_layout_is_common_and_one_package_per_suite():
    assert COMMON.split(".")[1] in {p.name for p in (ROOT / "suites").iterdir()}
    assert "suites.position_extrapolation" in SUITE_PACKAGES and "suites.translation" in SUITE_PACKAGES
    assert not [p.name for p in (ROOT / "suites").glob("*.py") if p.name != "__init__.py"], "a suite is a package, not a module"


def test_common_imports_no_suite():
    wrong = [str(i) for i in project_imports(COMMON) if suite_package(i.target) in SUITE_PACKAGES]
    assert not wrong, ("suites/common serves every suite and imports none of them (move what it needs from a suite "
                       "into common):\n" + "\n".join(wrong))


def test_a_suite_imports_no_other_suite_beyond_what_it_reads():
    wrong = []
    for package in SUITE_PACKAGES:
        for i in project_imports(package):
            other = suite_package(i.target)
            if other in SUITE_PACKAGES and other != package and i.target not in READS.get(package, ()):
                wrong.append(str(i))
    assert not wrong, ("a suite imports its own package, suites.common, the harness API and variants; another suite's "
                       "module only when READS lists it:\n" + "\n".join(wrong))


def test_no_private_module_of_variants_is_imported_from_outside():
    wrong = [str(i) for i in project_imports("harness", "suites") if top(i.target) == "variants" and is_private(i.target)]
    assert not wrong, ("import what variants offers from its packages (variants, variants.kernel, variants.position, "
                       "...), not their _private modules:\n" + "\n".join(wrong))


def test_every_import_of_the_project_names_a_module_that_exists():
    wrong = [str(i) for i in project_imports("variants", "harness", "suites", "tests") if not is_module(i.target)]
    assert not wrong, ("no such module (the suite contract is harness.contract, which also holds JobContext):\n"
                       + "\n".join(wrong))


@pytest.mark.parametrize("package, forbidden", [("variants", ("harness", "suites")), ("harness", ("suites",)),
                                              (COMMON, SUITE_PACKAGES)])
def test_importing_a_package_loads_nothing_above_it(package, forbidden):
    """Every module of the package imported in a fresh interpreter leaves no module of the packages above it loaded."""
    names = sorted(module_name(p) for p in ROOT.joinpath(*package.split(".")).rglob("*.py"))
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n    importlib.import_module(name)\n"
            f"print(sorted(m for m in sys.modules if any(m == f or m.startswith(f + '.') for f in {forbidden!r})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", f"importing {package} loaded {done.stdout.strip()}"
