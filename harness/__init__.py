"""The machinery: command line, plans, the runner, training, the results store and reports.

Imports point one way: ``variants`` <- ``harness`` <- ``suites``. The harness imports nothing of ``suites``
(it finds suites through the registry in ``harness.contract``, which imports each package of ``suites`` on
first lookup); suites import the harness only through the modules named in ``SUITE_API``, and neither imports a
``_private`` module of ``variants`` (tests/unit/test_import_direction.py checks all three rules).
"""

#: the harness modules a suite may import: the contract it implements and the tools it runs and reports with
SUITE_API = (
    "harness.contract",  # Suite, Profile, Metric, Measurement, JobContext, Diverged, Unsupported, suites
    "harness.errors",  # UserError, UsageError
    "harness.rules",  # field rules of profiles
    "harness.suite_file",  # a suite's suite.yaml: profiles, metrics, claims
    "harness.train",  # the training loop
    "harness.measure",  # timing, memory and FLOP counts
    "harness.flops",
    "harness.env",
    "harness.findings",  # claims and verdicts
    "harness.groups",
    "harness.report",  # report helpers: tables, means and intervals
)
