"""The one base class of every mistake a user can fix: a bad name, value, setting or file.

It lives here, in the lowest layer, because ``variants`` imports nothing else of the project and still
raises such mistakes itself (an unknown registry key, two presets that disagree); the harness re-exports
it as ``harness.errors.UserError`` and suites import it from there. ``bench`` prints a UserError's message
(one sentence) and exits with status 2; any other exception is a bug and keeps its traceback.
"""


class UserError(Exception):
    """A mistake the user can fix; its message is one sentence that says what was wrong and what to do."""
