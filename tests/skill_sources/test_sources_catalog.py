"""Source skills everywhere the catalog is used: search, list, eval, validate, the MCP server (docs/sources.md).

Each test makes a real git repository of shared skills and a project whose ``[[sources]]`` names it,
locks it with ``skillsift sources update`` and then runs the other commands through the real CLI.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_skill

SECRET = "AKIAQWERTYUIOPASDFGH"  # an AWS access key id shape (AR001)


def _git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", "-c",
                           "commit.gpgsign=false", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def _sk(project: Path, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SKILLSIFT_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "skillsift", *args, "--root", str(project)], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def setup(tmp_path):
    org = tmp_path / "org"
    write_skill(org, "issue-refund", "Refund a customer order and email the receipt", layout="skills")
    write_skill(org, "deploy-prod", "Deploy a service to production with a rollout", layout="skills")
    write_skill(org, "release-notes", "Draft release notes from merged pull requests", layout="skills")
    _git(tmp_path, "init", "-q", str(org))
    _git(org, "add", "-A")
    _git(org, "commit", "-qm", "v1")
    _git(org, "tag", "v1")
    project = tmp_path / "project"
    write_skill(project, "release-notes", "Write the changelog of a version for users")  # clashes with org's
    write_skill(project, "triage-bug", "Triage a bug report and label it")
    (project / "skillsift.toml").write_text(
        f'[[sources]]\nname = "org"\ngit = "{org.as_uri()}"\nrev = "v1"\nsubdir = "skills"\n', encoding="utf-8")
    (project / "cases.yaml").write_text(
        "version: 1\nk: 3\ncases:\n"
        "  - id: refund\n    query: refund the customer order\n    expect: [issue-refund]\n"
        "  - id: bug\n    query: triage this bug report\n    expect: [triage-bug]\n", encoding="utf-8")
    cache = tmp_path / "cache"
    done = _sk(project, cache, "sources", "update")
    assert done.returncode == 0, done.stderr
    return tmp_path, org, project, cache


def _find_skill(project: Path, cache: Path, tmp: Path) -> str:
    """``find_skill`` through the official MCP client against ``skillsift mcp`` (the JSON text it answers)."""
    from tests.mcpserver.test_mcp import _text, talk

    async def script(session):
        return await session.call_tool("find_skill", {"query": "refund the customer order", "limit": 5})

    text = _text(talk(project, tmp / "mcp-stderr.txt", script, SKILLSIFT_CACHE_DIR=str(cache)))
    assert json.loads(text)["results"][0]["source"] == "org"
    return text


def test_search_list_and_eval_see_the_source_and_name_it(setup):
    _tmp, _org, project, cache = setup
    found = _sk(project, cache, "search", "refund the customer order", "--format", "json")
    assert found.returncode == 0, found.stderr
    first = json.loads(found.stdout)["results"][0]
    assert (first["name"], first["source"]) == ("issue-refund", "org")
    listing = json.loads(_sk(project, cache, "list", "--agent", "claude-code", "--format", "json").stdout)
    by_name = {entry["name"]: entry for entry in listing["skills"]}
    assert by_name["issue-refund"]["source"] == "org" and by_name["issue-refund"]["listed"] == "full"
    assert "source" not in by_name["triage-bug"]
    # the name clash: the repository's own release-notes wins, the source's is not served
    assert by_name["release-notes"]["path"] == ".claude/skills/release-notes/SKILL.md"
    assert "source" not in by_name["release-notes"]
    assert sum(entry["name"] == "release-notes" for entry in listing["skills"]) == 1
    evaluated = _sk(project, cache, "eval", str(project / "cases.yaml"), "--format", "json")
    assert evaluated.returncode == 0, evaluated.stderr
    assert json.loads(evaluated.stdout)["modes"]["lexical"]["top1"] == 1


def test_validate_reports_the_clash_and_keeps_source_style_as_notes(setup):
    _tmp, _org, project, cache = setup
    proc = _sk(project, cache, "validate", "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    findings = json.loads(proc.stdout)["diagnostics"]
    clash = [d for d in findings if d["code"] == "SK054"]
    assert len(clash) == 1 and clash[0]["severity"] == "warning"
    assert "the repository's own .claude/skills/release-notes/SKILL.md" in clash[0]["message"]
    on_sources = [d for d in findings if d.get("file", "").startswith(".skillsift/local/sources/")]
    assert on_sources and all(d["severity"] == "note" for d in on_sources if d["code"] != "SK054")


def test_the_same_lock_ranks_the_same_whether_fetched_anew_or_read_from_the_cache(setup):
    """search, eval, list and the MCP server's find_skill: the same bytes from a fresh fetch as from the cache."""
    tmp, _org, project, cache = setup

    def outputs(cache_dir: Path) -> list[str]:
        runs = [("search", "refund the customer order", "--format", "json"),
                ("search", "deploy to production", "--format", "json"),
                ("eval", str(project / "cases.yaml"), "--format", "json"),
                ("list", "--agent", "claude-code", "--format", "json")]
        hashes = [hashlib.sha256(_sk(project, cache_dir, *args).stdout.encode()).hexdigest() for args in runs]
        return hashes + [hashlib.sha256(_find_skill(project, cache_dir, tmp).encode()).hexdigest()]

    warm = outputs(cache)
    fresh = tmp / "fresh-cache"
    assert _sk(project, fresh, "sources", "fetch").returncode == 0
    import shutil

    shutil.rmtree(project / ".skillsift" / "local" / "sources")  # mounted again from the fresh cache
    assert outputs(fresh) == warm


def test_a_source_not_fetched_is_reported_and_ranks_nothing(setup):
    tmp, _org, project, _cache = setup
    empty = tmp / "empty-cache"

    assert _sk(project, _cache, "list", "--agent", "codex").returncode == 0  # mounted from the warm cache
    assert (project / ".skillsift" / "local" / "sources" / "org").is_dir()
    found = _sk(project, empty, "search", "refund the customer order", "--format", "json")
    assert found.returncode == 0
    assert "SK053" in found.stderr and "skillsift sources fetch" in found.stderr
    assert all(hit["name"] != "issue-refund" for hit in json.loads(found.stdout)["results"])
    proc = _sk(project, empty, "validate")
    assert proc.returncode == 0 and "SK053" in proc.stdout  # a warning: a commit hook never fetches
    assert not (project / ".skillsift" / "local" / "sources" / "org").exists()  # nothing stale is served


def test_a_changed_path_source_skill_is_refused_and_fails_validate(tmp_path):
    shared = tmp_path / "shared"
    write_skill(shared, "lint-python", "Lint Python code with ruff", layout="skills")
    project = tmp_path / "project"
    write_skill(project, "triage-bug", "Triage a bug report and label it")
    (project / "skillsift.toml").write_text('[[sources]]\nname = "shared"\npath = "../shared"\nsubdir = "skills"\n',
                                            encoding="utf-8")
    cache = tmp_path / "cache"
    assert _sk(project, cache, "sources", "update").returncode == 0
    assert json.loads(_sk(project, cache, "search", "lint python", "--format", "json").stdout)["results"][0][
        "name"] == "lint-python"
    write_skill(shared, "lint-python", "Lint Python code with ruff, and also paint the fence", layout="skills")
    found = _sk(project, cache, "search", "lint python", "--format", "json")
    assert all(hit["name"] != "lint-python" for hit in json.loads(found.stdout)["results"])
    assert "SK050" in found.stderr and "differs from its digest" in found.stderr
    proc = _sk(project, cache, "validate", "--format", "json")
    assert proc.returncode == 1
    assert [d["severity"] for d in json.loads(proc.stdout)["diagnostics"] if d["code"] == "SK050"] == ["error"]


def test_a_lock_that_disagrees_with_the_config_fails_validate(setup):
    _tmp, org, project, cache = setup
    (project / "skillsift.toml").write_text(
        f'[[sources]]\nname = "org"\ngit = "{org.as_uri()}"\nrev = "main"\nsubdir = "skills"\n', encoding="utf-8")
    proc = _sk(project, cache, "validate")
    assert proc.returncode == 1 and "SK051" in proc.stdout


def test_a_secret_in_a_fetched_skill_fails_validate_and_is_never_served(tmp_path, setup, monkeypatch):
    _tmp, org, project, cache = setup
    skill = org / "skills" / "deploy-prod" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + f"\naws_access_key_id = {SECRET}\n", encoding="utf-8")
    _git(org, "commit", "-qam", "a secret")
    _git(org, "tag", "-f", "v1")
    assert _sk(project, cache, "sources", "update").returncode == 0
    proc = _sk(project, cache, "validate", "--format", "json")
    assert proc.returncode == 1
    secrets = [d for d in json.loads(proc.stdout)["diagnostics"] if d["code"] == "AR001"]
    assert secrets and all(d["severity"] == "error" for d in secrets)
    assert all(d["file"].startswith(".skillsift/local/sources/org/deploy-prod/") for d in secrets)

    from skillsift.mcpserver.service import SkillService, ToolRefused

    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(cache))  # (the session's own value comes back after the test)
    service = SkillService(str(project))
    names = [hit["name"] for hit in service.find_skill("deploy a service to production", limit=10)["results"]]
    assert "deploy-prod" not in names
    with pytest.raises(ToolRefused):
        service.load_skill("deploy-prod")
    assert "issue-refund" in service.load_skill("issue-refund")


def test_the_validate_hook_fails_when_the_lock_and_the_config_disagree_and_never_fetches(setup):
    tmp, org, project, _cache = setup
    (project / "skillsift.toml").write_text(
        f'[[sources]]\nname = "org"\ngit = "{org.as_uri()}"\nrev = "main"\nsubdir = "skills"\n', encoding="utf-8")
    empty = tmp / "hook-cache"
    env = {**os.environ, "SKILLSIFT_CACHE_DIR": str(empty)}
    proc = subprocess.run([sys.executable, "-m", "skillsift", "hook", "validate", "skillsift.toml"], cwd=project,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "SK051" in proc.stdout
    assert not (empty / "sources").exists()  # nothing was fetched


@pytest.mark.parametrize("link", [".skillsift/local", ".skillsift/local/sources"])
def test_a_committed_link_on_the_way_to_the_mount_folder_is_never_written_through(tmp_path, link):
    """A repository may commit a link where the mounted sources go: nothing outside the repository is
    written or removed. `.skillsift/local` itself is refused by the config (exit 1, as for the index);
    a link below it leaves the sources unmounted, with a finding that says why."""
    shared = tmp_path / "shared"
    write_skill(shared, "lint-python", "Lint Python code with ruff", layout="skills")
    outside = tmp_path / "outside"
    (outside / "sources" / "precious").mkdir(parents=True)
    (outside / "sources" / "precious" / "keep.txt").write_text("keep me\n", encoding="utf-8")
    (outside / "precious").mkdir()
    (outside / "precious" / "keep.txt").write_text("keep me\n", encoding="utf-8")
    project = tmp_path / "project"
    write_skill(project, "triage-bug", "Triage a bug report and label it")
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, project / link)
    (project / "skillsift.toml").write_text('[[sources]]\nname = "shared"\npath = "../shared"\nsubdir = "skills"\n',
                                            encoding="utf-8")
    before = sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*"))
    cache = tmp_path / "cache"
    for args in (("sources", "update"), ("search", "lint python", "--format", "json"), ("validate",)):
        proc = _sk(project, cache, *args)
        said = proc.stdout + proc.stderr
        if link == ".skillsift/local":
            assert proc.returncode in (1, 2) and "replace the link .skillsift/local" in said, said  # validate: AR9D0, 2
        elif args[0] != "sources":
            assert proc.returncode == 0, said
            assert "SK053" in said and "is a link or not a folder" in said
    assert sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == before
    assert (outside / "precious" / "keep.txt").read_text(encoding="utf-8") == "keep me\n"
