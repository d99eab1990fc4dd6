"""A SKILL.md is read only as a file of its own skill folder (docs/checks-skills.md, "SK020 — a SKILL.md that is
a link").

Real files and links on disk; `ci` in a real git repository; the MCP server through the official client.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.ci.test_action import make_pull_request
from tests.conftest import write_skill
from tests.mcpserver.test_mcp import _error
from tests.support.cli import run
from tests.support.secret_samples import planted_lines

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")

ENV_LINE = "DEPLOY_TOKEN=very-private-value-7f3a"
GIT_CONFIG = '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0LWhlYWRlcg==\n'


def linked_repo(root: Path) -> Path:
    """Two good skills, a linked skill FOLDER (served) and four SKILL.md links that must not be read."""
    root.mkdir(parents=True, exist_ok=True)
    write_skill(root, "alpha", "Deploy the alpha service to staging", layout="skills")
    write_skill(root, "beta", "Refund a customer purchase", layout="skills")
    (root / ".env").write_text(ENV_LINE + "\n", encoding="utf-8")
    (root / ".git").mkdir(exist_ok=True)
    (root / ".git" / "config").write_text(GIT_CONFIG, encoding="utf-8")
    for name, target in (("envlink", "../../.env"), ("gitlink", "../../.git/config"),
                         ("dangling", "../../missing/SKILL.md"), ("other", "../alpha/SKILL.md")):
        (root / "skills" / name).mkdir()
        (root / "skills" / name / "SKILL.md").symlink_to(target)
    # .claude/skills/gamma -> ../../shared-skills/gamma: a common, legitimate layout
    write_skill(root, "gamma", "Rotate the gamma credentials", layout="shared-skills")
    (root / ".claude" / "skills").mkdir(parents=True)
    (root / ".claude" / "skills" / "gamma").symlink_to("../../shared-skills/gamma")
    return root


REFUSED = {"skills/envlink/SKILL.md": "../../.env", "skills/gitlink/SKILL.md": "../../.git/config",
           "skills/dangling/SKILL.md": "dangles", "skills/other/SKILL.md": "../alpha/SKILL.md"}


def test_validate_reports_every_link_it_will_not_read(tmp_path, capsys):
    root = linked_repo(tmp_path / "repo")
    code, out, err = run(capsys, "validate", "--root", root, "--format", "json")
    assert code == 1, err
    findings = json.loads(out)["diagnostics"]
    sk020 = {f["file"]: f for f in findings if f["code"] == "SK020"}
    assert sorted(sk020) == sorted(REFUSED)
    for file, words in REFUSED.items():
        assert sk020[file]["severity"] == "error" and words in sk020[file]["message"], sk020[file]
        assert "regular file" in sk020[file]["hint"]
    text = out + err
    assert "very-private-value" not in text and "extraheader" not in text and "c2VjcmV0" not in text


def test_every_command_serves_only_real_skills_and_the_linked_folder(tmp_path, capsys):
    root = linked_repo(tmp_path / "repo")
    code, out, err = run(capsys, "search", "deploy refund rotate token", "--root", root, "--format", "json",
                         "--limit", "20")
    assert code == 0, err
    assert sorted(r["name"] for r in json.loads(out)["results"]) == ["alpha", "beta", "gamma"]
    assert "SK020" in err and "very-private-value" not in out + err
    from skillsift.catalog.load import load_catalog

    catalog = load_catalog(root)
    assert sorted(catalog.names) == ["alpha", "beta", "gamma"]
    assert [d.file for d in catalog.diagnostics if d.code == "SK020"] == sorted(REFUSED)


def test_ci_fails_on_a_dangling_link_instead_of_skipping_it(tmp_path, capsys, monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)

    def add_link(project: Path) -> None:  # on a CI checkout .env is not there: the link dangles
        (project / ".claude" / "skills" / "leak").mkdir()
        (project / ".claude" / "skills" / "leak" / "SKILL.md").symlink_to("../../../.env")

    project = make_pull_request(tmp_path / "repo", add_link)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main", "--annotations")
    assert code != 0, out + err
    assert "::error file=.claude/skills/leak/SKILL.md" in out and "SK020" in out and "dangles" in out


def talk(root: Path, errlog: Path, script):
    from tests.mcpserver.test_mcp import talk as mcp_talk  # the official client

    return mcp_talk(root, errlog, script)


def test_the_mcp_server_never_serves_a_link_or_a_skill_holding_a_secret(tmp_path):
    pytest.importorskip("mcp")
    root = linked_repo(tmp_path / "repo")
    line, value = planted_lines()["github-token"]
    write_skill(root, "leaky", "Deploy with the leaky token", layout="skills", body=f"Use {line}\n")

    async def script(session):
        listing = await session.call_tool("search_skills", {"query": "", "limit": 100})
        found = await session.call_tool("find_skill", {"query": "deploy token credentials", "limit": 20})
        loads = {name: await session.call_tool("load_skill", {"name": name})
                 for name in ("envlink", "gitlink", "dangling", "other", "leaky", "gamma")}
        return listing, found, loads

    listing, found, loads = talk(root, tmp_path / "err.txt", script)
    names = [r["name"] for r in json.loads(listing.content[0].text)["results"]]
    assert names == ["alpha", "beta", "gamma"]
    assert "leaky" not in [r["name"] for r in json.loads(found.content[0].text)["results"]]
    for name in ("envlink", "gitlink", "dangling", "other", "leaky"):
        reply = loads[name]
        assert _error(reply) and "no skill named" in reply.content[0].text
    assert not _error(loads["gamma"]) and "Rotate the gamma credentials" in loads["gamma"].content[0].text
    everything = json.dumps([listing.model_dump(), found.model_dump()] + [r.model_dump() for r in loads.values()])
    assert "very-private-value" not in everything and "extraheader" not in everything and value not in everything
    stderr = (tmp_path / "err.txt").read_text(encoding="utf-8")
    assert "skills/leaky/SKILL.md holds a secret (AR001)" in stderr and value not in stderr


def test_a_link_swapped_in_after_discovery_is_not_followed(tmp_path):
    from skillsift.mcpserver.service import SkillService, ToolRefused

    root = linked_repo(tmp_path / "repo")
    service = SkillService(str(root), warn=lambda m: None, recheck_interval=3600)
    assert "Deploy the alpha" in service.load_skill("alpha")
    skill_md = root / "skills" / "alpha" / "SKILL.md"
    skill_md.unlink()
    skill_md.symlink_to("../../.git/config")
    with pytest.raises(ToolRefused) as refused:
        service.load_skill("alpha")
    assert "extraheader" not in str(refused.value)
