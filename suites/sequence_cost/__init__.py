"""The sequence_cost suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``claims``: one module per claim of its suite.yaml, each judging it (harness/claims.py);
- ``report``: its report's layout (the suite's report_module), ``tables``, ``speedups`` and ``share_table`` its tables;
- ``gpu_records``: the project's reference GPU records, read where a CPU run cannot test a GPU claim.
"""

from suites.sequence_cost.suite import SequenceCost  # registers the suite

__all__ = ["SequenceCost"]
