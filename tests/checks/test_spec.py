"""SK101-SK108: the Agent Skills specification's rules.

The first table holds the cases of the specification's reference validator (skills-ref's
own tests: upper case, 70 characters, leading and doubled hyphens, an underscore, a
folder mismatch, unknown fields, every allowed field, i18n names, a 1,100-character
description, compatibility, NFKC) as (folder, frontmatter, expected codes).  The corpus
test runs skills-ref itself and compares skill by skill.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from skillsift.catalog.frontmatter import split_frontmatter
from skillsift.catalog.load import parse_skill
from skillsift.checks.frontmatter import key_lines
from skillsift.checks.spec import check_spec, name_problems, relative_links, suggest_name
from tests.conftest import corpora
from tests.support.validators_support import check, raw_skill

SPEC = ("SK101", "SK102", "SK103", "SK104", "SK105", "SK106", "SK107", "SK108")

# (folder, frontmatter lines, expected SK1xx codes)
REFERENCE_CASES = [
    ("my-skill", "name: my-skill\ndescription: A test skill", []),
    ("MySkill", "name: MySkill\ndescription: A test skill", ["SK101"]),
    ("a" * 70, f"name: {'a' * 70}\ndescription: A test skill", ["SK101"]),
    ("-my-skill", "name: -my-skill\ndescription: A test skill", ["SK101"]),
    ("my--skill", "name: my--skill\ndescription: A test skill", ["SK101"]),
    ("my_skill", "name: my_skill\ndescription: A test skill", ["SK101"]),
    ("wrong-name", "name: correct-name\ndescription: A test skill", ["SK102"]),
    ("my-skill", "name: my-skill\ndescription: A test skill\nunknown_field: x", ["SK105"]),
    ("my-skill", "name: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test", []),
    ("my-skill", "name: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)", []),
    ("my-skill", "name: my-skill\ndescription: A test skill\nallowed-tools: [Read, Write]", []),
    ("技能", "name: 技能\ndescription: A skill with Chinese name", []),
    ("мой-навык", "name: мой-навык\ndescription: A skill with Russian name", []),
    ("НАВЫК", "name: НАВЫК\ndescription: Russian upper case", ["SK101"]),
    ("my-skill", f"name: my-skill\ndescription: {'x' * 1100}", ["SK103"]),
    ("my-skill", "name: my-skill\ndescription: A test skill\ncompatibility: Requires Python 3.11+", []),
    ("my-skill", f"name: my-skill\ndescription: A test skill\ncompatibility: {'x' * 550}", ["SK104"]),
    ("café", "name: cafe\u0301\ndescription: A test skill", []),  # NFKC: both sides compose
    # ours: spaces and capitals, both rules at once; a list for compatibility; metadata shape
    ("pdf", "name: PDF Tools\ndescription: d", ["SK101", "SK102"]),
    ("my-skill", "name: my-skill\ndescription: d\ncompatibility: [a, b]", ["SK104"]),
    ("my-skill", "name: my-skill\ndescription: d\nmetadata: [a]", ["SK106"]),
    ("my-skill", "name: my-skill\ndescription: d\nmetadata:\n  a:\n    b: c", ["SK106"]),
    ("my-skill", "name: my-skill\ndescription: d\nwhen_to_use: x\ntriggers: [a]\ndisable-model-invocation: true", []),
]


def spec_codes(folder: str, front: str, body: str = "# Body\n", root: Path | None = None) -> list[str]:
    text = f"---\n{front}\n---\n{body}"
    rel = f"skills/{folder}/SKILL.md"
    skill, problems = parse_skill(text, folder, path=rel)
    assert problems == []
    block = split_frontmatter(text)
    lines = key_lines(block.raw, block.yaml_start_line)
    from skillsift.catalog.agents import known_fields

    found = check_spec(rel, text, skill.frontmatter, known_fields=known_fields(), key_line=lambda k: lines.get(k, 1),
                       body=block.body, body_line=block.body_line,
                       exists=(lambda r: (root / r).exists()) if root else None)
    return sorted({d.code for d in found})


@pytest.mark.parametrize("folder, front, expected", REFERENCE_CASES)
def test_reference_validator_cases(folder, front, expected):
    assert spec_codes(folder, front) == expected


def test_name_messages_and_fixes_are_concrete(tmp_path):
    raw_skill(tmp_path, "pdf-tools", "---\nname: PDF  Tools!\ndescription: Fill PDF forms.\n---\nbody\n", "skills")
    found = [d for d in check(tmp_path, select=SPEC)]
    fmt, folder = found
    assert (fmt.code, fmt.file, fmt.line, fmt.severity) == ("SK101", "skills/pdf-tools/SKILL.md", 2, "warning")
    assert "has capitals" in fmt.message and "' '" in fmt.message and "'!'" in fmt.message
    assert fmt.hint == "rename it to `name: pdf-tools` (and the folder to match)"
    assert folder.code == "SK102" and folder.hint == "set `name: pdf-tools`"
    assert name_problems("a" * 65) == ["is 65 characters, over the 64 allowed"]
    assert suggest_name("--My__Great Skill--") == "my-great-skill"


def test_strict_fails_on_spec_warnings(tmp_path, capsys):
    from skillsift.cli import main

    raw_skill(tmp_path, "demo", "---\nname: Demo\ndescription: Deploy the demo.\n---\nbody\n", "skills")
    assert main(["validate", "--root", str(tmp_path), "--select", "SK1"]) == 0
    assert "SK101" in capsys.readouterr().out
    assert main(["validate", "--root", str(tmp_path), "--select", "SK1", "--strict"]) == 1


def test_line_count_and_unknown_field_are_notes(tmp_path):
    body = "line\n" * 520
    raw_skill(tmp_path, "demo", f"---\nname: demo\ndescription: d\nowner: me\n---\n{body}", "skills")
    found = {d.code: d for d in check(tmp_path, select=SPEC)}
    assert found["SK107"].severity == "note" and "525 lines" in found["SK107"].message
    assert (found["SK105"].severity, found["SK105"].line) == ("note", 4)
    assert "metadata" in found["SK105"].hint


def test_unknown_field_depends_on_the_targeted_agents(tmp_path):
    raw_skill(tmp_path, "demo", "---\nname: demo\ndescription: d\nwhen_to_use: x\n---\nbody\n", "skills")
    assert check(tmp_path, select=["SK105"]) == []
    (tmp_path / "skillsift.toml").write_text('[validate]\nagents = ["codex"]\n')
    [diag] = check(tmp_path, select=["SK105"])
    assert '"when_to_use"' in diag.message


def test_missing_linked_file_is_sk108_at_its_line(tmp_path):
    body = ("# Demo\n\nSee [the guide](references/guide.md) and [api](references/api.md#top).\n"
            "![chart](assets/chart.png \"Chart\")\n[site](https://example.com) [top](#top)\n"
            "```\n[in code](references/none.md)\n```\n`[span](references/no.md)`\n[ref]: scripts/run.sh\n")
    path = raw_skill(tmp_path, "demo", f"---\nname: demo\ndescription: d\n---\n{body}", "skills")
    (path.parent / "references").mkdir()
    (path.parent / "references" / "guide.md").write_text("g")
    found = check(tmp_path, select=["SK108"])
    assert [(d.line, d.message.split(" points")[0]) for d in found] == [
        (7, "link to references/api.md"), (8, "link to assets/chart.png"), (14, "link to scripts/run.sh")]
    assert found[0].hint.startswith("create skills/demo/references/api.md or fix the link")


def test_relative_links_skip_urls_anchors_and_code():
    body = "[a](http://x) [b](mailto:x) [c](#x) [d](/abs) [e](<with space.md>) [f](x%20y.md)\n"
    assert relative_links(body, 5) == [(5, "with space.md"), (5, "x y.md")]


def test_frontmatter_hook_reports_spec_rules(tmp_path):
    from skillsift.hooks import frontmatter

    path = raw_skill(tmp_path, "demo", "---\nname: Demo\ndescription: d\n---\nbody\n", "skills")
    assert frontmatter.main(["--root", str(tmp_path), str(path)]) == 0  # warnings do not fail a hook


NAME_RULES = ("exceeds", "lowercase", "hyphen", "invalid characters", "must match skill name",
              "Compatibility exceeds", "Field 'compatibility'")


@pytest.mark.slow  # the whole corpus of real skills
def test_corpus_sk101_to_sk104_agree_with_the_reference_validator(tmp_path):
    """On every corpus skill laid out as skills/<folder>/SKILL.md, skillsift's SK101-SK104 set
    equals skills-ref's set for those rules on every file skills-ref can parse.  skills-ref's
    YAML library refuses flow collections (``tags: [a, b]``) that agents read, so it never
    reaches the name rules there; skillsift checks those files too (docs/validate.md)."""
    corpus = corpora()
    if sys.version_info < (3, 11):
        pytest.importorskip("skills_ref", reason="skills-ref needs Python 3.11 (test extra)")
    from skills_ref.validator import validate

    files = sorted(corpus.glob("*/*/SKILL.md"))
    assert len(files) > 2000
    reference, unparsed, ours = set(), set(), set()
    for path in files:
        key = path.relative_to(corpus).as_posix()
        errors = validate(path.parent)
        if any(any(rule in e for rule in NAME_RULES) for e in errors):
            reference.add(key)
        if any(e.startswith("Invalid YAML") for e in errors):
            unparsed.add(key)
        text = path.read_text(encoding="utf-8")
        rel = f"skills/{path.parent.name}/SKILL.md"
        skill, problems = parse_skill(text, path.parent.name, path=rel)
        if problems or not skill.frontmatter:
            continue
        found = check_spec(rel, text.replace("\r\n", "\n"), skill.frontmatter, known_fields=(),
                           key_line=lambda _k: 1)
        if any(d.code in ("SK101", "SK102", "SK103", "SK104") for d in found):
            ours.add(key)
    assert len(reference) > 150
    assert reference - ours == set()
    assert ours - reference <= unparsed


def test_frontmatter_hook_catches_a_duplicate_name(tmp_path, capsys):
    from skillsift.hooks import frontmatter

    raw_skill(tmp_path, "deploy", "---\nname: deploy\ndescription: Deploy the app.\n---\nbody\n", "skills")
    copy = raw_skill(tmp_path, "deploy-copy", "---\nname: deploy\ndescription: Deploy it again.\n---\nbody\n",
                     "skills")
    assert frontmatter.main(["--root", str(tmp_path), str(copy)]) == 1
    out = capsys.readouterr().out
    assert "SK002" in out and "skills/deploy/SKILL.md" in out
    (tmp_path / "skillsift.toml").write_text('[validate.severity]\nSK002 = "warning"\nSK102 = "off"\n')
    assert frontmatter.main(["--root", str(tmp_path), str(copy)]) == 0
    assert "SK102" not in capsys.readouterr().out
