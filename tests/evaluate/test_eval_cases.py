"""The cases file parser: strictness, line numbers, limits, catalog and role checks."""

from __future__ import annotations

import pytest

from skillsift.diagnostics import SkillsiftError
from skillsift.evaluate.cases import (
    MAX_FILE_BYTES,
    Case,
    CaseFile,
    Expected,
    check_catalog,
    check_k,
    load_cases,
    parse_cases,
    role_problems,
    skill_problems,
)
from tests.support.eval_support import TEN_MISTAKES

VALID = """\
version: 1
k: 3
cases:
  - id: a
    query: deploy to staging
    expect: [deploy-staging]
  - id: b
    query: weather
    expect: []
"""


def error_of(text: str, path: str = "cases.yaml") -> SkillsiftError:
    with pytest.raises(SkillsiftError) as info:
        parse_cases(text, path)
    err = info.value
    assert err.exit_code == 1
    assert err.message.startswith(f"AR9D2: invalid cases file: {path}: line ")
    assert all(d.code == "AR9D2" and d.file == path and d.line for d in err.diagnostics)
    return err


def test_valid_file_and_effective_k():
    cf = parse_cases(VALID, "c.yaml")
    assert cf.version == 1 and cf.k == 3 and cf.path == "c.yaml"
    assert [c.id for c in cf.cases] == ["a", "b"]
    assert cf.cases[0].expect_ids == ("deploy-staging",) and not cf.cases[0].negative
    assert cf.cases[1].negative
    assert cf.effective_k(0) == 3
    assert cf.effective_k(7) == 7
    no_k = parse_cases("version: 1\ncases:\n  - id: a\n    query: q\n    expect: [x]\n")
    assert no_k.effective_k(0) == 5


@pytest.mark.parametrize(
    "text, needle",
    [
        ("k: 3\ncases:\n  - id: a\n    query: q\n", "version must be 1"),
        ("version: 1\ncases:\n  - id: a\n    query: q\n    nope: 1\n", 'unknown key "nope"'),
        ("version: 1\ncases:\n  - id: a\n    query: q\n    expect: [{id: s, grade: 0}]\n", "grade of"),
        ("version: 1\ncases:\n  - id: a\n    query: q\n    expect: [{id: s, weight: 2}]\n", "weight"),
        (
            "version: 1\ncases:\n  - id: a\n    query: q\n    expect: [s]\n    avoid: [s]\n",
            "both expected and avoided",
        ),
        ("version: 1\ncases:\n  - id: a\n    query: q\n  - id: a\n    query: r\n", "duplicate id"),
        ("version: 1\ncases:\n  - id: a\n", "query is required"),
        ("version: 1\ncases:\n  - query: q\n", "id is required"),
        ("version: 1\ncases: []\n", "cases is empty"),
        ("version: 1\nk: 500\ncases:\n  - id: a\n    query: q\n", "k must be"),
        ("version: 1\ncases:\n  - id: a\n    query: q\n    expect: [x, x]\n", "listed twice"),
        ("version: [", "AR9D2"),
    ],
)
def test_reference_parse_table(text, needle):
    err = error_of(text)
    assert "AR9D2" in err.message
    assert needle in err.message


def test_problem_texts_keep_the_reference_wording():
    err = error_of(
        "version: 2\ncases:\n  - id: a\n    query: q\n    expect: [{id: s, grade: x}, [n], {id: t, w: 1}]\n"
    )
    assert "line 1: version must be 1 (got 2)" in err.message
    assert 'line 5: case "a": grade "x" is not an integer' in err.message
    assert 'line 5: case "a": an expect entry is a skill name or {id, grade}' in err.message
    assert 'line 5: case "a": unknown key "w" in an expect entry (want id and grade)' in err.message
    err = error_of("version: 1\ncases:\n  - query: q\n  - id: ''\n    query: r\n")
    assert "line 3: case 1: id is required" in err.message
    assert "line 4: case 2: id is required" in err.message


def test_ten_different_mistakes_are_reported_at_once_with_lines():
    err = error_of(TEN_MISTAKES)
    expected = [
        (1, "version must be 1 (got 2)"),
        (2, 'unknown key "colour" (want version, k and cases)'),
        (5, 'case "one": query is required'),
        (6, 'case "one": "a" is listed twice in expect'),
        (7, 'case "one": duplicate id'),
        (9, 'case "one": grade of "b" must be between 1 and 9'),
        (10, 'case "one": "b" is both expected and avoided'),
        (11, 'case "one": unknown key "nope" (want id, query, expect, avoid, role, tags)'),
        (12, "case 3: id is required"),
        (13, 'case 3: unknown key "weight" in an expect entry (want id and grade)'),
    ]
    assert [(d.line, d.message) for d in err.diagnostics] == expected
    listed = "; ".join(f"line {line}: {msg}" for line, msg in expected)
    assert err.message == f"AR9D2: invalid cases file: cases.yaml: {listed}"


def test_graded_avoid_role_and_tags_parse():
    cf = parse_cases("""\
version: 1
cases:
  - id: graded
    query: set up staging deploy pipeline
    expect: [{id: deploy-staging, grade: 2}, ci-pipeline]
    avoid: [deploy-prod]
    role: platform
    tags: [paraphrase, ops]
""")
    case = cf.cases[0]
    assert [(e.id, e.grade, e.graded) for e in case.expect] == [
        ("deploy-staging", 2, True),
        ("ci-pipeline", 1, False),
    ]
    assert case.graded
    assert case.avoid == ("deploy-prod",) and case.avoid_lines == (6,)
    assert case.role == "platform" and case.role_line == 7
    assert case.tags == ("paraphrase", "ops")
    assert case.line == 3 and [e.line for e in case.expect] == [5, 5]


def test_scalars_are_read_as_written():
    cf = parse_cases(
        "version: 1\ncases:\n  - id: 0x10\n    query: yes\n    expect: [on, 1.50]\n    tags: [null-ish]\n"
    )
    case = cf.cases[0]
    assert (case.id, case.query, case.expect_ids) == ("0x10", "yes", ("on", "1.50"))


def test_bom_and_crlf_are_accepted():
    cf = parse_cases(("\ufeff" + VALID).replace("\n", "\r\n").encode("utf-8"))
    assert [c.id for c in cf.cases] == ["a", "b"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", [(1, "version must be 1 (got 0)"), (1, "cases is empty")]),
        ("- a\n- b\n", [(1, "the cases file must be a mapping with version, k and cases")]),
        (
            "version: one\ncases: {}\n",
            [(1, 'version must be 1 (got "one")'), (2, "cases must be a list of cases")],
        ),
        (
            'version: "1"\ncases:\n  - just a string\n',
            [
                (1, 'version must be 1 (got "1")'),
                (3, "case 1: a case is a mapping with id, query and expect"),
            ],
        ),
        (
            "version: 1\nversion: 1\ncases:\n  - id: a\n    query: q\n",
            [(2, 'mapping key "version" already defined at line 1')],
        ),
        (
            "version: 1\ncases:\n  - id: a\n    id: b\n    query: q\n",
            [(4, 'case 1: mapping key "id" already defined at line 3')],
        ),
        (
            "version: 1\ncases:\n  - id: [a]\n    query: {q: 1}\n    expect: s\n    avoid: [[x]]\n"
            "    tags: [{}]\n",
            [
                (3, "case 1: id must be a string"),
                (3, "case 1: id is required"),
                (4, "case 1: query must be a string"),
                (4, "case 1: query is required"),
                (5, "case 1: expect must be a list"),
                (6, "case 1: an avoid entry is a skill name"),
                (7, "case 1: a tag is a string"),
            ],
        ),
        (
            "version: 1\ncases:\n  - id: a\n    query: q\n    expect: [~, {grade: 2}]\n",
            [(5, 'case "a": an expect entry has no id'), (5, 'case "a": an expect entry has no id')],
        ),
        (
            "version: 1\nk: -1\ncases:\n  - id: a\n    query: '   '\n",
            [(2, "k must be between 1 and 100"), (5, 'case "a": query is required')],
        ),
    ],
)
def test_structural_problems_have_lines(text, expected):
    err = error_of(text)
    assert sorted((d.line, d.message) for d in err.diagnostics) == sorted(expected)


def test_yaml_syntax_error_is_reported_alone_with_its_line():
    err = error_of("version: 1\ncases:\n  - id: a\n    query: [unclosed\n    expect: []\n")
    assert len(err.diagnostics) == 1
    assert err.diagnostics[0].line >= 4
    assert "flow sequence" in err.message


def test_non_utf8_is_reported_with_its_line():
    err = error_of(b"version: 1\ncases:\n  - id: \xff\n", "bin.yaml")
    assert [(d.line, d.message) for d in err.diagnostics] == [(3, "the file is not UTF-8 text")]


def test_limits():
    long_query = "é" * 2049  # 4098 bytes
    err = error_of(f"version: 1\ncases:\n  - id: a\n    query: {long_query}\n")
    assert 'line 4: case "a": query is longer than 4096 bytes' in err.message
    ok = parse_cases(f"version: 1\ncases:\n  - id: a\n    query: {'é' * 2048}\n")
    assert len(ok.cases[0].query.encode()) == 4096
    names = ", ".join(f"s{i}" for i in range(51))
    err = error_of(f"version: 1\ncases:\n  - id: a\n    query: q\n    expect: [{names}]\n")
    assert 'line 5: case "a": more than 50 expected skills' in err.message
    many = "".join(f"  - {{id: c{i}, query: q}}\n" for i in range(10_001))
    err = error_of("version: 1\ncases:\n" + many)
    assert [(d.line, d.message) for d in err.diagnostics] == [(3, "more than 10000 cases")]


def test_load_cases_file_level_errors(tmp_path):
    good = tmp_path / "cases.yaml"
    good.write_text("version: 1\ncases:\n  - id: a\n    query: q\n    expect: [x]\n", encoding="utf-8")
    assert load_cases(str(good)).cases[0].id == "a"
    assert load_cases(str(good)).path == str(good)
    with pytest.raises(SkillsiftError, match="not a regular file") as info:
        load_cases(str(tmp_path))
    assert "AR9D2" not in info.value.message
    with pytest.raises(SkillsiftError, match="cannot read cases file"):
        load_cases(str(tmp_path / "missing.yaml"))
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(SkillsiftError, match="larger than 4194304 bytes"):
        load_cases(str(big))


def test_check_k():
    for ok in (0, 1, 100):
        check_k(ok)
    with pytest.raises(SkillsiftError, match="--k must not be negative"):
        check_k(-1)
    with pytest.raises(SkillsiftError) as info:
        check_k(101)
    assert info.value.message == "--k must be between 1 and 100 (or 0 for the file's k), got 101"


def test_effective_k_never_exceeds_100():
    cf = CaseFile(version=1, k=0, cases=())
    assert cf.effective_k(500) == 100


# -- catalog checks ------------------------------------------------------------------------------

CHECK = """\
version: 1
cases:
  - id: c1
    query: q
    expect: [ok, ghost]
  - id: c2
    query: q
    expect:
      - {id: deploy-staging, grade: 2}
      - ci-pipeline
    avoid: [deploy-prod]
"""


def test_unknown_skills_are_listed_with_lines():
    cf = parse_cases(CHECK, "c.yaml")
    problems = skill_problems(cf, ["ok", "deploy-staging", "ci-pipeline"])
    assert problems == [
        (5, 'case "c1" expects unknown skill "ghost"'),
        (11, 'case "c2" avoids unknown skill "deploy-prod"'),
    ]
    with pytest.raises(SkillsiftError) as info:
        check_catalog(cf, ["ok", "deploy-staging", "ci-pipeline"])
    assert info.value.message == (
        'AR9D2: invalid cases file: c.yaml: line 5: case "c1" expects unknown skill "ghost"; '
        'line 11: case "c2" avoids unknown skill "deploy-prod"'
    )
    assert check_catalog(cf, ["ok", "ghost", "deploy-staging", "ci-pipeline", "deploy-prod"]) == {}


ROLES = """\
version: 1
cases:
  - id: scoped
    query: deploy refund
    role: billing
    expect: [refund-policy]
  - id: nobody
    query: q
    role: nobody
    expect: [refund-policy]
  - id: outside
    query: q
    role: billing
    expect: [deploy-prod]
"""

KNOWN = ["deploy-staging", "deploy-prod", "refund-policy", "git-workflow"]


def _billing(role):
    if role == "billing":
        return ["refund-policy"]
    raise SkillsiftError(f'unknown role "{role}"')


def test_role_checks():
    cf = parse_cases(ROLES, "r.yaml")
    served, problems = role_problems(cf, KNOWN, True, _billing)
    assert served == {"billing": frozenset({"refund-policy"})}
    assert problems == [
        (9, 'case "nobody": unknown role "nobody"'),
        (14, 'case "outside" expects "deploy-prod", which role "billing" does not serve'),
    ]
    with pytest.raises(SkillsiftError) as info:
        check_catalog(cf, KNOWN, roles_configured=True, resolve=_billing)
    assert "AR9D2" in info.value.message and 'unknown role "nobody"' in info.value.message
    assert "does not serve" in info.value.message


def test_roles_without_configuration():
    cf = parse_cases(ROLES, "r.yaml")
    _, problems = role_problems(cf, KNOWN, False, _billing)
    assert [p[1] for p in problems] == [
        'case "scoped" sets role "billing", but no roles are configured',
        'case "nobody" sets role "nobody", but no roles are configured',
        'case "outside" sets role "billing", but no roles are configured',
    ]
    with pytest.raises(SkillsiftError, match="no roles are configured"):
        check_catalog(cf, KNOWN)


def test_valid_role_resolves():
    cf = parse_cases(ROLES.split("  - id: nobody")[0], "r.yaml")
    assert check_catalog(cf, KNOWN, roles_configured=True, resolve=_billing) == {
        "billing": frozenset({"refund-policy"})
    }


def test_case_model_helpers():
    case = Case(id="x", query="q", expect=(Expected("a", 3, True), Expected("b")), avoid=("c",))
    assert case.expect_ids == ("a", "b") and case.graded and not case.negative
    problems = skill_problems(CaseFile(1, 0, (case,), "p"), ["a", "b"])
    assert problems == [(0, 'case "x" avoids unknown skill "c"')]
