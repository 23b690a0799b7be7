"""Errors a user can fix; the command line prints their one-sentence message and exits with status 2.

Every such error subclasses ``UserError``, so the command line catches one class. It is defined in
``variants/errors.py`` (the lowest layer: variants imports nothing else of the project, yet raises unknown
names and conflicting presets) and re-exported here, where the harness and suites import it from:
``UsageError`` (a bad command-line value), ``harness.store.CorruptResultsError`` (a damaged results file),
``suites.common.data.text.CorpusError`` (a corpus that cannot be read), ``variants.UnknownNameError`` and the preset
errors of ``variants.spec`` and ``variants.presets``. A new kind of user mistake subclasses ``UserError``;
the command line needs no change.
"""

from variants import UserError

__all__ = ["UsageError", "UserError"]


class UsageError(UserError, ValueError):
    """A bad command-line value: unknown key, suite, variant, option or impossible setting."""
