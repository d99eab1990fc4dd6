"""A link committed into a skill's folder is a finding wherever skills are served, not only under ``skills/``.

pre-commit hands ``skillsift-validate`` only the staged files its ``files:`` pattern matches (the shipped
pattern names SKILL.md, the config and cases files, and ``skills/`` folders).  Skills are served from
other folders too: a plugin's root (``plugins/<name>/SKILL.md``) and any ``[catalog] skills`` folder.
Here the hook is run as pre-commit runs it (the staged files filtered by the shipped ``files:`` regex
and ``types_or``), and it must still find the link by its own walk of the staged links: SK021 for a
file of the skill that leaves its folder or dangles, SK020 for a SKILL.md that is a link.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.ci.test_action import git
from tests.conftest import ROOT, write_skill
from tests.support.cli import run


def shipped_filter() -> re.Pattern:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [h for h in hooks if h["id"] == "skillsift-validate"]
    return re.compile(hook["files"])


def staged(repo: Path) -> list[str]:
    out = subprocess.run(["git", "diff", "--cached", "--name-only", "-z"], cwd=repo, capture_output=True,
                         check=True).stdout.decode()
    return [p for p in out.split("\0") if p]


def as_pre_commit_runs_it(capsys, repo: Path, *fmt: str):
    """``skillsift hook validate`` with the staged files pre-commit would pass it (the shipped ``files:``)."""
    pattern = shipped_filter()
    passed = [p for p in staged(repo) if pattern.search(p)]
    return run(capsys, "hook", "validate", "--root", repo, *fmt, *passed), passed


def repo_with(tmp_path: Path, layout: str, config: str = "") -> Path:
    repo = tmp_path / "repo"
    write_skill(repo, "tools", "Run the project's maintenance tools", layout=layout)
    write_skill(repo, "other", "Another skill of the catalog")
    if config:
        (repo / "skillsift.toml").write_text(config, encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


LAYOUTS = {
    "a plugin's root": ("plugins/tools", "", "plugins/tools/tools"),
    "a [catalog] skills folder": ("agents", '[catalog]\nskills = ["agents/*"]\n', "agents/tools"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("target", ["../../../../etc/hostname", "missing-file.sh"])
def test_a_link_in_a_served_skill_folder_outside_skills_is_found(tmp_path, capsys, layout, target):
    folder_layout, config, folder = LAYOUTS[layout]
    if layout == "a plugin's root":  # plugins/<name>/SKILL.md: the plugin's folder is the skill's
        repo = tmp_path / "repo"
        (repo / "plugins/tools").mkdir(parents=True)
        (repo / "plugins/tools/SKILL.md").write_text("---\nname: tools\ndescription: Run the maintenance tools\n"
                                                     "---\n\nBody.\n", encoding="utf-8")
        write_skill(repo, "other", "Another skill of the catalog")
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        folder = "plugins/tools"
    else:
        repo = repo_with(tmp_path, folder_layout, config)
    code, out, _ = run(capsys, "search", "maintenance tools", "--root", repo, "--format", "json")
    assert json.loads(out)["results"][0]["name"] == "tools"  # the skill is served from there
    link = f"{folder}/run.sh"
    os.symlink(target, repo / link)
    git(repo, "add", link)
    (code, out, err), passed = as_pre_commit_runs_it(capsys, repo)
    assert link not in passed  # the shipped pattern does not hand it over: the hook finds it itself
    assert code == 1, out + err
    assert f"{link}: SK021" in out
    (code, out, err), _ = as_pre_commit_runs_it(capsys, repo, "--format", "json")
    found = [d for d in json.loads(out)["diagnostics"] if d["code"] == "SK021"]
    assert [d["file"] for d in found] == [link]


def test_a_link_outside_every_skill_folder_is_left_alone(tmp_path, capsys):
    repo = repo_with(tmp_path, ".claude/skills")
    (repo / "docs").mkdir()
    os.symlink("../README.md", repo / "docs/readme-link.md")
    git(repo, "add", "docs/readme-link.md")
    (code, out, err), _ = as_pre_commit_runs_it(capsys, repo)
    assert code == 0 and "SK021" not in out + err
