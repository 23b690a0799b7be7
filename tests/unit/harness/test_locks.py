"""Per-job lock files: one holder at a time, the owner written down, a dead owner's lock taken over."""

import json
import os
import socket
import subprocess
import sys

from harness.locks import JobLock, owner_text


def test_a_held_lock_is_refused_and_free_again_after_release(tmp_path):
    path = tmp_path / ".lock-h1"
    first, second = JobLock(path), JobLock(path)
    assert first.acquire()
    assert json.loads(path.read_text()) == {"pid": os.getpid(), "host": socket.gethostname()}
    assert owner_text(path) == f"pid {os.getpid()} on host {socket.gethostname()}"
    assert not second.acquire()
    first.release()
    assert not path.exists()
    assert second.acquire()
    second.release()


def test_the_lock_file_of_a_dead_process_is_taken_over(tmp_path):
    path = tmp_path / ".lock-h1"
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    path.write_text(json.dumps({"pid": proc.pid, "host": socket.gethostname()}))
    proc.communicate(b"")  # its owner exits without removing it, as after kill -9
    with JobLock(path) as lock:
        assert lock.acquire()
        assert json.loads(path.read_text())["pid"] == os.getpid()


def test_a_lock_killed_holder_leaves_is_free(tmp_path):
    path = tmp_path / ".lock-h1"
    code = (
        "import sys; from harness.locks import JobLock; "
        f"l = JobLock({str(path)!r}); assert l.acquire(); print('held', flush=True); sys.stdin.read()"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    assert not JobLock(path).acquire()
    proc.kill()
    proc.wait()
    assert path.exists()  # killed: the file stays, its flock does not
    with JobLock(path) as lock:
        assert lock.acquire()
