"""The attention_heads suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``claims``: its claims, one module per key of its suite.yaml (harness/claims.py);
- ``report``: its report (the suite's report_module), with ``tables`` and ``figures``;
- ``head_stats``: what each head attends to, read from its attention probabilities.
"""

from suites.attention_heads.suite import AttentionHeads  # registers the suite

__all__ = ["AttentionHeads"]
