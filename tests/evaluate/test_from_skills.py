"""Cases derived from the skills' frontmatter `examples` / `not_for`, and `skillsift eval --from-skills`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillsift.catalog.load import parse_skill
from skillsift.evaluate.cases import Case, CaseFile, Expected
from skillsift.evaluate.from_skills import (
    RoleCheck,
    derive_cases,
    examples_error,
    merge_cases,
    skill_cases,
)
from tests.conftest import ACME
from tests.support.cli import run

KNOWN = ("issue-refund", "chargeback-dispute", "invoice-correction", "deploy-staging")
BILLING = {"issue-refund", "chargeback-dispute", "invoice-correction"}


def resolve(role):
    if role == "billing":
        return BILLING
    raise KeyError(role)


ROLES = RoleCheck(configured=True, resolve=resolve)


def skill_from(front: str, name: str = "issue-refund"):
    text = f"---\nname: {name}\ndescription: Refund an order\n{front}---\n\n# Body\n"
    skill, diags = parse_skill(text, name, path=f".claude/skills/{name}/SKILL.md")
    assert diags == []
    return skill, text


def derive(front: str, **kwargs):
    skill, text = skill_from(front)
    return skill_cases(skill, text, known=KNOWN, roles=kwargs.get("roles", ROLES))


# -- derivation ------------------------------------------------------------------------------------


def test_strings_and_mappings_become_cases():
    cases, problems = derive(
        "examples:\n"
        "  - refund the duplicate charge\n"
        "  - query: customer was billed twice\n"
        "    role: billing\n"
        "    also: [invoice-correction]\n"
        "not_for:\n"
        "  - the bank disputes the payment\n"
        "  - query: a chargeback arrived\n"
        "    instead: chargeback-dispute\n"
    )
    assert problems == []
    assert [(c.id, c.query, c.expect_ids, c.avoid, c.role, c.tags) for c in cases] == [
        ("issue-refund/example-1", "refund the duplicate charge", ("issue-refund",), (), "", ("from-skills",)),
        ("issue-refund/example-2", "customer was billed twice", ("issue-refund", "invoice-correction"), (),
         "billing", ("from-skills",)),
        ("issue-refund/not-for-1", "the bank disputes the payment", (), ("issue-refund",), "", ("from-skills",)),
        ("issue-refund/not-for-2", "a chargeback arrived", ("chargeback-dispute",), ("issue-refund",), "",
         ("from-skills",)),
    ]
    assert cases[2].negative and not cases[3].negative
    assert [c.line for c in cases] == [5, 6, 10, 11]  # lines of the entries in SKILL.md


def test_one_string_is_one_example():
    cases, problems = derive('examples: "refund order 1042, the customer asked twice"\n')
    assert problems == []
    assert [(c.id, c.query) for c in cases] == [
        ("issue-refund/example-1", "refund order 1042, the customer asked twice")]


def test_no_examples_no_cases():
    assert derive("tags: [billing]\n") == ([], [])
    assert derive("examples:\n") == ([], [])  # null: nothing listed


def problem_lines(front: str, **kwargs):
    cases, problems = derive(front, **kwargs)
    return cases, [(d.line, d.message) for d in problems]


def test_wrong_types_are_reported_with_their_lines():
    cases, problems = problem_lines(
        "examples:\n"          # line 4
        "  - 42\n"             # 5
        "  - [a, list]\n"      # 6
        "  - ''\n"             # 7
        "  - true\n"           # 8
        "  - fine query\n"     # 9
        "not_for: {query: x}\n"  # 10
    )
    assert [c.id for c in cases] == ["issue-refund/example-5"]
    assert problems == [
        (5, 'skill "issue-refund": examples entry 1 must be a query (a string) or a mapping with query (got a number)'),
        (6, 'skill "issue-refund": examples entry 2 must be a query (a string) or a mapping with query (got a list)'),
        (7, 'skill "issue-refund": examples entry 3: the query is blank'),
        (8, 'skill "issue-refund": examples entry 4 must be a query (a string) or a mapping with query '
            "(got true or false)"),
        (10, 'skill "issue-refund": not_for must be a list of queries (got a mapping)'),
    ]


def test_unknown_things_are_reported():
    _cases, problems = problem_lines(
        "examples:\n"                       # 4
        "  - query: refund it\n"            # 5
        "    also: [ghost-skill]\n"         # 6
        "  - query: refund it\n"            # 7
        "    role: sales\n"                 # 8
        "  - query: refund it\n"            # 9
        "    colour: blue\n"                # 10
        "  - query: refund it\n"            # 11
        "    role: billing\n"               # 12
        "    also: deploy-staging\n"        # 13
        "  - also: [invoice-correction]\n"  # 14
        "not_for:\n"                        # 15
        "  - query: ship it\n"              # 16
        "    instead: issue-refund\n"       # 17
        "  - query: ship it\n"              # 18
        "    instead: [deploy-staging, deploy-staging]\n"  # 19
    )
    assert problems == [
        (6, 'skill "issue-refund": examples entry 1: also names unknown skill "ghost-skill"'),
        (8, 'skill "issue-refund": examples entry 2: unknown role "sales"'),
        (10, 'skill "issue-refund": examples entry 3: unknown key "colour" (want query, role, also)'),
        (12, 'skill "issue-refund": examples entry 4: role "billing" does not serve "deploy-staging"'),
        (14, 'skill "issue-refund": examples entry 5: query is required'),
        (17, 'skill "issue-refund": not_for entry 1: instead names the skill itself'),
        (19, 'skill "issue-refund": not_for entry 2: instead lists a skill twice'),
    ]


def test_role_without_configured_roles():
    _cases, problems = problem_lines("examples:\n  - query: refund it\n    role: billing\n", roles=RoleCheck())
    assert problems == [(6, 'skill "issue-refund": examples entry 1 sets role "billing", but no roles are configured')]


def test_too_long_query():
    _cases, problems = problem_lines(f"examples:\n  - {'a' * 4097}\n")
    assert problems == [(5, 'skill "issue-refund": examples entry 1: the query is longer than 4096 bytes')]


def test_lines_fall_back_to_the_frontmatter_without_text():
    skill, _text = skill_from("examples:\n  - 42\n")
    _cases, problems = skill_cases(skill, None, known=KNOWN)
    assert [(d.file, d.line) for d in problems] == [(".claude/skills/issue-refund/SKILL.md", 2)]


def test_crlf_files_keep_their_line_numbers():
    skill, text = skill_from("examples:\n  - fine\n  - 7\n")
    _cases, problems = skill_cases(skill, text.replace("\n", "\r\n"), known=KNOWN)
    assert [d.line for d in problems] == [6]


def test_derive_cases_sorts_problems_and_builds_one_error():
    a, a_text = skill_from("examples:\n  - 1\n", "issue-refund")
    b, b_text = skill_from("examples:\n  - ok\n  - 2\n", "chargeback-dispute")
    cases, problems = derive_cases([b, a], {"issue-refund": a_text, "chargeback-dispute": b_text}, known=KNOWN)
    assert [c.id for c in cases] == ["chargeback-dispute/example-1"]
    assert [(d.file, d.line, d.code) for d in problems] == [
        (".claude/skills/chargeback-dispute/SKILL.md", 6, "AR9D2"),
        (".claude/skills/issue-refund/SKILL.md", 5, "AR9D2"),
    ]
    error = examples_error(problems)
    assert error.message.startswith("AR9D2: invalid examples in SKILL.md frontmatter: "
                                    ".claude/skills/chargeback-dispute/SKILL.md:6: ")
    assert error.exit_code == 1 and len(error.diagnostics) == 2


def test_merge_appends_and_skips_taken_ids():
    own = CaseFile(version=1, k=3, cases=(Case(id="issue-refund/example-1", query="mine",
                                                expect=(Expected("issue-refund"),)),), path="cases.yaml")
    derived = [Case(id="issue-refund/example-1", query="derived"), Case(id="issue-refund/example-2", query="new")]
    merged, added, skipped = merge_cases(own, derived)
    assert [c.query for c in merged.cases] == ["mine", "new"]
    assert (merged.k, merged.path, added, skipped) == (3, "cases.yaml", 1, 1)
    alone, added, skipped = merge_cases(None, derived[1:])
    assert ([c.id for c in alone.cases], alone.k, alone.path, added, skipped) == (
        ["issue-refund/example-2"], 0, "from-skills", 1, 0)


# -- the command -----------------------------------------------------------------------------------


@pytest.mark.skipif(not ACME.is_dir(), reason="the example repository is not in this checkout")
def test_eval_from_skills_on_the_example_repository(capsys):
    code, out, err = run(capsys, "eval", "--from-skills", "--root", ACME, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    ids = [c["id"] for c in doc["cases"]] + [c["id"] for c in doc.get("negatives", [])]
    assert "issue-refund/example-1" in ids and "write-postmortem/not-for-1" in ids
    assert len(ids) >= 12 and all(i.split("/")[1].startswith(("example-", "not-for-")) for i in ids)
    assert doc["tags"]["from-skills"]["n"] == doc["n"]
    assert "avoid_top1" in doc["modes"]["lexical"]
    assert f"from-skills: {len(ids)} cases derived, 0 skipped (id taken)" in err
    # with the committed cases file, the derived cases come after the file's own
    code, out, err = run(capsys, "eval", ACME / "search-cases.yaml", "--from-skills", "--root", ACME,
                         "--format", "json")
    assert code == 0, err
    combined = json.loads(out)
    assert combined["n"] + combined["n_negative"] == len(ids) + 38
    assert [c["id"] for c in combined["cases"]][-1] == "write-postmortem/not-for-1"  # it names `instead`


@pytest.mark.skipif(not ACME.is_dir(), reason="the example repository is not in this checkout")
def test_eval_from_skills_text_report_lists_the_tag(capsys):
    code, out, err = run(capsys, "eval", "--from-skills", "--root", ACME)
    assert code == 0, err
    assert "by tag:" in out and "from-skills (" in out


def test_eval_from_skills_skips_taken_ids(tmp_path, skill_writer, capsys):
    skill_writer(tmp_path, "issue-refund", "Refund an order", extra="examples: [refund order 7, refund order 8]")
    cases = tmp_path / "cases.yaml"
    cases.write_text("version: 1\ncases:\n  - id: issue-refund/example-1\n    query: refund\n"
                     "    expect: [issue-refund]\n", encoding="utf-8")
    code, out, err = run(capsys, "eval", cases, "--from-skills", "--root", tmp_path, "--format", "json")
    assert code == 0, err
    assert "from-skills: 1 case derived, 1 skipped (id taken)" in err
    assert [c["id"] for c in json.loads(out)["cases"]] == ["issue-refund/example-1", "issue-refund/example-2"]
    assert json.loads(out)["cases"][0]["query"] == "refund"


def test_eval_from_skills_reports_bad_examples_with_file_and_line(tmp_path, skill_writer, capsys):
    skill_writer(tmp_path, "issue-refund", "Refund an order",
                 extra="examples:\n  - query: refund it\n    also: [nobody]\n  - 12")
    code, out, err = run(capsys, "eval", "--from-skills", "--root", tmp_path)
    assert code == 1
    assert out == ""
    assert '.claude/skills/issue-refund/SKILL.md:6: AR9D2 skill "issue-refund": examples entry 1: also names ' \
           'unknown skill "nobody"' in err
    assert '.claude/skills/issue-refund/SKILL.md:7: AR9D2 skill "issue-refund": examples entry 2 must be' in err
    assert "error: AR9D2: invalid examples in SKILL.md frontmatter" in err


def test_eval_needs_cases_or_from_skills(tmp_path, skill_writer, capsys):
    skill_writer(tmp_path, "issue-refund", "Refund an order")
    code, _out, err = run(capsys, "eval", "--root", tmp_path)
    assert code == 1 and "eval needs a cases file, --from-skills, or both" in err
    code, _out, err = run(capsys, "eval", "--from-skills", "--root", tmp_path)
    assert code == 1 and "no skill lists examples or not_for" in err


def test_eval_from_skills_role_cases_rank_inside_the_role(tmp_path, skill_writer, capsys):
    (tmp_path / "skillsift.toml").write_text('[roles.billing]\nskills = ["issue-refund"]\n', encoding="utf-8")
    skill_writer(tmp_path, "issue-refund", "Refund an order for the customer",
                 extra="examples:\n  - query: customer refund\n    role: billing")
    skill_writer(tmp_path, "refund-report", "Customer refund report and customer refund totals")
    code, out, err = run(capsys, "eval", "--from-skills", "--root", tmp_path, "--format", "json")
    assert code == 0, err
    (case,) = json.loads(out)["cases"]
    assert (case["id"], case.get("role"), case["rank"]) == ("issue-refund/example-1", "billing", 1)


def test_example_skill_files_keep_the_index_fresh():
    """`examples` / `not_for` are not embedded: the committed index stays current."""
    if not (ACME / ".skillsift" / "index" / "manifest.json").is_file():
        pytest.skip("the example's committed index is not in this checkout")
    from skillsift.catalog.embedtext import embedded_text, text_digest
    from skillsift.catalog.load import load_catalog
    from skillsift.config import load_config
    from skillsift.index.store import load_index

    config = load_config(ACME)
    catalog = load_catalog(ACME, config)
    listed = [s for s in catalog.skills if s.examples or s.not_for]
    assert len(listed) >= 4
    index = load_index(Path(ACME) / ".skillsift" / "index").index
    s = config.search
    for skill in listed:
        row = index.row(skill.domain, skill.name)
        assert index.items[row].text_digest == text_digest(embedded_text(skill, s.fields, s.index_body,
                                                                          s.body_chars))
