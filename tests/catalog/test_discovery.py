"""Discovery of every agent's folders, bounded, and what it says when it serves nothing."""

from __future__ import annotations

import os
import re

import pytest

from skillsift.catalog import discovery
from skillsift.catalog.discovery import discover_all
from skillsift.catalog.load import load_catalog
from tests.conftest import write_skill
from tests.support.validators_support import check, raw_skill


def put(root, rel: str):
    """Write ``<root>/<rel>/SKILL.md`` named after its folder; returns its path."""
    parent, _, name = rel.rpartition("/")
    return write_skill(root, name, f"Does {name}.", layout=parent or ".")


def rels(result):
    return ["/".join(parts) for parts, _domain in result.found]


def test_every_agent_folder_and_nested_package_roots(tmp_path):
    for rel in (".github/skills/a", ".cursor/skills/b", ".gemini/skills/c", ".opencode/skills/d",
                "packages/web/.claude/skills/e", "packages/api/.codex/skills/f", "apps/x/y/.agents/skills/g",
                "skills/cat/sub/h", "plugins/solo", "plugins/tools/skills/i"):
        put(tmp_path, rel)
    result = discover_all(tmp_path)
    assert rels(result) == [
        ".cursor/skills/b/SKILL.md", ".gemini/skills/c/SKILL.md", ".github/skills/a/SKILL.md",
        ".opencode/skills/d/SKILL.md", "apps/x/y/.agents/skills/g/SKILL.md", "packages/api/.codex/skills/f/SKILL.md",
        "packages/web/.claude/skills/e/SKILL.md", "plugins/solo/SKILL.md", "plugins/tools/skills/i/SKILL.md",
        "skills/cat/sub/h/SKILL.md"]
    assert "packages/web/.claude/skills" in result.searched and result.notes == ()


def test_nested_walk_skips_dependencies_dot_folders_and_skill_folders(tmp_path):
    put(tmp_path, "node_modules/pkg/.claude/skills/dep")
    put(tmp_path, ".venv/lib/.claude/skills/venv")
    put(tmp_path, "a/b/c/d/e/.claude/skills/too-deep")  # 5 folders down: past the nested depth
    put(tmp_path, "a/b/c/d/.claude/skills/deep-enough")
    assert rels(discover_all(tmp_path)) == ["a/b/c/d/.claude/skills/deep-enough/SKILL.md"]


def test_folder_limit_per_root_is_a_note(tmp_path, monkeypatch):
    monkeypatch.setattr(discovery, "MAX_DIRS_PER_ROOT", 3)
    for name in ("a", "b", "c", "d"):
        (tmp_path / "skills" / f"cat-{name}").mkdir(parents=True)
    put(tmp_path, "skills/cat-d/late")
    result = discover_all(tmp_path)
    assert result.found == ()
    assert result.notes[0][0] == "skills" and "more than 3 folders" in result.notes[0][1]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_symlinked_skill_outside_the_repository_is_a_note(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    put(outside, "skills/leak")
    put(root, "skills/ok")
    (root / "skills" / "link").symlink_to(outside / "skills" / "leak")
    (root / ".claude").mkdir()
    (root / ".claude" / "skills").symlink_to(outside / "skills")
    found = check(root, select=["SK012"])
    assert [(d.file, d.severity) for d in found] == [(".claude/skills", "note"), ("skills/link", "note")]
    assert "symlink to outside the repository" in found[1].message and "not served" in found[1].message
    assert load_catalog(root).names == ("ok",)


def test_no_skill_says_so_and_lists_the_folders(tmp_path, capsys):
    from skillsift.cli import main

    put(tmp_path, "docs/guide")  # not a folder anyone reads
    assert main(["validate", "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "SK013 no skill found, so nothing was checked (searched: .agents/skills, .claude/skills" in out
    assert "docs/guide/SKILL.md" in out and "SK012" in out
    assert "no problems found" not in out
    assert main(["validate", "--root", str(tmp_path), "--strict"]) == 1


def test_hooks_with_nothing_to_check_fail(tmp_path, capsys):
    from skillsift.hooks import frontmatter, validate

    path = put(tmp_path, "docs/guide")
    assert frontmatter.main(["--root", str(tmp_path), str(path)]) == 1
    out = capsys.readouterr().out
    assert "SK012" in out and "was not checked" in out and "SK013" in out
    assert validate.main(["--root", str(tmp_path), str(path)]) == 1
    put(tmp_path, "skills/real")
    assert frontmatter.main(["--root", str(tmp_path), str(tmp_path / "skills/real/SKILL.md")]) == 0


def test_duplicate_across_roots_names_both_and_which_is_served(tmp_path):
    raw_skill(tmp_path, "deploy", "---\nname: deploy\ndescription: One.\n---\nb\n", ".agents/skills")
    raw_skill(tmp_path, "deploy", "---\nname: deploy\ndescription: Two.\n---\nb\n", ".github/skills")
    first, second = check(tmp_path, select=["SK002"])
    assert first.file == ".agents/skills/deploy/SKILL.md" and "this one is served (the first in path order)" in (
        first.message)
    assert second.file == ".github/skills/deploy/SKILL.md" and ".agents/skills/deploy/SKILL.md" in second.message


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_search_notes_a_skill_symlinked_outside(tmp_path, capsys):
    from skillsift.cli import main

    root, outside = tmp_path / "repo", tmp_path / "outside"
    put(outside, "skills/leak")
    put(root, "skills/ok")
    (root / "skills" / "link").symlink_to(outside / "skills" / "leak")
    assert main(["search", "ok", "--root", str(root)]) == 0
    err = capsys.readouterr().err
    assert "note: skills/link: SK012 skills/link is a symlink to outside the repository" in err


def test_hook_nothing_to_check_is_a_note_unless_configured(tmp_path, capsys):
    from skillsift.hooks import frontmatter

    path = put(tmp_path, "templates/blank")
    put(tmp_path, "skills/real")
    assert frontmatter.main(["--root", str(tmp_path), str(path)]) == 0  # a note fails nothing
    out = capsys.readouterr().out
    assert "SK012" in out and "(note)" in out and "was not checked" in out
    (tmp_path / "skillsift.toml").write_text('[validate.severity]\nSK012 = "error"\n')
    assert frontmatter.main(["--root", str(tmp_path), str(path)]) == 1
    (tmp_path / "skillsift.toml").write_text('[validate.severity]\nSK012 = "off"\n')
    assert frontmatter.main(["--root", str(tmp_path), str(path)]) == 0


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_the_stat_taken_on_finding_a_skill_is_its_stamp_and_links_are_stated_again(tmp_path, monkeypatch):
    from skillsift.cache import skills as catalog_cache
    from skillsift.catalog import load as catalog

    root = tmp_path / "repo"
    put(root, ".claude/skills/plain")
    put(root, ".claude/skills/target")
    put(root, ".claude/skills/linked")  # SKILL.md becomes a link to a file of its own folder
    skill_md = root / ".claude/skills/linked/SKILL.md"
    skill_md.rename(root / ".claude/skills/linked/README.md")
    skill_md.symlink_to("README.md")
    (root / ".claude/skills/dangling").mkdir()
    (root / ".claude/skills/dangling/SKILL.md").symlink_to(root / "nowhere.md")
    result = discover_all(root)
    assert rels(result) == [".claude/skills/linked/SKILL.md", ".claude/skills/plain/SKILL.md",
                            ".claude/skills/target/SKILL.md"]
    assert [rel for rel, _why in result.refused] == [".claude/skills/dangling/SKILL.md"]
    assert ["/".join(p) for p in result.stats] == [".claude/skills/plain/SKILL.md", ".claude/skills/target/SKILL.md"]
    for parts, info in result.stats.items():
        assert os.stat(root.joinpath(*parts)) == info
    # the catalog stamps the files found by their discovery's stat; a link is stat'ed (followed)
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SKILLSIFT_CACHE", raising=False)
    stamped: list = []
    real = catalog_cache.file_stamp
    monkeypatch.setattr(catalog_cache, "file_stamp", lambda path: stamped.append(str(path)) or real(path))
    skills, _problems = catalog.read_all_skills(root)
    assert [s.path for s in skills] == rels(result)
    assert stamped == [str(root / ".claude/skills/linked/SKILL.md")]


def test_validation_checks_the_skills_past_the_folder_limit(tmp_path, monkeypatch, capsys):
    """The limit decides what an agent lists, not what is checked: a skill past it is validated."""
    import random

    from tests.support.cli import run
    from tests.support.secret_samples import GENERATORS

    secret = GENERATORS["generic-credential"](random.Random(7))[1]
    monkeypatch.setattr(discovery, "MAX_DIRS_PER_ROOT", 3)
    for name in ("a", "b", "c", "d"):
        (tmp_path / "skills" / f"cat-{name}").mkdir(parents=True)
    late = tmp_path / "skills" / "cat-d" / "late"
    late.mkdir()
    (late / "SKILL.md").write_text(f"---\nname: late\ndescription: Late skill\n---\n{secret}\n", encoding="utf-8")
    assert discover_all(tmp_path).found == ()  # what an agent is served
    checked = discover_all(tmp_path, max_dirs=discovery.CHECK_MAX_DIRS)
    assert rels(checked) == ["skills/cat-d/late/SKILL.md"] and checked.beyond_cap == {checked.found[0][0]}
    code, out, _err = run(capsys, "validate", "--root", tmp_path)
    assert code == 1
    assert re.search(r"^skills/cat-d/late/SKILL.md:5(:\d+)?: AR001 ", out, re.M)  # the secret past the limit
    assert "more than 3 folders; the agents stop there" in out
    assert load_catalog(tmp_path).names == ()  # the catalog still stops where the agents stop
