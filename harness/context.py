"""Transition shim: ``JobContext`` moved to ``harness/contract.py`` with the rest of the suite contract.

Kept only while suites written against the old path are still in flight; nothing in the project imports
it (tests/unit/test_import_direction.py checks that).
"""

from harness.contract import JobContext

__all__ = ["JobContext"]
