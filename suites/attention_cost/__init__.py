"""The attention_cost suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``claims``: one module per claim of its suite.yaml, each judging it (harness/claims.py);
- ``report``: its report's layout (the suite's report_module), ``headline`` and ``tables`` its tables;
- ``check``: one attention case and the check of a kernel against naive on it;
- ``masking``: the probe of how each kernel masks, ``masking_table`` its outcomes;
- ``figures``: the report's figures.
"""

from suites.attention_cost.suite import AttentionCost  # registers the suite

__all__ = ["AttentionCost"]
