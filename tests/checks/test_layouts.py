"""False alarms from real layouts: each planted as a public repository lays it out, with its near miss."""

from __future__ import annotations

import os

import pytest

from tests.support.validators_support import check, codes, raw_skill

SKILL = "---\nname: {name}\ndescription: {description}\n---\n{body}"
symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")


def skill(root, folder, description="Does things. Use when things need doing.", body="Body.\n",
          layout=".claude/skills", name=None):
    return raw_skill(root, folder, SKILL.format(name=name or folder, description=description, body=body), layout)


@symlinks
def test_a_skill_folder_served_through_a_symlink_is_served(tmp_path):
    skill(tmp_path, "review", layout=".")  # the real folder at the top: review/SKILL.md
    (tmp_path / ".claude/skills").mkdir(parents=True)
    (tmp_path / ".claude/skills/review").symlink_to("../../review")
    found = check(tmp_path)
    assert "SK012" not in codes(found) and "SK013" not in codes(found)
    # near miss: the same folder with no link to it is not served, and says so
    os.unlink(tmp_path / ".claude/skills/review")
    skill(tmp_path, "other")
    assert [d.file for d in check(tmp_path, select=["SK012"])] == ["review/SKILL.md"]


@symlinks
def test_a_link_through_a_symlinked_folder_resolves_as_the_os_does(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared/style.md").write_text("x\n")
    skill(tmp_path, "review", layout="shared/skills", body="See [style](../../style.md).\n")
    (tmp_path / ".claude/skills").mkdir(parents=True)
    (tmp_path / ".claude/skills/review").symlink_to("../../shared/skills/review")
    # lexically .claude/skills/review/../../style.md is .claude/style.md, which does not exist;
    # the OS follows the link first and finds shared/style.md
    assert "SK108" not in codes(check(tmp_path, select=["SK108"]))
    os.unlink(tmp_path / "shared/style.md")
    (missing,) = check(tmp_path, select=["SK108"])
    assert missing.code == "SK108" and "shared/style.md" in missing.message


def test_identical_copies_in_plugins_are_one_note_and_plugins_do_not_clash_with_the_repository(tmp_path):
    for plugin in ("alpha", "beta", "gamma"):
        skill(tmp_path, "lint-fix", layout=f"plugins/{plugin}/skills")
    skill(tmp_path, "lint-fix", description="The repository's own lint fixer. Use when linting.")
    found = check(tmp_path, select=["SK002", "SK014"])
    assert codes(found) == ["SK014"]
    (note,) = found
    assert note.severity == "note" and note.file == "plugins/alpha/skills/lint-fix/SKILL.md"
    assert "plugins/beta/skills/lint-fix/SKILL.md" in note.message and "gamma" in note.message
    # near miss: two different skills of one name in one namespace still clash (an error on each)
    skill(tmp_path, "lint-fix", description="Another lint fixer. Use when linting.", layout="skills")
    clash = [d for d in check(tmp_path, select=["SK002"])]
    assert [d.file for d in clash] == [".claude/skills/lint-fix/SKILL.md", "skills/lint-fix/SKILL.md"]
    assert {d.severity for d in clash} == {"error"}


def test_names_equal_under_nfkc_case_or_look_alike_letters_clash(tmp_path):
    skill(tmp_path, "deploy")
    skill(tmp_path, "deploy-2", name="Dеploy", description="Other deploys. Use when shipping.")  # Cyrillic е
    found = check(tmp_path, select=["SK002"])
    assert len(found) == 2 and "reads the same as" in found[1].message
    # near miss: a different name in another script is its own name
    skill(tmp_path, "deploy-2", name="развернуть", description="Other deploys. Use when shipping.")
    assert check(tmp_path, select=["SK002"]) == []


def test_dot_folders_are_skipped_but_sk013_names_what_it_skipped(tmp_path):
    skill(tmp_path, "hidden", layout=".internal/skills")
    (nothing,) = check(tmp_path, select=["SK013"])
    assert ".internal/skills/hidden/SKILL.md" in nothing.message
    assert '[catalog] skills = [".internal/skills"]' in nothing.hint
    # near miss: a served skill in .claude/skills is no skipped one
    skill(tmp_path, "shown")
    assert check(tmp_path, select=["SK013"]) == []


def test_use_proactively_when_is_a_when_clause(tmp_path):
    body = "## When to use\n\nReach for it whenever a pull request touches the billing schema.\n"
    skill(tmp_path, "guard", description="Guards billing. Use proactively when a schema changes.", body=body)
    assert check(tmp_path, select=["SK008"]) == []
    skill(tmp_path, "guard", description="Guards billing tables.", body=body)  # near miss: no when-clause
    assert codes(check(tmp_path, select=["SK008"])) == ["SK008"]


def test_the_frontmatter_hook_reports_nothing_but_a_note_on_a_template_it_did_not_check(tmp_path, capsys):
    from skillsift.hooks import frontmatter

    template = raw_skill(tmp_path, "template", "---\nname: Template Name\ndescription: TODO\n---\n", ".")
    skill(tmp_path, "real")
    assert frontmatter.main(["--root", str(tmp_path), "--format", "json", str(template)]) == 0
    import json

    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [(d["code"], d["severity"]) for d in found] == [("SK012", "note")]


def test_validate_and_list_agree_on_which_duplicate_is_served(tmp_path):
    from skillsift.catalog.agents import BY_NAME
    from skillsift.catalog.listing import build_listing
    from tests.support.validators_support import workspace

    skill(tmp_path, "deploy", description="One. Use when deploying.", layout=".claude/skills")
    skill(tmp_path, "deploy", description="Two. Use when deploying.", layout="skills")
    skill(tmp_path, "deploy", description="Plugin's. Use when deploying.", layout="plugins/ops/skills")
    found = check(tmp_path, select=["SK002"])
    served_by_validate = [d.file for d in found if "this one is served" in d.message]
    listing = build_listing(workspace(tmp_path).all_skills, BY_NAME["claude-code"])
    loaded = sorted(e.path for e in listing.entries if e.listed != "not-loaded")
    assert served_by_validate == [".claude/skills/deploy/SKILL.md"]
    # the plugin's skill is its own (ops:deploy): loaded beside the served repository skill, and no SK002
    assert loaded == [".claude/skills/deploy/SKILL.md", "plugins/ops/skills/deploy/SKILL.md"]
    assert "plugins/ops/skills/deploy/SKILL.md" not in [d.file for d in found]


def test_sk009_sees_descriptions_one_word_apart(tmp_path):
    skill(tmp_path, "pdf-merge", description="Merge PDF files into one document")
    skill(tmp_path, "pdf-split", description="Split PDF files into one document")
    found = check(tmp_path, select=["SK009"])
    assert len(found) == 2 and "one word apart" in found[0].message
    # near miss: two words apart is two skills
    skill(tmp_path, "pdf-split", description="Split PDF files into many pages")
    assert check(tmp_path, select=["SK009"]) == []
