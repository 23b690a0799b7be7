"""Where a claim is judged: one module per claim, ``suites/<suite>/claims/<key>.py``, named by its key.

A suite's ``suite.yaml`` declares its claims (what was found, by whom, the published figure); each key has one
module in the suite's ``claims`` package whose ``judge(evidence) -> Finding`` gives the verdict, with the
thresholds it uses as module constants, each saying where it comes from (the source's units, or this project's
choice). The module reads its own ``Claim`` with ``declared(__file__)``, so the key is typed once: the file name.

What several claims of one suite read (a table of per-seed ratios, the decode steps that are timed) is built once
per group of records by ``claims/_shared.py``'s ``prepare(records)`` when the suite has one; every judge then gets
that object as its evidence (else the records themselves). The package's ``__init__`` may list the figures of
probe runs the claims' text cites (``PROBE_FIGURES``, harness/probes.py).

Claims are discovered as ``variants/`` discovers a component: the registry imports the module named by the key,
and nothing else imports a claim module. A key without its module, or a module without its key, is one sentence.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.errors import UsageError
from harness.findings import Claim, Finding

#: the package below a suite's package that holds its claim modules
PACKAGE = "claims"
#: the module of a claims package that holds what several of its claims read (not a claim)
SHARED = "_shared"


def declared(module_file: str | Path) -> Claim:
    """The claim a module ``suites/<suite>/claims/<key>.py`` judges, read from the suite's ``suite.yaml``."""
    from harness.suite_file import SuiteFile

    path = Path(module_file).resolve()
    (claim,) = SuiteFile.of(path.parent).claims(path.stem)
    return claim


def claims_of(suite: Any) -> tuple[Claim, ...]:
    """The claims ``suite`` declares in the ``suite.yaml`` beside its module, in the file's order (none where the
    suite has no such file or no claims package)."""
    import sys

    from harness.suite_file import FILE_NAME, SuiteFile

    if _claims_package(suite) is None:
        return ()
    module = Path(sys.modules[type(suite).__module__].__file__ or "")
    return SuiteFile.of(module).claims() if module.with_name(FILE_NAME).is_file() else ()


def package_of(suite: Any) -> str:
    """'suites.kv_cache.claims': the claims package of the suite object ``suite`` (beside its ``suite.py``)."""
    return f"{type(suite).__module__.rpartition('.')[0]}.{PACKAGE}"


def _claims_package(suite: Any) -> ModuleType | None:
    """The suite's claims package, or None where it has none (a suite that tests no published finding, or one whose
    module is not in a package)."""
    name = package_of(suite)
    if name.startswith("."):
        return None
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name in (name, name.rpartition(".")[0]):
            return None
        raise


def modules(suite: Any) -> list[str]:
    """The claim modules in the suite's claims package, by file name (``_``-prefixed helpers left out)."""
    package = _claims_package(suite)
    if package is None:
        return []
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


def check(suite: Any, claims: tuple[Claim, ...]) -> None:
    """Every declared claim has its module and every claim module its declaration, or one UsageError saying which."""
    keys = [c.key for c in claims]
    found = modules(suite)
    where = package_of(suite).replace(".", "/")
    missing = [k for k in keys if k not in found]
    if missing:
        raise UsageError(
            f"suite {suite.name} declares claim {missing[0]} in suite.yaml but has no module {where}/{missing[0]}.py "
            f"judging it; its claim modules: {', '.join(found) or 'none'}."
        )
    unknown = [m for m in found if m not in keys]
    if unknown:
        raise UsageError(
            f"{where}/{unknown[0]}.py judges no claim of suite {suite.name}: suite.yaml declares "
            f"{', '.join(keys) or 'none'}; name the module by its claim's key or move it out of {PACKAGE}/."
        )


def judge_of(suite: Any, key: str) -> Callable[[Any], Finding]:
    """The ``judge`` of the claim ``key`` of ``suite`` (its module imported on first use)."""
    return importlib.import_module(f"{package_of(suite)}.{key}").judge


def evidence(suite: Any, records: Any) -> Any:
    """What every judge of ``suite`` reads: its ``_shared.prepare(records)`` where it has one, else the records."""
    package = _claims_package(suite)
    if package is None or not any(m.name == SHARED for m in pkgutil.iter_modules(package.__path__)):
        return records
    prepare = getattr(importlib.import_module(f"{package.__name__}.{SHARED}"), "prepare", None)
    return prepare(records) if prepare is not None else records


def judge_all(suite: Any, records: Any, claims: tuple[Claim, ...] | None = None) -> list[Finding]:
    """One finding per claim of ``suite`` (``claims``, by default all in ``suite.yaml``'s order) from one group of
    records, as its claim modules judge them."""
    claims = suite.claims if claims is None else claims
    if not claims:
        return []
    check(suite, suite.claims)
    shared = evidence(suite, records)
    return [judge_of(suite, c.key)(shared) for c in claims]


def probe_figures(suite: Any) -> dict[str, Any]:
    """The figures of probe runs the suite's claims cite (its claims package's ``PROBE_FIGURES``), by
    ``<probe>.<figure>``."""
    package = _claims_package(suite)
    return dict(getattr(package, "PROBE_FIGURES", {})) if package is not None else {}
