"""SK021 (and SK020): a committed link in a skill's folder that leaves the folder or dangles is a finding in
`validate` (text and JSON), in the `skillsift-validate` hook and in `ci`, never a silent skip."""

from __future__ import annotations

import json
import os

import pytest

from tests.ci.test_action import git
from tests.conftest import write_skill
from tests.support.cli import run

SKILLS = ".claude/skills"


@pytest.fixture
def linked(tmp_path):
    """A repository whose skills hold every kind of link."""
    root = tmp_path / "repo"
    write_skill(root, "good", "Deploy a service to the staging cluster")
    write_skill(root, "other", "Refund a customer for a returned purchase")
    folder = root / SKILLS / "good"
    (folder / "scripts").mkdir()
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    (tmp_path / "private.txt").write_text("outside the repository\n", encoding="utf-8")
    os.symlink("../../../../.env", folder / "scripts" / "env.sh")  # dangles: .env is ignored, absent in CI
    os.symlink(str(tmp_path / "private.txt"), folder / "notes.md")  # outside the repository
    os.symlink("../../other/SKILL.md", folder / "references" / "other.md")  # another skill's file
    os.symlink("../../../.git/config", folder / "git.txt")  # into .git/
    os.symlink("guide.md", folder / "references" / "same.md")  # inside the folder: fine
    os.symlink("references", folder / "docs")  # a folder inside the folder: fine
    (root / SKILLS / "evil").mkdir()
    os.symlink("../../../.env", root / SKILLS / "evil" / "SKILL.md")  # a dangling SKILL.md: SK020
    git(root, "init", "-q")
    return root


EXPECTED = {
    f"{SKILLS}/good/scripts/env.sh": "to nothing (it dangles)",
    f"{SKILLS}/good/notes.md": "to a file outside the repository",
    f"{SKILLS}/good/references/other.md": f"leaves the skill's folder (to {SKILLS}/other/SKILL.md)",
    f"{SKILLS}/good/git.txt": "into .git/",
}


def test_validate_reports_every_link_that_leaves_or_dangles(linked, capsys):
    code, out, _err = run(capsys, "validate", "--root", linked)
    assert code == 1
    for file, words in EXPECTED.items():
        line = next(line for line in out.splitlines() if line.startswith(f"{file}: SK021 "))
        assert words in line, line
    assert f"{SKILLS}/evil/SKILL.md: SK020" in out and "dangles" in out
    assert "same.md" not in out and f"{SKILLS}/good/docs" not in out
    code, out, _err = run(capsys, "validate", "--root", linked, "--format", "json")
    found = {(d["file"], d["code"], d["severity"]) for d in json.loads(out)["diagnostics"]}
    assert {(f, "SK021", "error") for f in EXPECTED} | {(f"{SKILLS}/evil/SKILL.md", "SK020", "error")} <= found
    assert not any(d[0].endswith(("same.md", "/docs")) for d in found)


def test_validate_given_the_link_reports_it(linked, capsys, monkeypatch):
    monkeypatch.chdir(linked)
    code, out, _err = run(capsys, "validate", f"{SKILLS}/good/scripts/env.sh", "--format", "json")
    assert code == 1
    found = [(d["file"], d["code"]) for d in json.loads(out)["diagnostics"]]
    assert (f"{SKILLS}/good/scripts/env.sh", "SK021") in found
    assert not any(code == "SK021" and file != f"{SKILLS}/good/scripts/env.sh" for file, code in found)


def test_the_validate_hook_reports_staged_links(linked, capsys, monkeypatch):
    monkeypatch.chdir(linked)
    staged = [f"{SKILLS}/good/notes.md", f"{SKILLS}/good/references/guide.md", f"{SKILLS}/evil/SKILL.md"]
    code, out, err = run(capsys, "hook", "validate", *staged)
    assert code == 1, out + err
    assert f"{SKILLS}/good/notes.md" in out and "SK021" in out and "SK020" in out
    assert "guide.md" not in out  # a regular skill file is left to the hooks of its own
    code, out, err = run(capsys, "hook", "validate", f"{SKILLS}/good/references/same.md")
    assert "SK021" not in out  # a link inside its folder is fine (the repository's SK020 is still said)


def test_the_hooks_file_passes_links_to_the_validate_hook():
    import yaml

    from tests.conftest import ROOT

    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    assert hook["id"] == "skillsift-validate" and "symlink" in hook["types_or"] and hook["types"] == []
    import re

    assert re.search(hook["files"], f"{SKILLS}/good/scripts/env.sh")


def test_ci_reports_the_links(linked, capsys, monkeypatch):
    (linked / "search-cases.yaml").write_text(
        "version: 1\ncases:\n  - id: d\n    query: deploy to staging\n    expect: [good]\n", encoding="utf-8")
    monkeypatch.chdir(linked)
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF"):
        monkeypatch.delenv(var, raising=False)
    code, out, err = run(capsys, "ci", "--baseline", "none", "--format", "json")
    doc = json.loads(out)
    assert code == 2, out + err
    found = {(f["file"], f["code"]) for f in doc["findings"]}
    assert {(f, "SK021") for f in EXPECTED} <= found and (f"{SKILLS}/evil/SKILL.md", "SK020") in found
