"""``open_project``: one way to open a repository, its messages returned as data (docs/development.md, "Layers")."""

from __future__ import annotations

import pytest

from skillsift.config import RootNotFound
from skillsift.diagnostics import SkillsiftError
from skillsift.skill_sources.configured import open_config
from skillsift.usecases.project import Message, open_project
from tests.conftest import write_skill


def repo(root):
    write_skill(root, "issue-refund", "Refund a customer order")
    write_skill(root, "deploy-staging", "Deploy to staging", layout=".codex/skills")
    broken = root / ".claude" / "skills" / "broken" / "SKILL.md"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"---\nname: \xff\n---\n")
    (root / "skillsift.toml").write_text("[search]\nlog_queries = true\n", encoding="utf-8")
    return root


def test_messages_are_data_and_nothing_is_printed(tmp_path, capsys):
    project = open_project(repo(tmp_path))
    assert capsys.readouterr() == ("", "")
    severities = [m.severity for m in project.messages]
    assert set(severities) <= {"note", "warning"}
    # the config's note first, then the catalog's findings; an error of the catalog is a warning (the command goes on)
    assert project.messages[0].severity == "note" and "log_queries" in project.messages[0].text
    assert any(m == Message("warning", m.text) and "broken/SKILL.md" in m.text and "SK001" in m.text
               for m in project.messages[1:])
    assert set(project.catalog.names) == {"deploy-staging", "issue-refund"}


def test_the_mode_is_folded_into_the_config_once(tmp_path, monkeypatch):
    repo(tmp_path)
    assert open_project(tmp_path).mode == "lexical"
    monkeypatch.setenv("SKILLSIFT_SEARCH_MODE", "vector")
    assert open_project(tmp_path).mode == "vector"
    project = open_project(tmp_path, mode="hybrid")  # the flag beats the environment
    assert project.mode == project.config.search.mode == "hybrid"


def test_views_and_agents(tmp_path):
    repo(tmp_path)
    assert set(open_project(tmp_path, agent="codex").catalog.names) == {"deploy-staging"}
    assert set(open_project(tmp_path, agent="codex", agent_in_full=False).catalog.names) == {
        "deploy-staging", "issue-refund"}
    listing = open_project(tmp_path, view="listing", agent="codex")
    assert listing.view.listing is not None and listing.view.agent == "codex"
    assert set(listing.catalog.names) == {"deploy-staging"}
    assert {s.name for s in listing.view.skills} == {"deploy-staging", "issue-refund"}  # every skill read


def test_a_resolved_config_is_reused_without_its_notes(tmp_path):
    repo(tmp_path)
    config = open_config(tmp_path)
    project = open_project(tmp_path, config=config)
    assert project.config is config
    assert all("log_queries" not in m.text for m in project.messages) and project.messages


def test_what_stops_a_command_is_raised(tmp_path):
    with pytest.raises(RootNotFound):
        open_project(tmp_path / "missing")
    (tmp_path / "skillsift.toml").write_text("[search]\nmode = 3\n", encoding="utf-8")
    with pytest.raises(SkillsiftError, match="AR9D0"):
        open_project(tmp_path)
    # an unknown agent is named before any file is read
    with pytest.raises(SkillsiftError, match='unknown agent "nobody"'):
        open_project(tmp_path, agent="nobody")


def test_the_config_half_reads_no_catalog_module():
    import subprocess
    import sys

    from skillsift.catalog.listing import FULL_VIEW
    from skillsift.usecases import project

    assert project.FULL_VIEW == FULL_VIEW
    code = ("import sys, skillsift.config\nbefore = set(sys.modules)\nimport skillsift.skill_sources.configured\n"
            "print(sorted(set(sys.modules) - before))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # the hooks that read only the config pay for nothing the config does not import itself
    assert out.strip() == "['skillsift.skill_sources', 'skillsift.skill_sources.configured']"
