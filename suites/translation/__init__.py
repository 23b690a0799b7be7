"""The translation suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``report``: its report (the suite's report_module);
- ``claims``: one module per published finding it tests, each judging its claim (harness/claims.py);
- ``baselines``: the trivial translations a model must beat (source copied, most frequent target).
"""

from suites.translation.suite import Translation  # registers the suite

__all__ = ["Translation"]
