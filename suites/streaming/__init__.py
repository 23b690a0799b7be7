"""The streaming suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profile, metrics and how one job runs;
- ``policies``: the cache policies and the streaming step;
- ``claims``: its claims, one module per key of its suite.yaml (harness/claims.py);
- ``report``: its report and figure (the suite's report_module).
"""

from suites.streaming.suite import Streaming  # registers the suite

__all__ = ["Streaming"]
