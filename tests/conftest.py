from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPORA = SHARED / "corpora"


def write_skill(root: Path, name: str, description: str = "", *, triggers=None, keywords=None, tags=None,
                body: str = "Body text.\n", layout: str = ".claude/skills", extra: str = "") -> Path:
    """Write ``<root>/<layout>/<name>/SKILL.md`` with the given frontmatter; returns its path."""
    lines = ["---", f"name: {name}"]
    if description:
        lines.append(f"description: {json.dumps(description)}")
    for key, value in (("triggers", triggers), ("keywords", keywords), ("tags", tags)):
        if value is not None:
            lines.append(f"{key}: {json.dumps(list(value))}")
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    path = root / layout / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n" + body, encoding="utf-8")
    return path


@pytest.fixture
def skill_writer():
    return write_skill


@pytest.fixture
def cli_project(tmp_path):
    """The three-skill project of the reference's CLI tests."""
    write_skill(tmp_path, "refund-policy", "Process customer refund requests", triggers=["customer wants money back"])
    write_skill(tmp_path, "deploy-staging", "Deploy a service to the staging cluster", keywords=["rollout", "staging"])
    write_skill(tmp_path, "git-workflow", "Branching and pull request conventions")
    return tmp_path


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path_factory, monkeypatch):
    """No test reads the developer's own user config or SKILLSIFT_* environment."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for var in ("SKILLSIFT_SEARCH_MODE", "SKILLSIFT_LOG_QUERIES", "SKILLSIFT_ALLOW_NETWORK"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True, scope="session")
def _catalog_cache_in_a_temporary_folder(tmp_path_factory):
    """The parsed-frontmatter cache of every test (and CLI subprocess) lives in a temporary folder."""
    import os

    folder = tmp_path_factory.mktemp("skillsift-cache")
    old = os.environ.get("SKILLSIFT_CACHE_DIR")
    os.environ["SKILLSIFT_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("SKILLSIFT_CACHE_DIR", None)
    else:
        os.environ["SKILLSIFT_CACHE_DIR"] = old
