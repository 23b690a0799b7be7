"""The attention_cost suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``report``: its report and verdicts (the suite's report_module);
- ``check``: one attention case and the check of a kernel against naive on it;
- ``figures``: the report's figures.
"""

from suites.attention_cost.suite import AttentionCost  # registers the suite

__all__ = ["AttentionCost"]
