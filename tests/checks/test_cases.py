"""AR9D2: the cases files, every problem with its line (via the evaluation parser)."""

from __future__ import annotations

from tests.support.validators_support import check, three_skills

GOOD = "version: 1\ncases:\n  - id: a\n    query: deploy to staging\n    expect: [deploy-staging]\n"


def test_default_cases_file_is_checked_when_present(tmp_path):
    three_skills(tmp_path)
    assert check(tmp_path, select=["AR9D2"]) == []
    (tmp_path / "search-cases.yaml").write_text(GOOD)
    assert check(tmp_path, select=["AR9D2"]) == []


def test_every_problem_is_reported_with_its_line(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "search-cases.yaml").write_text(
        "version: 2\ncases:\n  - id: a\n    query: x\n  - id: a\n    query: ''\n    nope: 1\n")
    diags = check(tmp_path, select=["AR9D2"])
    assert [(d.file, d.line, d.message) for d in diags] == [
        ("search-cases.yaml", 1, "version must be 1 (got 2)"),
        ("search-cases.yaml", 5, 'case "a": duplicate id'),
        ("search-cases.yaml", 6, 'case "a": query is required'),
        ("search-cases.yaml", 7, 'case "a": unknown key "nope" (want id, query, expect, avoid, role, tags)'),
    ]
    assert {(d.code, d.severity) for d in diags} == {("AR9D2", "error")}


def test_unknown_skills_and_roles_against_the_catalog(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\ncases:\n  - id: a\n    query: deploy\n    expect: [deploy-staging, ghost]\n"
        "    avoid: [phantom]\n  - id: b\n    query: refund\n    role: billing\n    expect: [issue-refund]\n")
    diags = check(tmp_path, select=["AR9D2"])
    assert [(d.line, d.message) for d in diags] == [
        (5, 'case "a" expects unknown skill "ghost"'),
        (6, 'case "a" avoids unknown skill "phantom"'),
        (9, 'case "b" sets role "billing", but no roles are configured'),
    ]


def test_configured_cases_files_and_a_missing_one(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/main.yaml").write_text(GOOD.replace("deploy-staging", "ghost"))
    (tmp_path / "skillsift.toml").write_text('[validate]\ncases = ["evals/main.yaml", "evals/gone.yaml"]\n')
    diags = check(tmp_path, select=["AR9D2", "AR9D0"])
    assert [(d.code, d.file, d.line) for d in diags] == [("AR9D2", "evals/main.yaml", 5),
                                                         ("AR9D0", "skillsift.toml", 2)]
    assert diags[1].message == 'validate.cases names "evals/gone.yaml", which does not exist'


def test_yaml_syntax_error_is_reported_alone(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "search-cases.yaml").write_text("version: [\n")
    [diag] = check(tmp_path, select=["AR9D2"])
    assert diag.code == "AR9D2" and diag.line == 2


def test_structure_and_unknown_skills_come_in_one_round_with_did_you_mean(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\ncases:\n  - id: a\n    qurey: deploy\n    expect: [deploy-stagin]\n"
        "  - id: b\n    query: refund\n    expect: [{id: issue-refnd, grade: 12}]\n    avoid: [zzz-nothing]\n")
    diags = check(tmp_path, select=["AR9D2"])
    assert [(d.line, d.message) for d in diags] == [
        (3, 'case "a": query is required'),
        (4, 'case "a": unknown key "qurey" (want id, query, expect, avoid, role, tags) (did you mean "query"?)'),
        (5, 'case "a" expects unknown skill "deploy-stagin" (did you mean "deploy-staging"?)'),
        (8, 'case "b" expects unknown skill "issue-refnd" (did you mean "issue-refund"?)'),
        (8, 'case "b": grade of "issue-refnd" must be between 1 and 9'),
        (9, 'case "b" avoids unknown skill "zzz-nothing"'),
    ]


def test_frontmatter_examples_are_read_only_for_the_skills_that_list_them(tmp_path):
    """Skipping the skills without ``examples`` finds what reading every skill's requests finds."""
    from skillsift.checks.cases import frontmatter_problems
    from skillsift.ranker.known import skill_requests
    from tests.conftest import write_skill
    from tests.support.validators_support import workspace

    three_skills(tmp_path)
    write_skill(tmp_path, "bad-examples", "Bad examples", extra="examples:\n  - '?!'\n  - query: x\n    also: 1\n")
    write_skill(tmp_path, "good-examples", "Good examples", extra="examples:\n  - ship the release\n")
    write_skill(tmp_path, "not-a-list", "Examples that are no list", extra="examples: 3\n")
    ws = workspace(tmp_path)
    found = frontmatter_problems(ws)
    want = [(d.file, d.line, d.message) for skill in ws.all_skills for d in skill_requests(skill, ws.root)[1]]
    assert [(d.file, d.line, d.message) for d in found] == want
    assert {d.file for d in found} == {".claude/skills/bad-examples/SKILL.md", ".claude/skills/not-a-list/SKILL.md"}
