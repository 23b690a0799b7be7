"""A record's git_dirty says whether the code differed from its commit; stored results do not count."""

import subprocess

import pytest

from harness import env


def _git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    for path in ("harness/code.py", "reference/results/s/a.jsonl", "results/README.md"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    monkeypatch.setattr(env, "REPO", tmp_path)
    env.git_state.cache_clear()
    yield tmp_path
    env.git_state.cache_clear()


def test_changed_or_deleted_stored_results_leave_the_tree_clean(repo):
    (repo / "reference/results/s/a.jsonl").unlink()
    (repo / "results/README.md").write_text("y\n")
    state = env.git_state()
    assert state["git_commit"] and state["git_dirty"] is False


def test_a_changed_code_file_makes_it_dirty(repo):
    (repo / "harness/code.py").write_text("y\n")
    assert env.git_state()["git_dirty"] is True
