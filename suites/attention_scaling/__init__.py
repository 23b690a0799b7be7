"""The attention_scaling suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``report``: its report (the suite's report_module); ``claims``: one module per published claim it tests;
- ``softmax_probe``: the probe of score variance, softmax entropy and gradients at initialisation.
"""

from suites.attention_scaling.suite import AttentionScaling  # registers the suite

__all__ = ["AttentionScaling"]
