"""The position_extrapolation suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``report``: its report and verdicts (the suite's report_module);
- ``models``: its trained models, for suites that study them after training (attention_heads);
- ``rope_extension_report``: the RoPE context-extension part of the report.
"""

from suites.position_extrapolation.suite import PositionExtrapolation  # registers the suite

__all__ = ["PositionExtrapolation"]
