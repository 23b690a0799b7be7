"""The gradient_flow suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``report``: its report (the suite's report_module);
- ``claims``: one module per published finding or check it tests, each judging its claim (harness/claims.py);
- ``copy_training``: how a job trains, probes and scores its copy-task models;
- ``gradient_probe``: the probe of how far the loss's gradient reaches back in time.
"""

from suites.gradient_flow.suite import GradientFlow  # registers the suite

__all__ = ["GradientFlow"]
