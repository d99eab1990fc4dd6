"""Reporters: text, JSON (diagnostics.v1), GitHub workflow commands, SARIF 2.1.0."""

from __future__ import annotations

import json

import jsonschema
import pytest

from skillsift.diagnostics import ERROR, Diagnostic, sort_diagnostics
from skillsift.render.diagnostics import (
    escape_data,
    escape_property,
    github_command,
    render_github,
    render_json,
    render_text,
    sarif_log,
)
from tests.support.cli import load_schema
from tests.support.sarif import MINIMAL_SARIF, official_sarif_schema

DIAGS = sort_diagnostics([
    Diagnostic(file="skills/b/SKILL.md", line=3, code="SK006", message="frontmatter has no description",
               hint="add one"),
    Diagnostic(file="skills/a/SKILL.md", line=7, column=13, code="AR001",
               message="looks like an AWS access key id (AKIA**** (20 characters))"),
    Diagnostic(file="skills/a/SKILL.md", line=2, code="SK008", severity="warning", message="trigger only in body"),
    Diagnostic(code="AR9D4", message="top1 is 0.5000, below the minimum 0.6000"),
])


def test_text_groups_by_file_with_file_line_code_message():
    text = render_text(DIAGS, checked=4)
    assert text.splitlines() == [
        "AR9D4 top1 is 0.5000, below the minimum 0.6000",
        "",
        "skills/a/SKILL.md:2: SK008 trigger only in body (warning)",
        "skills/a/SKILL.md:7:13: AR001 looks like an AWS access key id (AKIA**** (20 characters))",
        "",
        "skills/b/SKILL.md:3: SK006 frontmatter has no description",
        "    hint: add one",
        "",
        "3 errors, 1 warning in 2 files (4 skills checked)",
    ]
    assert render_text([]) == "no problems found\n"


def test_json_follows_the_shipped_schema():
    doc = json.loads(render_json(DIAGS, root="/repo", checked=4))
    jsonschema.Draft202012Validator(load_schema("diagnostics.v1.json")).validate(doc)
    assert doc["summary"] == {"errors": 3, "warnings": 1, "notes": 0, "files": 2, "skills": 4}
    assert doc["diagnostics"][2] == {"code": "AR001", "severity": "error", "name": "secret-detected",
                                     "message": "looks like an AWS access key id (AKIA**** (20 characters))",
                                     "file": "skills/a/SKILL.md", "line": 7, "column": 13}
    empty = json.loads(render_json([]))
    jsonschema.Draft202012Validator(load_schema("diagnostics.v1.json")).validate(empty)
    bad = dict(doc, diagnostics=[{"code": "SK1", "severity": "error", "message": "x"}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(load_schema("diagnostics.v1.json")).validate(bad)


def test_github_escaping_of_data_and_properties():
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    diag = Diagnostic(file="skills/we,ird:name/SKILL.md", line=4, column=2, code="SK007",
                      severity="warning", message="50% cut:\nsee, here", hint="shorten")
    assert github_command(diag) == ("::warning file=skills/we%2Cird%3Aname/SKILL.md,line=4,col=2,title=SK007"
                                    "::50%25 cut:%0Asee, here%0Ahint: shorten")
    note = Diagnostic(code="AR9D1", severity="note", message="fyi")
    assert github_command(note) == "::notice title=AR9D1::fyi"


def test_github_caps_annotations_like_github_and_says_what_was_left():
    errors = [Diagnostic(file=f"f{i:02}.md", line=1, code="AR001", message="secret") for i in range(13)]
    warnings = [Diagnostic(file=f"w{i:02}.md", line=1, code="SK008", severity="warning", message="w")
                for i in range(11)]
    lines = render_github(sort_diagnostics(errors + warnings)).splitlines()
    assert sum(line.startswith("::error ") for line in lines) == 10
    assert sum(line.startswith("::warning ") for line in lines) == 10
    assert lines[-2] == ("skillsift: 3 errors, 1 warning not annotated (GitHub shows 10 annotations of each kind "
                         "per step); run 'skillsift validate' for the full list")
    assert lines[-1] == "13 errors, 11 warnings in 24 files"
    few = render_github(DIAGS).splitlines()
    assert not any("not annotated" in line for line in few)
    assert few[0] == "::error title=AR9D4::top1 is 0.5000, below the minimum 0.6000"


def test_sarif_validates_against_the_official_2_1_0_schema():
    schema = official_sarif_schema()
    log = sarif_log(DIAGS)
    jsonschema.Draft4Validator(schema).validate(log)
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(broken)


def test_sarif_structure_rules_and_locations():
    log = sarif_log(DIAGS)
    jsonschema.Draft202012Validator(MINIMAL_SARIF).validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    secret = results[2]
    assert secret["level"] == "error"
    assert secret["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "skills/a/SKILL.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 7, "startColumn": 13}}
    assert results[1]["level"] == "warning"
    assert "locations" not in results[0]
    assert results[3]["properties"] == {"hint": "add one"}
    spaced = sarif_log([Diagnostic(file="my skills/a b/SKILL.md", line=1, code="SK006", message="m")])
    assert spaced["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "my%20skills/a%20b/SKILL.md"


def test_a_hint_shared_by_the_lines_of_one_file_is_printed_once_under_the_last():
    hint = "Fix the lines listed; the format is described in docs/evaluation.md"
    diags = [Diagnostic(file="search-cases.yaml", line=n, code="AR9D2", severity=ERROR, message=f"problem {n}",
                        hint=hint) for n in (2, 6, 9)]
    diags.append(Diagnostic(file="skills/a/SKILL.md", line=1, code="SK007", severity=ERROR, message="long",
                            hint="shorten it"))
    lines = render_text(diags).splitlines()
    assert lines[:4] == ["search-cases.yaml:2: AR9D2 problem 2", "search-cases.yaml:6: AR9D2 problem 6",
                         "search-cases.yaml:9: AR9D2 problem 9", f"    hint: {hint}"]
    assert lines.count(f"    hint: {hint}") == 1 and "    hint: shorten it" in lines


def test_sarif_has_a_rule_per_secret_kind_with_help_and_keeps_the_masked_excerpt():
    diags = sort_diagnostics([
        Diagnostic(file="s/a/SKILL.md", line=3, column=5, code="AR001", rule="github-token",
                   message="looks like a GitHub token (ghp_**** (40 characters))"),
        Diagnostic(file="s/b/SKILL.md", line=4, column=1, code="AR001", rule="aws-access-key",
                   message="looks like a AWS access key id (AKIA**** (20 characters))"),
        Diagnostic(file="s/c/SKILL.md", line=2, column=1, code="AR001", rule="house-token",
                   message="looks like a house-token (htk_**** (16 characters))"),
        Diagnostic(file="s/d/SKILL.md", line=2, code="SK006", message="no description"),
    ])
    log = sarif_log(diags)
    jsonschema.Draft202012Validator(MINIMAL_SARIF).validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    by_id = {rule["id"]: rule for rule in rules}
    assert {"AR001/github-token", "AR001/aws-access-key", "AR001/house-token", "AR001"} <= set(by_id)
    assert "Revoke it" in by_id["AR001/github-token"]["help"]["text"]
    assert "configured [secrets] pattern" in by_id["AR001/house-token"]["help"]["text"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    texts = {r["ruleId"]: r["message"]["text"] for r in run["results"]}
    assert texts["AR001/github-token"] == "looks like a GitHub token (ghp_**** (40 characters))"
    assert texts["SK006"] == "no description"
    assert sarif_log(diags) == log  # same input, same log
    try:
        schema = official_sarif_schema()
    except pytest.skip.Exception:
        return
    jsonschema.Draft4Validator(schema).validate(log)
