"""A repository laid out as a Claude Code plugin marketplace: the skills folders its manifests name are
found by init, list, search and validate, counted for Claude Code only, and read bounded (docs/validate.md,
"Plugin manifests")."""

from __future__ import annotations

import json
import os

import pytest

from skillsift.catalog.discovery import discover_all
from skillsift.catalog.manifests import manifest_roots
from tests.conftest import write_skill
from tests.support.cli import run

N = 40


def _marketplace(root, *, n=N, plugin_json=None, market=None):
    for i in range(n):
        name = f"assay-{i:03d}"
        write_skill(root, name, f"Plan and analyse the {name} laboratory assay: plate layouts, controls, dose "
                                f"curves and quality checks for {name} screening campaigns in the lab. "
                                f"Use when a scientist runs the {name} protocol or asks about its readouts.",
                    layout="scientific-skills")
    (root / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    doc = market if market is not None else {
        "name": "lab", "owner": {"name": "Lab"},
        "plugins": [{"name": "lab-skills", "source": "./", "strict": False,
                     "skills": [f"./scientific-skills/assay-{i:03d}" for i in range(n)]}]}
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps(doc), encoding="utf-8")
    if plugin_json is not None:
        (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(plugin_json), encoding="utf-8")
    return root


def test_the_marketplace_skills_are_found_by_every_command_and_loaded_by_claude_code_only(tmp_path, capsys):
    root = _marketplace(tmp_path / "repo")
    found = discover_all(root)
    assert len(found.found) == N
    assert set(found.plugins.values()) == {".claude-plugin:lab-skills"}
    code, out, err = run(capsys, "init", "--root", root)
    assert code == 0, err
    assert out.splitlines()[0] == f"skillsift init: {N} skills under scientific-skills (read by claude-code)"
    code, out, _ = run(capsys, "list", "--root", root, "--agent", "claude-code", "--format", "json")
    entries = json.loads(out)["skills"]
    assert len(entries) == N and not [e for e in entries if e["listed"] == "not-loaded"]
    assert [e for e in entries if e["listed"] == "name-only"]  # over Claude Code's 8,000 characters
    code, out, _ = run(capsys, "list", "--root", root, "--agent", "codex")
    # one reason shared by every skill: said once, with its count
    assert f"{N} not-loaded: not in a folder codex reads (.codex/skills, .agents/skills)" in out
    assert out.count("not in a folder codex reads") == 1
    code, out, _ = run(capsys, "search", "assay-007 protocol readouts", "--root", root, "--format", "json")
    assert json.loads(out)["results"][0]["name"] == "assay-007"
    code, out, _ = run(capsys, "validate", "--root", root, "--format", "json")
    codes = [d["code"] for d in json.loads(out)["diagnostics"]]
    sk011 = [d for d in json.loads(out)["diagnostics"] if d["code"] == "SK011"]
    assert len(sk011) == 1 and sk011[0]["message"].startswith("claude-code's skill listing needs")
    assert "SK013" not in codes


def test_plugin_json_skills_and_plugin_root_are_followed(tmp_path):
    root = tmp_path / "repo"
    write_skill(root, "alpha", "Does alpha things for the team.", layout="plugins-here/one/custom")
    write_skill(root, "beta", "Does beta things for the team.", layout="plugins-here/two/skills")
    os.makedirs(root / "plugins-here" / "one" / ".claude-plugin")
    (root / "plugins-here" / "one" / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "one", "skills": ["./custom"]}), encoding="utf-8")
    os.makedirs(root / ".claude-plugin")
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps({
        "name": "m", "metadata": {"pluginRoot": "./plugins-here"},
        "plugins": [{"name": "one", "source": "./one"}, {"name": "two", "source": "two"},
                    {"name": "far", "source": {"source": "github", "repo": "someone/elsewhere"}}]}),
        encoding="utf-8")
    found = discover_all(root)
    assert found.plugins == {"plugins-here/one/custom/alpha/SKILL.md": ".claude-plugin:one",
                             "plugins-here/two/skills/beta/SKILL.md": ".claude-plugin:two"}


@pytest.mark.parametrize("path", ["../outside", "/etc", "./../../x", "scientific-skills/../../x"])
def test_a_path_that_leaves_the_repository_is_not_read(tmp_path, path):
    root = tmp_path / "repo"
    write_skill(tmp_path, "outside-skill", "Lives outside the repository.", layout="outside")
    _marketplace(root, n=1, market={"plugins": [{"name": "p", "source": "./", "skills": [path]}]})
    found = discover_all(root)
    assert not found.plugins and all("outside" not in "/".join(parts) for parts, _ in found.found)
    assert manifest_roots(str(root)).roots == ()


def test_a_link_out_of_the_repository_is_not_followed(tmp_path):
    root = tmp_path / "repo"
    write_skill(tmp_path, "outside-skill", "Lives outside the repository.", layout="outside")
    _marketplace(root, n=1, market={"plugins": [{"name": "p", "source": "./", "skills": ["./linked"]}]})
    os.symlink(tmp_path / "outside", root / "linked")
    found = discover_all(root)
    assert not found.plugins
    assert any("leaves the repository" in why for _rel, why in found.notes)


@pytest.mark.parametrize("text", ["{not json", "[]", '{"plugins": "x"}', '{"plugins": [1, null, {"source": 3}]}',
                                  "\ufeff\x00"])
def test_a_manifest_that_is_not_what_it_should_be_is_a_note_never_a_crash(tmp_path, capsys, text):
    root = _marketplace(tmp_path / "repo", n=2)
    (root / ".claude-plugin" / "marketplace.json").write_text(text, encoding="utf-8")
    write_skill(root, "plain", "A plain skill in the default folder.")
    found = discover_all(root)
    assert [parts for parts, _ in found.found] == [(".claude", "skills", "plain", "SKILL.md")]
    code, _out, _err = run(capsys, "validate", "--root", root)
    assert code in (0, 1)


def test_a_huge_manifest_is_bounded(tmp_path):
    root = _marketplace(tmp_path / "repo", n=1, market={
        "plugins": [{"name": f"p{i}", "source": "./", "skills": [f"./s{j}" for j in range(50)]}
                    for i in range(2000)]})
    roots = manifest_roots(str(root)).roots
    assert len(roots) <= 2000


def test_a_gemini_cli_extension_s_skills_are_loaded_by_gemini_cli(tmp_path, capsys):
    root = tmp_path / "repo"
    write_skill(root, "lint-sql", "Lint SQL migrations before they merge.", layout="skills")
    code, out, _ = run(capsys, "list", "--root", root, "--agent", "gemini-cli", "--format", "json")
    assert [e["listed"] for e in json.loads(out)["skills"]] == ["not-loaded"]  # skills/ alone: not Gemini's folder
    (root / "gemini-extension.json").write_text(json.dumps({"name": "sql-tools", "version": "1.0.0"}),
                                                encoding="utf-8")
    assert discover_all(root).plugins == {"skills/lint-sql/SKILL.md": "gemini-extension.json:sql-tools"}
    for agent in ("gemini-cli", "claude-code"):  # Claude Code reads skills/ as its own folder
        code, out, _ = run(capsys, "list", "--root", root, "--agent", agent, "--format", "json")
        assert [e["listed"] for e in json.loads(out)["skills"]] == ["full"], agent
    code, out, _ = run(capsys, "list", "--root", root, "--agent", "codex", "--format", "json")
    assert [e["listed"] for e in json.loads(out)["skills"]] == ["not-loaded"]


def test_a_gemini_extension_does_not_make_skills_a_claude_plugin_namespace(tmp_path, capsys):
    """Two Claude Code project skills of one name still clash (SK002) when a Gemini CLI extension bundles one."""
    root = tmp_path / "repo"
    write_skill(root, "lint-sql", "Lint SQL migrations before they merge.", layout="skills")
    write_skill(root, "lint-sql", "Lint SQL in a second place.")
    (root / "gemini-extension.json").write_text('{"name": "sql-tools"}', encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--root", root, "--format", "json")
    assert "SK002" in [d["code"] for d in json.loads(out)["diagnostics"]]
    # while the same two under a Claude plugin manifest are two namespaces, as Claude Code loads them
    (root / "gemini-extension.json").unlink()
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "sql"}', encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--root", root, "--format", "json")
    assert "SK002" not in [d["code"] for d in json.loads(out)["diagnostics"]]
