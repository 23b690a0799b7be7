"""Imports point one way: variants <- harness <- suites.

Every module's imports are read with ``ast`` (module level, inside functions and under TYPE_CHECKING
alike; relative imports resolved; ``importlib.import_module``/``__import__`` of a literal name too), and:
- ``variants`` imports nothing of the project outside ``variants``;
- ``harness`` imports no module of ``suites`` at all: it finds suites through the registry
  (``harness.contract.suites``), which imports the suites package on first lookup;
- ``suites`` import the harness only through ``harness.SUITE_API``, and neither suites nor the harness import a
  ``_private`` module of ``variants`` (each component package re-exports what others use);
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
        for path in sorted((ROOT / package).rglob("*.py")):
            found += [i for i in imports_of(path) if i.target.split(".")[0] in PACKAGES]
    return found


def top(name: str) -> str:
    return name.split(".")[0]


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


def test_no_private_module_of_variants_is_imported_from_outside():
    wrong = [str(i) for i in project_imports("harness", "suites") if top(i.target) == "variants" and is_private(i.target)]
    assert not wrong, ("import what variants offers from its packages (variants, variants.kernel, variants.position, "
                       "...), not their _private modules:\n" + "\n".join(wrong))


def test_every_import_of_the_project_names_a_module_that_exists():
    wrong = [str(i) for i in project_imports("variants", "harness", "suites", "tests") if not is_module(i.target)]
    assert not wrong, ("no such module (the suite contract is harness.contract, which also holds JobContext):\n"
                       + "\n".join(wrong))


@pytest.mark.parametrize("package, forbidden", [("variants", ("harness", "suites")), ("harness", ("suites",))])
def test_importing_a_package_loads_nothing_above_it(package, forbidden):
    """Every module of the package imported in a fresh interpreter leaves no module of the packages above it loaded."""
    names = sorted(module_name(p) for p in (ROOT / package).rglob("*.py"))
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n    importlib.import_module(name)\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {forbidden!r}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", f"importing {package} loaded {done.stdout.strip()}"
