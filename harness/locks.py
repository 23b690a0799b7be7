"""Per-job lock files, so that two runs on one results folder never train the same job twice.

A job's lock is the file ``results/<suite>/.lock-<job hash>``, holding its owner's pid and host, and an
exclusive ``flock`` on it. The kernel drops a flock when its process dies (``kill -9`` included), so the
lock of a dead process is stale by construction: the next run takes it over and rewrites the owner.
The holder removes the file on release; a process that locked a file another one had just removed
notices that the path now names a different file (or none) and tries again.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import sys
from pathlib import Path

#: flock errors that mean "this filesystem cannot lock", not "someone else holds it"
_UNSUPPORTED = {errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS}
_warned_unsupported = False


def owner_text(path: Path) -> str:
    """'pid 123 on host x', as the lock file says, or a vaguer phrase while its owner is still writing it."""
    try:
        owner = json.loads(path.read_text())
        return f"pid {owner['pid']} on host {owner['host']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


class JobLock:
    """The lock of one job; ``acquire`` returns False when another live process holds it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def acquire(self, wait: bool = False) -> bool:
        """Take the lock (waiting for its holder when ``wait``); False only when it is held and not ``wait``."""
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                os.close(fd)
                return False
            except OSError as exc:
                os.close(fd)
                if exc.errno not in _UNSUPPORTED:
                    raise
                _warn_unsupported(self.path)
                return True  # no locking here: a run still works, only concurrent runs may repeat a job
            if self._still_ours(fd):
                break
            os.close(fd)  # the holder removed that file as we waited: lock the one at the path now
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname()}).encode())
        self._fd = fd
        return True

    def _still_ours(self, fd: int) -> bool:
        try:
            return os.stat(self.path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            return False

    def release(self) -> None:
        """Remove the lock file, then drop the lock (in that order, see the module docstring)."""
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass  # a folder made read-only meanwhile: the file stays, and a stale lock is taken over (module docstring)
        finally:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> JobLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _warn_unsupported(path: Path) -> None:
    global _warned_unsupported
    if not _warned_unsupported:
        _warned_unsupported = True
        print(
            f"bench: warning: the filesystem of {path.parent} cannot lock files; two runs on this results "
            f"folder at once may train a job twice.",
            file=sys.stderr,
        )
