"""A tiny ladder trained once for the scaling tests that read its records (imported as a fixture; no conftest.py
here, since tests/conftest.py is imported by its bare name)."""

from __future__ import annotations

import pytest

from bench.cli import main
from harness.report import records_frame
from harness.store import ResultsStore

TINY = ["set.rungs=[16,32,48]", "set.tokens_per_parameter=1", "set.eval_tokens=512", "seeds=[0,1]", "progress=false"]
#: the ladder once per test session: each module that imports the fixture registers its own copy of it, which
#: pytest would set up once per module despite its session scope
_TRAINED: dict[str, tuple] = {}


@pytest.fixture(scope="session")
def one_rate(tmp_path_factory):
    if "one_rate" not in _TRAINED:
        results = tmp_path_factory.mktemp("scaling")
        args = ["run", "suite=scaling", "variants=[baseline,gqa2]", "set.learning_rates=[0.01]", *TINY]
        assert main([*args, f"results_dir={results}"]) == 0
        _TRAINED["one_rate"] = (results, records_frame(ResultsStore(str(results)).load("scaling")))
    return _TRAINED["one_rate"]
