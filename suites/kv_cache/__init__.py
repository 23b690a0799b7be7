"""The kv_cache suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``claims``: one module per claim of its suite.yaml, each judging it (harness/claims.py);
- ``report``: its report's layout (the suite's report_module), ``headline`` and ``tables`` its tables;
- ``paths``: the decode-path comparison; ``state_steps``: a recurrent LM's state in place of a cache.
"""

from suites.kv_cache.suite import KVCache  # registers the suite

__all__ = ["KVCache"]
