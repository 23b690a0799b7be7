"""The streaming suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profile, metrics and how one job runs;
- ``policies``: the cache policies and the streaming step;
- ``report``: its report, figure and verdicts (the suite's report_module).
"""

from suites.streaming.suite import Streaming  # registers the suite

__all__ = ["Streaming"]
