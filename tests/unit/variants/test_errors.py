"""One base class for every mistake a user can fix: the command line catches UserError and nothing else."""

import pytest

from bench import cli
from harness.errors import UsageError, UserError
from harness.store import CorruptResultsError
from suites.common.data.text import CorpusError
from variants import UnknownNameError
from variants import UserError as VariantsUserError
from variants.presets import AmbiguousPresetError
from variants.spec import PresetConflictError, PresetFieldError

#: each user error and the built-in class it was before UserError existed (callers may still catch that)
USER_ERRORS = [
    (UsageError, ValueError),
    (UnknownNameError, KeyError),
    (PresetConflictError, ValueError),
    (PresetFieldError, ValueError),
    (AmbiguousPresetError, ValueError),
    (CorruptResultsError, ValueError),
    (CorpusError, ValueError),
]


def test_one_base_class_shared_by_variants_and_harness():
    assert UserError is VariantsUserError


@pytest.mark.parametrize("cls, builtin", USER_ERRORS, ids=[c.__name__ for c, _ in USER_ERRORS])
def test_every_user_error_subclasses_it_and_keeps_its_builtin_base(cls, builtin):
    assert issubclass(cls, UserError) and issubclass(cls, builtin)


def test_unknown_name_reads_as_a_sentence_not_a_quoted_key():
    assert str(UnknownNameError("Unknown position 'rop'.")) == "Unknown position 'rop'."


def test_the_command_line_prints_any_user_error_and_exits_2(monkeypatch, capsys):
    class NewMistake(UserError):
        pass

    def raises(args):
        raise NewMistake("Bad thing 'x'; choose y.")

    monkeypatch.setattr(cli, "cmd_list", raises)
    assert cli.main(["list"]) == 2
    assert capsys.readouterr().err == "bench: Bad thing 'x'; choose y.\n"


def test_any_other_exception_is_a_bug_and_keeps_its_traceback(monkeypatch):
    def raises(args):
        raise ValueError("not a user's mistake")

    monkeypatch.setattr(cli, "cmd_list", raises)
    with pytest.raises(ValueError, match="not a user's mistake"):
        cli.main(["list"])
