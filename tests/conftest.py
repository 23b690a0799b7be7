"""Shared fixtures: deterministic torch, GPU tests skipped where CUDA is absent, no installed plugins, and the
SWORD guard.

No installed plugins: components other packages add through the ``bench.plugins`` entry points are not loaded
in the test process, so every registry a test reads holds the built-in components alone and an installed
plugin cannot make a test fail; the tests of plugin loading give their own entry points
(tests/unit/variants/test_registry.py, tests/integration/test_plugin_example.py).

The SWORD guard: a test that reads Debian's SWORD Bible modules (data=bible, data=bible_en_es, or a profile whose
data is one of them) says so with ``@pytest.mark.sword("engWEB2015eb", ...)`` and is skipped, with the one
sentence that says how to install them, where they are missing. Every other test runs with SWORD_PATH pointing
at an empty library, so a test that reads a module without the mark fails on every machine (in-process or in a
subprocess), not only on one that lacks the modules.
"""

import os
from pathlib import Path

import pytest
import torch

from suites.common.data.sword import DEFAULT_ROOT
from variants import _registry

_registry._plugins = []  # before any test module is collected: the registries are read at collection too

#: the SWORD modules the corpora read, and the Debian package of each
SWORD_PACKAGES = {"engWEB2015eb": "sword-text-web", "engKJV2006eb": "sword-text-kjv", "spaRV1909eb": "sword-text-sparv"}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "sword(*modules, handles_missing=False): reads these installed SWORD "
        "modules; skipped with the install command where one is missing "
        "(handles_missing=True: the test deals with a missing module itself)",
    )


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device; torch sees none")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _seeded():
    torch.manual_seed(0)
    yield


#: the SWORD library the session was started with (SWORD_PATH, else Debian's /usr/share/sword), fixed before any
#: test changes SWORD_PATH
SWORD_LIBRARY = Path(os.environ.get("SWORD_PATH") or DEFAULT_ROOT)


def missing_sword_hint(modules) -> str | None:
    """One sentence saying how to install those of ``modules`` missing from the library, or None."""
    from suites.common.data.sword import module_dir, module_missing

    root = SWORD_LIBRARY
    missing = [m for m in modules if module_missing(module_dir(m, root))]
    if not missing:
        return None
    packages = " ".join(dict.fromkeys(SWORD_PACKAGES[m] for m in missing))
    return (
        f"needs the SWORD module{'s' if len(missing) > 1 else ''} {', '.join(missing)}, not under {root}: "
        f"apt-get install {packages} (or set SWORD_PATH to a SWORD library)."
    )


def _forget_read_corpora():
    """Drop the per-process corpus caches, so no later test reuses a text read from the installed library."""
    from suites.common.data import char_lm, corpora

    corpora._read_corpus.cache_clear()
    char_lm._prepare.cache_clear()
    corpora._load.cache_clear()


@pytest.fixture(autouse=True)
def _sword_guard(request, monkeypatch, tmp_path_factory):
    mark = request.node.get_closest_marker("sword")
    if mark is None:
        empty = tmp_path_factory.getbasetemp() / "no_sword_library"
        empty.mkdir(exist_ok=True)
        monkeypatch.setenv("SWORD_PATH", str(empty))
        yield
        return
    if not mark.kwargs.get("handles_missing"):
        assert mark.args, "@pytest.mark.sword names the modules the test reads"
        hint = missing_sword_hint(mark.args)
        if hint:
            pytest.skip(hint)
    monkeypatch.setenv("SWORD_PATH", str(SWORD_LIBRARY))
    yield
    _forget_read_corpora()
