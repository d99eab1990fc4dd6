"""AR9D0: the config loader's problems and the [validate] table, with file and line."""

from __future__ import annotations

from skillsift.validators.settings import DEFAULT_DESCRIPTION_LIMITS, read_settings
from tests.support.validators_support import check, three_skills


def test_loader_problems_are_reported_alone(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "skillsift.toml").write_text('[search]\nmode = "semantic"\ndtype = "int8"\n')
    diags = check(tmp_path)
    assert [(d.code, d.file, d.line, d.message) for d in diags] == [
        ("AR9D0", "skillsift.toml", 2, 'search.mode "semantic" must be lexical, hybrid or vector'),
        ("AR9D0", "skillsift.toml", 3, 'search.dtype "int8" must be float32 or float16'),
    ]


def test_toml_syntax_error(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "skillsift.toml").write_text("[search\n")
    [diag] = check(tmp_path)
    assert (diag.code, diag.line) == ("AR9D0", 1)
    assert "is not valid TOML" in diag.message


def test_validate_table_problems_with_lines(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "skillsift.toml").write_text(
        '[validate]\nmode = "fast"\nk = 500\nbogus = 1\n\n[validate.severity]\nSK007 = "loud"\n'
        "\n[validate.description_limits]\ncodex = -1\n")
    diags = check(tmp_path, select=["AR9D0"])
    assert [(d.line, d.message) for d in diags] == [
        (2, 'validate.mode "fast" must be lexical, hybrid or vector'),
        (3, "validate.k must be between 0 and 100 (0 = the cases file's k)"),
        (4, 'validate: unknown key "bogus"'),
        (7, 'validate.severity.SK007 "loud" must be error, warning, note or off'),
        (10, "validate.description_limits.codex must be an integer >= 0 (0 drops the limit)"),
    ]


def test_pyproject_tool_table_lines(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.skillsift.validate]\nmin = 3\n')
    [diag] = check(tmp_path, select=["AR9D0"])
    assert (diag.file, diag.line) == ("pyproject.toml", 5)
    assert diag.message == 'validate.min must be a string such as "top1=0.6,mrr=0.7"'


def test_read_settings_defaults_and_overrides():
    settings, problems = read_settings(None)
    assert problems == [] and settings.description_limits == DEFAULT_DESCRIPTION_LIMITS
    assert not settings.gates_configured
    settings, problems = read_settings({"cases": "c.yaml", "min": "top1=0.5", "ignore": ["SK008"],
                                         "description_limits": {"mine": 80, "copilot": 0},
                                         "severity": {"SK009": "off"}}, ("SK008", "SK009"))
    assert problems == []
    assert settings.cases == ("c.yaml",) and settings.minimums == {"top1": 0.5}
    assert settings.description_limits == {"claude-code": 1536, "codex": 1024, "mine": 80}
    assert settings.severity == {"SK009": "off"} and settings.ignore == ("SK008",)


def test_severity_overrides_and_off(tmp_path):
    from tests.conftest import write_skill

    write_skill(tmp_path, "demo", "Deploy the demo.", body="## When to use\n- on release night\n")
    assert [(d.code, d.severity) for d in check(tmp_path)] == [("SK008", "warning")]
    (tmp_path / "skillsift.toml").write_text('[validate.severity]\nSK008 = "error"\n')
    assert [(d.code, d.severity) for d in check(tmp_path)] == [("SK008", "error")]
    (tmp_path / "skillsift.toml").write_text('[validate.severity]\nSK008 = "off"\n')
    assert check(tmp_path) == []
    (tmp_path / "skillsift.toml").write_text('[validate]\nignore = ["SK"]\n')
    assert check(tmp_path) == []


def test_configured_skills_path_without_skills_is_sk003(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "skillsift.toml").write_text('[catalog]\nskills = [".claude/skills", "plugins/none"]\n')
    [diag] = check(tmp_path, select=["SK003"])
    assert (diag.code, diag.severity, diag.file, diag.line) == ("SK003", "warning", "skillsift.toml", 2)
    assert diag.message == 'configured skills path "plugins/none" holds no SKILL.md'
    (tmp_path / "skillsift.toml").write_text('[catalog]\nskills = [".claude/skills"]\n')
    assert check(tmp_path, select=["SK003"]) == []


def test_an_unknown_key_near_a_known_one_says_which(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "skillsift.toml").write_text('[search]\nmdoe = "hybrid"\nzzz = 1\n\n[validate]\nmax_flip = 2\n')
    assert [(d.line, d.message) for d in check(tmp_path, select=["AR9D0"])] == [
        (2, 'search: unknown key "mdoe" (did you mean "mode"?)'),
        (3, 'search: unknown key "zzz"'),
        (6, 'validate: unknown key "max_flip" (did you mean "max_flips"?)'),
    ]
