"""The base commit and its temporary worktree, in real temporary git repositories."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from skillsift.ci import gitbase
from skillsift.diagnostics import SkillsiftError
from tests.ci.test_action import git


def test_base_candidates():
    assert gitbase.base_candidates(None, None) == []
    assert gitbase.base_candidates("", "  ") == []
    assert gitbase.base_candidates(None, "main") == ["origin/main", "main"]
    assert gitbase.base_candidates("main", "release") == ["main", "origin/main"]
    assert gitbase.base_candidates("origin/dev", None) == ["origin/dev"]
    assert gitbase.base_candidates("1a2b3c4", None) == ["1a2b3c4", "origin/1a2b3c4"]


@pytest.fixture
def repo(tmp_path) -> Path:
    """main: m1 - m2 ; feature branched at m1: f1 (checked out)."""
    root = tmp_path / "repo"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "file.txt").write_text("one\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "m1")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "sub" / "file.txt").write_text("feature\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "f1")
    git(root, "checkout", "-q", "main")
    (root / "other.txt").write_text("later on main\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "m2")
    git(root, "checkout", "-q", "feature")
    return root


def test_base_is_the_merge_base_not_the_branch_tip(repo):
    m1 = git(repo, "rev-parse", "main~1")
    base = gitbase.find_base(str(repo), gitbase.base_candidates(None, "main"))
    assert base == gitbase.BaseCommit(sha=m1, ref="main") and base.short == m1[:7]
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    assert gitbase.find_base(str(repo), ["origin/main", "main"]).ref == "origin/main"


def test_missing_base_names_what_was_tried_and_the_fix(repo):
    with pytest.raises(SkillsiftError) as err:
        gitbase.find_base(str(repo), ["origin/nope", "nope"])
    assert "tried origin/nope, nope" in err.value.message and "fetch-depth: 0" in err.value.hint


def test_unrelated_history_has_no_base(repo):
    git(repo, "checkout", "-q", "--orphan", "lonely")
    git(repo, "commit", "-q", "-m", "alone")
    with pytest.raises(SkillsiftError, match="no common commit"):
        gitbase.find_base(str(repo), ["main"])


def test_locate(repo, tmp_path, monkeypatch):
    place = gitbase.locate(str(repo / "sub"))
    assert Path(place.toplevel) == repo.resolve() and place.prefix == "sub/"
    assert gitbase.locate(str(repo)).prefix == ""
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert gitbase.locate(str(outside)) is None


def test_worktree_holds_the_commit_and_is_removed(repo, monkeypatch):
    hook = repo / ".git" / "hooks" / "post-checkout"
    marker = repo / "hook-ran"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\n", encoding="utf-8")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / "bogus-index"))  # as inside a git hook
    m1 = git(repo, "rev-parse", "main~1")
    with gitbase.worktree(str(repo), m1) as tree:
        assert (Path(tree) / "sub" / "file.txt").read_text(encoding="utf-8") == "one\n"
        assert not (Path(tree) / "other.txt").exists()
        holder = Path(tree).parent
        assert len(git(repo, "worktree", "list").splitlines()) == 2
    assert not holder.exists()
    assert len(git(repo, "worktree", "list").splitlines()) == 1
    assert not marker.exists(), "a hook ran in the base worktree"
    assert not (repo / "bogus-index").exists()
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
    assert (repo / "sub" / "file.txt").read_text(encoding="utf-8") == "feature\n"


def test_worktree_is_removed_when_the_evaluation_fails(repo):
    m1 = git(repo, "rev-parse", "main~1")
    with pytest.raises(RuntimeError):
        with gitbase.worktree(str(repo), m1) as tree:
            raise RuntimeError("boom")
    assert not os.path.exists(tree)
    assert len(git(repo, "worktree", "list").splitlines()) == 1


def test_worktree_of_an_unknown_commit_fails_cleanly(repo):
    with pytest.raises(SkillsiftError, match="worktree add"):
        with gitbase.worktree(str(repo), "0" * 40):
            pass
    assert len(git(repo, "worktree", "list").splitlines()) == 1
