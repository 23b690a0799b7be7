"""The training_stability suite, registered when this package is imported (suite discovery imports each package of ``suites``).

- ``suite``: the suite: its profiles, metrics and how one job runs;
- ``report``: its report (the suite's report_module); ``claims``: one module per published claim it tests.
"""

from suites.training_stability.suite import TrainingStability  # registers the suite

__all__ = ["TrainingStability"]
