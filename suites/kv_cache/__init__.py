"""The kv_cache suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``report``: its report and verdicts (the suite's report_module).
"""

from suites.kv_cache.suite import KVCache  # registers the suite

__all__ = ["KVCache"]
