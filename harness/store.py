"""The results store: one JSON-lines file per job under results/<suite>/, written atomically.

A job is its content hash (bench/run/plan.py: resolved spec, suite and version, profile settings, seed,
device type, dtype, data checksum, code), never the name it was asked under. Its file is named
``<first name>-s<seed>-<hash>.jsonl``; each record lists in ``names`` every name the job was asked under
(``variant`` is the first), and ``load`` gives each record once per name, so every name finds the job.

A save writes a temporary file and renames it into place, so a crash never leaves half a file. Each
record carries the number of records in its file (``records_in_file``), so a file cut at a line
boundary is seen as incomplete. A file that cannot be read whole (a damaged line, junk, a cut) is
reported on stderr with its line and skipped: its job counts as not done. A save never deletes what the
store holds: it replaces only an earlier attempt of the same job, and moves a damaged file of that job
aside to ``<name>.corrupt``.

Every record is checked against the record schema on read (harness/records.py) (the types of metric, value, variant, status, ...), so
a record that parses but is malformed (``"value": "abc"``, no variant) is a damaged file like any other,
never a crash of a report. A name ending in ``.jsonl`` that is no regular file (a dangling link, a folder)
or that cannot be opened is passed over with one warning. A save that fails because the results folder
stopped being writable keeps the records in a fallback folder (``unsaved_folder``) and raises
``StoreUnwritable``; the next run on that results folder stores them (``adopt_unsaved``) without retraining.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import stat
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from harness.errors import UsageError, UserError
from harness.locks import JobLock
from harness.records import SCHEMA_VERSION, Record, names_of, newer_schema, per_name, schema_problem, with_names

COUNT_KEY = "records_in_file"
TMP_PREFIX = ".tmp-"
#: a save takes well under a second, so an older temporary file was left by a killed process
STALE_TMP_S = 60.0


class CorruptResultsError(UserError, ValueError):
    """A results file that cannot be read whole: a damaged line, a line that is no record, or a cut."""


class NewerRecordsError(CorruptResultsError):
    """A results file written by a later bench, in a record format this one does not read."""


class StoreUnwritable(UserError, OSError):
    """The results folder stopped being writable during a run; the message names where the records were kept."""


class ResultsStore:
    """Reads and writes job records under a root folder (default ``results/``)."""

    def __init__(self, root: Path | str = "results", warn: Callable[[str], None] | None = None) -> None:
        self.root = Path(root)
        self._warn = warn or _to_stderr
        self._said: set = set()

    def say(self, message: str) -> None:
        """Tell the user once per store (planning and running look at the same files)."""
        if message not in self._said:
            self._said.add(message)
            self._warn(message)

    def path_for(self, suite: str, job_hash: str, label: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)
        return self.root / suite / f"{safe}-{job_hash}.jsonl"

    def find(self, suite: str, job_hash: str) -> Path | None:
        """The whole stored file of a job, or None; a damaged file of the job is reported and passed over."""
        for path in sorted((self.root / suite).glob(f"*-{job_hash}.jsonl")):
            if self._whole(path) is not None:
                return path
        return None

    def write(self, suite: str, job_hash: str, label: str, records: Iterable[Record]) -> Path:
        """Atomically store a job's records, keeping every name the job was stored under before.

        An earlier attempt of the job (a failure being retried) is replaced in its own file; a damaged
        file of the job is moved aside, never deleted.
        """
        records = list(records)  # an error while producing them leaves the store as it was
        (self.root / suite).mkdir(parents=True, exist_ok=True)
        stored = self.find(suite, job_hash)
        prior = names_of(self.read_file(stored)) if stored is not None else []
        path = stored or self.path_for(suite, job_hash, label)
        self._set_aside_damaged(suite, job_hash)
        self._replace(path, with_names(records, prior + names_of(records)))
        return path

    def add_names(self, suite: str, job_hash: str, names: list[str]) -> bool:
        """Add names to a stored job's records; True when the file changed."""
        path = self.find(suite, job_hash)
        if path is None:
            return False
        records = self.read_file(path)
        known = names_of(records)
        if all(name in known for name in names):
            return False
        self._replace(path, with_names(records, known + list(names)))
        return True

    def read_file(self, path: Path) -> list[Record]:
        """The records of one file; raises CorruptResultsError naming the file and line when it is not whole."""
        records: list[Record] = []
        counts = set()
        lineno = 0
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                raise CorruptResultsError(
                    f"Results file {path} is no regular file (a folder or device named like one)."
                )
            fh = open(path, "rb")
        except FileNotFoundError:
            what = "a link to nothing" if os.path.islink(path) else "gone"
            raise CorruptResultsError(f"Results file {path} is {what}.") from None
        except OSError as exc:
            raise CorruptResultsError(f"Results file {path} cannot be read ({exc.strerror or exc}).") from None
        with fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                    why = (
                        exc.msg
                        if isinstance(exc, json.JSONDecodeError)
                        else "not UTF-8"
                        if isinstance(exc, UnicodeDecodeError)
                        else "nested too deeply to read"
                    )
                    raise CorruptResultsError(f"Results file {path} is corrupt at line {lineno} ({why}).") from None
                newer = newer_schema(record)
                if newer:
                    raise NewerRecordsError(
                        f"Results file {path} holds records of format {newer} at line {lineno}, "
                        f"newer than this bench reads (format {SCHEMA_VERSION}); update bench to "
                        f"read them."
                    )
                problem = schema_problem(record)
                if problem:
                    raise CorruptResultsError(
                        f"Results file {path} is corrupt at line {lineno} (not a bench record): {problem}."
                    )
                counts.add(record.pop(COUNT_KEY, None))
                records.append(record)
        if not records:
            raise CorruptResultsError(f"Results file {path} is corrupt at line {lineno + 1} (it holds no records).")
        # files written before the count existed have none and are taken as they are
        if counts != {None} and counts != {len(records)}:
            expected = ", ".join(str(c) for c in sorted(counts, key=str))
            raise CorruptResultsError(
                f"Results file {path} is incomplete after line {lineno} "
                f"(it holds {len(records)} records, its records say {expected})."
            )
        return records

    def files(self, suite: str | None = None) -> list[Path]:
        """Record files of one suite (or of all): hidden and temporary files are not records."""
        base = self.root / suite if suite else self.root
        pattern = "*.jsonl" if suite else "*/*.jsonl"
        return sorted(
            p for p in base.glob(pattern) if not any(part.startswith(".") for part in p.relative_to(base).parts)
        )

    def load(self, suite: str | None = None) -> list[Record]:
        """Every record of one suite (or of all suites), once per name of its job; damaged files are skipped."""
        records: list[Record] = []
        for path in self.files(suite):
            for record in self._whole(path) or []:
                records.extend(per_name(record))
        return records

    def suites(self) -> list[str]:
        """Names of the suites that have readable results."""
        if not self.root.is_dir():
            return []
        return sorted(
            p.name
            for p in self.root.iterdir()
            if p.is_dir() and not p.name.startswith(".") and any(self._whole(f) for f in self.files(p.name))
        )

    def lock(self, suite: str, job_hash: str) -> JobLock:
        """The lock a run takes before it trains a job (harness/locks.py)."""
        (self.root / suite).mkdir(parents=True, exist_ok=True)
        return JobLock(self.root / suite / f".lock-{job_hash}")

    def prepare(self, suite: str) -> None:
        """Before any job trains: check that the suite's folder can be written, and remove killed saves' files."""
        folder = self.root / suite
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = _temp_path(folder)
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            probe.unlink()
        except OSError as exc:
            raise UsageError(
                f"results_dir={self.root} cannot be written ({exc.strerror or exc}); "
                f"choose a folder in which you can create files."
            ) from None
        for tmp in sorted(self.root.glob(f"*/{TMP_PREFIX}*")):
            if _abandoned(tmp):
                tmp.unlink(missing_ok=True)
                self.say(f"removed {tmp}, left by a save that was interrupted (its job was not stored).")
        # checkpoint saves (suites/common/checkpoints.py) take longer: a live one is left alone for an hour
        for tmp in sorted(self.root.glob(f"*/.checkpoints/{TMP_PREFIX}*")):
            if _abandoned(tmp, stale_s=3600.0):
                tmp.unlink(missing_ok=True)
                self.say(f"removed {tmp}, left by a checkpoint save that was interrupted (it is trained again).")

    def save_fallback(
        self, suite: str, job_hash: str, label: str, records: list[Record], exc: OSError
    ) -> StoreUnwritable:
        """Keep the records a save could not write in the fallback folder; the error to raise names it."""
        why = exc.strerror or type(exc).__name__
        folder = unsaved_folder(self.root) / suite
        path = folder / self.path_for(suite, job_hash, label).name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder.parent / "results_dir.txt").write_text(str(self.root.resolve()) + "\n")
            self._replace(path, with_names(records, names_of(records)))
        except OSError as second:
            return StoreUnwritable(
                f"results_dir={self.root} stopped being writable ({why}) while storing {label}, and "
                f"its records could not be kept in {folder} either ({second.strerror or second}); "
                f"make the folder writable and rerun (the job trains again)."
            )
        return StoreUnwritable(
            f"results_dir={self.root} stopped being writable ({why}) while storing {label}; its "
            f"records are kept in {path}, and a rerun on a writable results_dir={self.root} stores "
            f"them without training again. The sweep stopped there."
        )

    def adopt_unsaved(self) -> list[Path]:
        """Store the records a run kept in the fallback folder (see ``save_fallback``) when this folder was
        unwritable; jobs stored meanwhile keep their own file. Returns the files stored."""
        fallback = unsaved_folder(self.root)
        adopted: list[Path] = []
        if not fallback.is_dir():
            return adopted
        for kept in sorted(fallback.glob("*/*.jsonl")):
            suite, stem = kept.parent.name, kept.name[: -len(".jsonl")]
            job_hash = stem.rsplit("-", 1)[-1]
            try:
                records = self.read_file(kept)
            except CorruptResultsError as exc:
                self.say(f"warning: {exc} It was kept when results_dir={self.root} was unwritable; left in place.")
                continue
            try:
                if self.find(suite, job_hash) is None:
                    (self.root / suite).mkdir(parents=True, exist_ok=True)
                    target = self.root / suite / kept.name
                    self._replace(target, records)
                    adopted.append(target)
                    self.say(f"stored {target.name}, kept in {fallback} when results_dir={self.root} was unwritable.")
                kept.unlink()
            except OSError:
                return adopted  # still unwritable: prepare() says so in one sentence
        return adopted

    def _whole(self, path: Path) -> list[Record] | None:
        try:
            return self.read_file(path)
        except NewerRecordsError as exc:  # whole, from a later bench: left out, never set aside or retrained over
            self.say(f"warning: {exc} Skipped: its records are left out; the file is kept.")
            return None
        except CorruptResultsError as exc:
            self.say(
                f"warning: {exc} Skipped: its records are left out and its job counts as not done, "
                f"so a run trains it again; the file is kept."
            )
            return None

    def _set_aside_damaged(self, suite: str, job_hash: str) -> None:
        """Rename the damaged files of a job that is being stored again; they stay for inspection."""
        for path in sorted((self.root / suite).glob(f"*-{job_hash}.jsonl")):
            try:
                self.read_file(path)
                continue
            except NewerRecordsError:
                continue  # a later bench's whole file is not damaged
            except CorruptResultsError:
                pass
            aside, n = path.with_name(path.name + ".corrupt"), 1
            while aside.exists():
                aside, n = path.with_name(f"{path.name}.corrupt{n}"), n + 1
            path.rename(aside)
            self.say(f"moved the damaged {path.name} aside to {aside.name}; its job is stored anew.")

    def _replace(self, path: Path, records: list[Record]) -> None:
        """Write records to a temporary file and rename it onto ``path``: readers see the old file or the new."""
        tmp = _temp_path(path.parent)
        # 0o666 less the user's umask (normally 0644), like any file the user creates; mkstemp would give 0600
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "w") as fh:
                for record in records:
                    fh.write(json.dumps({**record, COUNT_KEY: len(records)}, sort_keys=True, default=str) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _sync_dir(path.parent)


def unsaved_folder(root: Path) -> Path:
    """Where the records of ``root`` that could not be written are kept: a folder of the user's cache named by
    the results folder's absolute path (``$XDG_CACHE_HOME/bench/unsaved/<hash>/<suite>/``)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    try:
        where = Path(root).resolve()
    except (RuntimeError, OSError):  # a loop of links: named by its absolute path (the folder check refuses it)
        where = Path(root).absolute()
    key = hashlib.sha256(str(where).encode()).hexdigest()[:16]
    return cache / "bench" / "unsaved" / key


def _to_stderr(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr)


def _temp_path(folder: Path, suffix: str = ".jsonl") -> Path:
    """A temporary file name that says which process writes it, so a leftover can be told from a live save."""
    return folder / f"{TMP_PREFIX}{os.getpid()}@{socket.gethostname()}-{secrets.token_hex(4)}{suffix}"


def temp_path(folder: Path, suffix: str) -> Path:
    """The temporary file name of a save into ``folder`` (its writer's pid and host in it; see ``prepare``)."""
    return _temp_path(folder, suffix)


def _abandoned(tmp: Path, stale_s: float = STALE_TMP_S) -> bool:
    """Whether a temporary file was left by a dead process. On this host its writer's pid decides: a live writer's
    file is never taken, however slow its save or skewed the clock. A file of another host (a shared folder), whose
    writer cannot be asked, counts as abandoned once older than ``stale_s``."""
    owner = tmp.name[len(TMP_PREFIX) :].rsplit("-", 1)[0]
    pid, _, host = owner.partition("@")
    if host == socket.gethostname() and pid.isdigit():
        return not _alive(int(pid))
    try:
        return time.time() - tmp.stat().st_mtime > stale_s
    except FileNotFoundError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sync_dir(folder: Path) -> None:
    """Make a rename durable (a crash right after a save keeps it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
