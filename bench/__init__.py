"""The ``bench`` program, above the suites: the command line, its configuration, listing and the Python API.

- ``bench.run``: a run's plan, the runner that executes and stores each job, executors and worker processes,
  outcomes and re-timing;
- ``bench.report``: building each suite's report from one group of records, its layout, the support matrix and
  the README's findings block;
- ``bench.index``: the index over every suite (scoreboard, quality-against-cost table, Pareto figure);
- ``bench.compare``: paired comparisons of two groups of records (``bench compare``).

Imports point one way: ``variants`` <- ``harness`` <- ``suites`` <- ``bench``. The program reaches a suite only
through the registry (``harness.contract.suites``), never by importing one (tests/unit/test_import_direction.py).
"""
