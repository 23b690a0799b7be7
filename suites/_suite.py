"""Transition shim: the suite contract moved to ``harness/contract.py``; import it from there.

Kept only while suites written against the old path are still in flight; nothing in the project imports
it (tests/unit/test_import_direction.py checks that), and it goes when the suites move into folders.
"""

from harness.contract import Diverged, JobContext, Measurement, Metric, Profile, Suite, Unsupported, suites

__all__ = ["Diverged", "JobContext", "Measurement", "Metric", "Profile", "Suite", "Unsupported", "suites"]
