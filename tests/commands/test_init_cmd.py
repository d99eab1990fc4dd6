"""`skillsift init` end to end: detection, the files it writes, and that it never overwrites one."""

from __future__ import annotations

import os
import shutil

import pytest
import yaml

import skillsift
from tests.conftest import ACME, write_skill
from tests.support.cli import run

TAG = f"v{skillsift.__version__}"


@pytest.fixture
def bare(tmp_path):
    """The example's skills alone: no config, no cases, no index."""
    root = tmp_path / "repo"
    shutil.copytree(ACME / ".claude", root / ".claude")
    return root


def _snapshot(root):
    out = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            out[os.path.relpath(path, root)] = (open(path, "rb").read(), os.stat(path).st_mtime_ns)
    return out


def test_init_writes_a_config_and_draft_cases_that_validate_and_evaluate(bare, capsys):
    code, out, err = run(capsys, "init", "--root", bare)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "skillsift init: 27 skills under .claude/skills (read by claude-code, copilot, opencode)"
    assert "wrote skillsift.toml (the configuration)" in lines
    config = (bare / "skillsift.toml").read_text(encoding="utf-8")
    assert '# skills = [".claude/skills"]' in config and 'agents = ["claude-code", "copilot", "opencode"]' in config
    assert 'cases = "search-cases.yaml"' in config and 'mode = "lexical"' in config
    cases = yaml.safe_load((bare / "search-cases.yaml").read_text(encoding="utf-8"))
    drafts = cases["cases"]
    assert drafts and all(case["tags"] == ["draft"] for case in drafts)
    assert all(case["id"].startswith("draft-") and len(case["expect"]) == 1 for case in drafts)
    by_skill = {case["expect"][0]: case["query"] for case in drafts}
    # deploy-staging's description: "... Use before a release candidate goes to production or when QA asks ..."
    assert by_skill["deploy-staging"] == ("a release candidate goes to production or when QA asks for a fresh "
                                          "staging build")
    text = (bare / "search-cases.yaml").read_text(encoding="utf-8")
    assert text.count("# review: drafted from .claude/skills/") == len(drafts)
    # the snippets, pinned to this version's release tag
    assert f"rev: {TAG}" in out and f"uses: OWNER/skillsift@{TAG}" in out
    # what init wrote passes validate, and eval runs on it
    assert run(capsys, "validate", "--root", bare)[0] == 0
    code, out, err = run(capsys, "eval", bare / "search-cases.yaml", "--root", bare)
    assert code == 0, err
    assert out.startswith(f"cases: {len(drafts)} (+0 negative), k=5, mode: lexical")


def test_a_second_run_changes_nothing_and_write_adds_only_missing_hook_files(bare, capsys):
    assert run(capsys, "init", "--root", bare)[0] == 0
    (bare / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")  # the user's own
    before = _snapshot(bare)
    code, out, _ = run(capsys, "init", "--root", bare)
    assert code == 0 and "wrote" not in out
    assert "kept skillsift.toml: the project is configured there" in out
    assert "kept search-cases.yaml: it exists" in out
    assert _snapshot(bare) == before
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0
    assert "kept .pre-commit-config.yaml: it exists" in out
    assert f"wrote .github/workflows/skills.yml (the pull-request workflow, pinned to {TAG})" in out
    assert (bare / ".pre-commit-config.yaml").read_text(encoding="utf-8") == "repos: []\n"
    workflow = yaml.safe_load((bare / ".github/workflows/skills.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["skillsift"]["steps"]
    assert steps[1]["uses"] == f"OWNER/skillsift@{TAG}" and steps[1]["with"]["cases"] == "search-cases.yaml"
    after = _snapshot(bare)
    assert run(capsys, "init", "--root", bare, "--write")[0] == 0
    assert _snapshot(bare) == after


def test_write_adds_a_pre_commit_config_pinned_to_the_release_tag(bare, capsys):
    assert run(capsys, "init", "--root", bare, "--write")[0] == 0
    doc = yaml.safe_load((bare / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    [repo] = doc["repos"]
    assert repo["rev"] == TAG
    assert [hook["id"] for hook in repo["hooks"]] == ["skillsift-secrets", "skillsift-frontmatter",
                                                      "skillsift-cases", "skillsift-eval"]


def test_when_to_use_items_of_the_body_become_drafts_with_their_lines(tmp_path, capsys):
    root = tmp_path / "repo"
    write_skill(root, "rotate-keys", "Rotate the signing keys of a service.",
                body="# Rotate keys\n\n## When to use\n\n- a signing key leaked in a log\n"
                     "- the quarterly key rotation is due\n* a **new** region needs its own keys\n- no\n")
    write_skill(root, "plain", "Does one thing.")
    code, out, err = run(capsys, "init", "--root", root)
    assert code == 0, err
    assert "wrote search-cases.yaml (3 draft cases from 1 skill: review them)" in out
    cases = yaml.safe_load((root / "search-cases.yaml").read_text(encoding="utf-8"))["cases"]
    assert [case["query"] for case in cases] == ["a signing key leaked in a log", "the quarterly key rotation is due",
                                                 "a new region needs its own keys"]
    assert "# review: drafted from .claude/skills/rotate-keys/SKILL.md:" in (root / "search-cases.yaml").read_text()
    assert run(capsys, "validate", "--root", root)[0] in (0, 1)  # the config and cases are valid (no AR9D0/AR9D2)
    code, out, _ = run(capsys, "validate", "--root", root, "--format", "json")
    assert "AR9D0" not in out and "AR9D2" not in out


def test_no_skill_says_when_to_use_it_so_no_cases_file_is_written(tmp_path, capsys):
    root = tmp_path / "repo"
    write_skill(root, "plain", "Does one thing.")
    code, out, _ = run(capsys, "init", "--root", root)
    assert code == 0 and "no cases drafted" in out
    assert not (root / "search-cases.yaml").exists()
    assert 'cases = "search-cases.yaml"' not in (root / "skillsift.toml").read_text(encoding="utf-8")
    assert run(capsys, "validate", "--root", root)[0] == 0


def test_a_repository_without_skills_is_an_error(tmp_path, capsys):
    code, _out, err = run(capsys, "init", "--root", tmp_path)
    assert code == 1 and "init found no SKILL.md" in err and ".claude/skills" in err
    assert list(tmp_path.iterdir()) == []


def test_a_link_in_the_way_is_kept_and_never_followed(bare, tmp_path, capsys):
    outside = tmp_path / "outside.yaml"
    os.symlink(outside, bare / "search-cases.yaml")  # dangling: opening it for writing would create outside.yaml
    os.symlink(tmp_path, bare / ".github")  # a folder that leaves the repository
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0
    assert "kept search-cases.yaml: it exists" in out
    assert "kept .github/workflows/skills.yml: its folder leaves the repository" in out
    assert not outside.exists() and not (tmp_path / "workflows").exists()


def test_an_existing_project_config_is_kept(bare, capsys):
    (bare / "pyproject.toml").write_text('[tool.skillsift.search]\nmode = "lexical"\n', encoding="utf-8")
    code, out, _ = run(capsys, "init", "--root", bare)
    assert code == 0 and "kept pyproject.toml: the project is configured there" in out
    assert not (bare / "skillsift.toml").exists() and (bare / "search-cases.yaml").exists()
