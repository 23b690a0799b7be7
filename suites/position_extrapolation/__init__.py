"""The position_extrapolation suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``claims``: its claims, one module per key of its suite.yaml (harness/claims.py);
- ``report``: its report (the suite's report_module), with ``tables``, ``rope_extension`` (the RoPE
  context-extension section) and ``window_span`` (the sliding-window span and table);
- ``models``: its trained models, for suites that study them after training (attention_heads).
"""

from suites.position_extrapolation.suite import PositionExtrapolation  # registers the suite

__all__ = ["PositionExtrapolation"]
