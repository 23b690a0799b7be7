"""The attention_explanation suite, registered when this package is imported (suite discovery imports each package).

- ``suite``: the suite: its profiles, metrics and how one job trains a translator and probes its attention;
- ``probes``: attention against gradient and leave-one-out importance, permuted and uniform weights;
- ``report``: its report (the suite's report_module);
- ``claims``: one module per published finding it tests, each judging its claim (harness/claims.py).
"""

from suites.attention_explanation.suite import AttentionExplanation  # registers the suite

__all__ = ["AttentionExplanation"]
