"""A small repository with a judge configured in the user config, and the fake judges of tests/fixtures/judges."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import FIXTURES, write_skill
from tests.support.cli import set_user_config

JUDGES = FIXTURES / "judges"

CASES = """version: 1
cases:
  - id: refund
    query: refund the customer order
    expect: [issue-refund]
  - id: deploy
    query: deploy to the staging cluster
    expect: [deploy-staging]
  - id: branch
    query: branching conventions for a pull request
    expect: [git-workflow]
  - id: money
    query: customer wants money back for the order
    expect: [issue-refund]
  - id: bread
    query: bake sourdough bread
    expect: []
"""


def judge_argv(script: str, *args) -> list[str]:
    return [sys.executable, str(JUDGES / script), *map(str, args)]


def use_judge(script: str, *args, extra: str = "") -> None:
    """Name the fake judge in the user config (a user's command runs without --allow-exec)."""
    set_user_config(f"[judge]\ncommand = {json.dumps(judge_argv(script, *args))}\n{extra}")


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    write_skill(root, "issue-refund", "Refund a customer order payment from the billing console")
    write_skill(root, "deploy-staging", "Deploy a service to the staging cluster")
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    (root / "cases.yaml").write_text(CASES, encoding="utf-8")
    monkeypatch.setenv("SKILLSIFT_ALLOW_NETWORK", "1")
    monkeypatch.delenv("CI", raising=False)
    return root
