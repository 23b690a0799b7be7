"""The recall suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``tasks``: the synthetic tasks (MQAR, copy, reverse, addition) and their chance levels;
- ``models``: the model families at matched parameters;
- ``claims``: its claims, one module per key of its suite.yaml (harness/claims.py);
- ``report``: its report (the suite's report_module).
"""

from suites.recall.suite import Recall  # registers the suite

__all__ = ["Recall"]
