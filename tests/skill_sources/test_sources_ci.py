"""``skillsift ci`` on a pull request that moves a source: each side ranks the skills its own lock pins,
the lock change is a gate change, and ``--fetch-sources`` is the only network use (docs/sources.md)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.ci.test_action import make_pull_request, table_rows
from tests.conftest import write_skill
from tests.support.cli import run


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


def _git(cwd, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false",
                    *args], cwd=cwd, env=env, check=True, capture_output=True)


def _update(project, cache):
    env = {**os.environ, "SKILLSIFT_CACHE_DIR": str(cache)}
    proc = subprocess.run([sys.executable, "-m", "skillsift", "sources", "update", "--root", str(project)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_a_source_moved_to_a_commit_that_steals_a_case_is_a_regression_and_a_gate_change(tmp_path, capsys,
                                                                                         monkeypatch):
    org = tmp_path / "org"
    write_skill(org, "status-page", "Update the public status page during an outage", layout="skills")
    _git(tmp_path, "init", "-q", str(org))
    _git(org, "add", "-A")
    _git(org, "commit", "-qm", "v1")
    _git(org, "tag", "v1")
    write_skill(org, "status-page", "Page the engineer on call, update the status page", layout="skills")
    _git(org, "commit", "-qam", "v2")
    _git(org, "tag", "v2")
    maker_cache = tmp_path / "maker-cache"

    def with_source(rev):
        def edit(project):
            (project / "skillsift.toml").write_text(
                f'[[sources]]\nname = "org"\ngit = "{org.as_uri()}"\nrev = "{rev}"\nsubdir = "skills"\n',
                encoding="utf-8")
            _update(project, maker_cache)
        return edit

    project = make_pull_request(tmp_path / "repo", with_source("v2"), before=with_source("v1"))
    monkeypatch.chdir(project)
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "ci-cache"))  # CI's cache: nothing fetched yet
    code, out, err = run(capsys, "ci", "--base", "main", "--fetch-sources")
    assert code == 0, out + err
    # each side ranked its own lock's skills: the moved source's skill now outranks the repository's
    moved = table_rows(out, "Other rank changes")
    assert [(r[0], r[4], r[5], r[6]) for r in moved] == [("`page-engineer`", "1", "2", "worse")]
    rows = table_rows(out, "Changes to the gate")[1:]
    lock_rows = [r for r in rows if "skillsift.lock: org" in r[1]]
    assert len(lock_rows) == 1
    assert "source moved (v1 -&gt; v2)" in lock_rows[0][0] and "skills changed: status-page" in lock_rows[0][0]
    code, out, err = run(capsys, "ci", "--base", "main", "--fetch-sources", "--fail-on-gate-change")
    assert code == 2 and "the pull request changes its own gate" in out
    # without --fetch-sources ci fetches nothing: a fresh cache serves no source skill on either side
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "empty-cache"))
    code, out, err = run(capsys, "ci", "--base", "main")
    assert not (tmp_path / "empty-cache" / "sources").exists()
    assert "SK053" in out
