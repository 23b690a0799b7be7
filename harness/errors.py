"""Errors a user can fix; the command line prints their one-sentence message and exits with status 2."""


class UsageError(ValueError):
    """A bad command-line value: unknown key, suite, variant, option or impossible setting."""
