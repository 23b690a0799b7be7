"""The SWORD guard (tests/conftest.py): a test reads the installed Bible modules only through the ``sword`` mark."""

import os
import re
import subprocess
import sys
from pathlib import Path

import conftest
import pytest

from suites.common.data.char_lm import char_lm_data
from suites.common.data.corpora import load_parallel
from suites.common.data.sword import module_dir, module_missing, sword_root
from suites.common.data.text import CorpusError

TESTS = Path(__file__).resolve().parents[1]


def test_a_test_without_the_mark_reads_no_installed_module():
    """Were the guard gone, this test would read the Bible wherever it is installed instead of failing."""
    assert sword_root() != conftest.SWORD_LIBRARY
    assert all(module_missing(module_dir(m)) for m in conftest.SWORD_PACKAGES)
    with pytest.raises(CorpusError, match="apt-get install sword-text-web"):
        char_lm_data("bible", 0.1)
    with pytest.raises(CorpusError, match="apt-get install sword-text-kjv sword-text-sparv"):
        load_parallel("bible_en_es")


def test_a_subprocess_of_a_test_without_the_mark_reads_no_installed_module():
    done = subprocess.run(
        [sys.executable, "-c", "from suites.common.data.sword import sword_root; print(sword_root())"],
        capture_output=True,
        text=True,
        check=True,
        cwd=TESTS.parent,
    )
    assert Path(done.stdout.strip()) == sword_root() != conftest.SWORD_LIBRARY


@pytest.mark.sword("engWEB2015eb")
def test_a_marked_test_reads_the_library_the_session_started_with():
    assert sword_root() == conftest.SWORD_LIBRARY and not module_missing(module_dir("engWEB2015eb"))


def test_a_missing_module_is_one_sentence_naming_the_package(tmp_path, monkeypatch):
    monkeypatch.setattr(conftest, "SWORD_LIBRARY", tmp_path)
    hint = conftest.missing_sword_hint(["engKJV2006eb", "spaRV1909eb"])
    assert hint == (
        f"needs the SWORD modules engKJV2006eb, spaRV1909eb, not under {tmp_path}: apt-get install "
        f"sword-text-kjv sword-text-sparv (or set SWORD_PATH to a SWORD library)."
    )
    assert conftest.missing_sword_hint([]) is None


def test_no_test_reaches_the_installed_library_around_the_mark():
    """Naming Debian's folder or unsetting SWORD_PATH would read the installed modules without the mark."""
    bypass = re.compile(r"/usr/share/sword|delenv\(\s*[\"']SWORD_PATH|environ\.pop\(\s*[\"']SWORD_PATH")
    offenders = [
        str(p.relative_to(TESTS))
        for p in TESTS.rglob("*.py")
        if p.name not in ("conftest.py", Path(__file__).name) and bypass.search(p.read_text())
    ]
    assert offenders == []


def test_the_marked_modules_are_ones_the_guard_knows(request):
    marks = [m for item in request.session.items for m in item.iter_markers("sword")]
    assert {a for m in marks for a in m.args} <= set(conftest.SWORD_PACKAGES)


def test_make_test_installs_the_modules_the_guard_knows():
    makefile = (TESTS.parent / "Makefile").read_text()
    packages = re.search(r"^SWORD_PACKAGES \?= (.*)$", makefile, re.M).group(1).split()
    modules = re.search(r"^SWORD_MODULES +\?= (.*)$", makefile, re.M).group(1).split()
    assert sorted(packages) == sorted(conftest.SWORD_PACKAGES.values())
    assert sorted(modules) == sorted(conftest.SWORD_PACKAGES)
    recipe = makefile.split("\ntest: $(STAMP)\n", 1)[1].split("\n\n", 1)[0]
    assert "apt-get install" in recipe and "$(SWORD_PACKAGES)" in recipe and "|| echo" in recipe
