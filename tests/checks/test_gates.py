"""AR9D4: the configured gates and the baseline, as `skillsift eval` applies them (reference §6.9)."""

from __future__ import annotations

import json

from skillsift.cli import main
from tests.conftest import write_skill
from tests.support.validators_support import check, three_skills

CASES = ("version: 1\nk: 2\ncases:\n"
         "  - id: staging\n    query: deploy to staging\n    expect: [deploy-staging]\n"
         "  - id: refund\n    query: refund an order\n    expect: [issue-refund]\n"
         "  - id: miss\n    query: zebra\n    expect: [git-workflow]\n")


def project(tmp_path, validate: str):
    three_skills(tmp_path)
    (tmp_path / "search-cases.yaml").write_text(CASES)
    (tmp_path / "skillsift.toml").write_text("[validate]\n" + validate)
    return tmp_path


def test_nothing_is_gated_without_min_or_baseline(tmp_path):
    assert check(project(tmp_path, ""), select=["AR9D4"]) == []


def test_floors_fail_with_the_reference_messages(tmp_path):
    project(tmp_path, 'min = "top1=0.9,mrr=0.5"\n')
    [diag] = check(tmp_path, select=["AR9D4"])
    assert (diag.code, diag.severity, diag.file) == ("AR9D4", "error", "search-cases.yaml")
    assert diag.message == "top1 is 0.6667, below the minimum 0.9000"
    (tmp_path / "skillsift.toml").write_text('[validate]\nmin = "top1=0.6"\n')
    assert check(tmp_path, select=["AR9D4"]) == []


def test_ndcg_without_graded_cases(tmp_path):
    project(tmp_path, 'min = "ndcg=0.1"\n')
    [diag] = check(tmp_path, select=["AR9D4"])
    assert diag.message == "ndcg cannot be checked: no case is graded"


def test_regressed_cases_against_the_baseline(tmp_path):
    project(tmp_path, "")
    write_skill(tmp_path, "issue-refund", "Refund a customer order", triggers=["customer wants money back"])
    (tmp_path / "search-cases.yaml").write_text(CASES.replace("refund an order", "money back"))
    assert main(["eval", str(tmp_path / "search-cases.yaml"), "--root", str(tmp_path),
                 "--output", str(tmp_path / "base.json"), "--format", "json"]) == 0
    (tmp_path / "skillsift.toml").write_text('[validate]\nbaseline = "base.json"\n')
    assert check(tmp_path, select=["AR9D4"]) == []
    write_skill(tmp_path, "issue-refund", "Refund a customer order")  # the trigger is gone
    diags = check(tmp_path, select=["AR9D4"])
    # one regressed case, one finding (it carries the gate and the command that accepts the change)
    assert [(d.line, d.message) for d in diags] == [
        (7, 'case "refund" regressed against the baseline: expected issue-refund, now not retrieved'),
    ]
    assert diags[0].hint.startswith("1 case regressed, at most 0 may; if the change is intended, save a new "
                                    "baseline: skillsift eval search-cases.yaml --mode lexical")
    from skillsift.render.diagnostics import summary_line

    assert summary_line(diags).startswith("1 error, 0 warnings")
    (tmp_path / "skillsift.toml").write_text('[validate]\nbaseline = "base.json"\nmax_flips = 1\n')
    assert check(tmp_path, select=["AR9D4"]) == []


def test_a_skill_that_does_not_parse_stops_the_gates_and_proposes_no_baseline(tmp_path):
    project(tmp_path, "")
    write_skill(tmp_path, "issue-refund", "Refund a customer order", triggers=["customer wants money back"])
    (tmp_path / "search-cases.yaml").write_text(CASES.replace("refund an order", "money back"))
    assert main(["eval", str(tmp_path / "search-cases.yaml"), "--root", str(tmp_path),
                 "--output", str(tmp_path / "base.json"), "--format", "json"]) == 0
    (tmp_path / "skillsift.toml").write_text('[validate]\nbaseline = "base.json"\n')
    skill = next(tmp_path.rglob("issue-refund/SKILL.md"))
    skill.write_text(skill.read_text().replace("triggers:", "triggers: [", 1))  # a YAML typo
    [diag] = check(tmp_path, select=["AR9D4"])
    assert diag.severity == "note" and diag.file.endswith("issue-refund/SKILL.md")
    assert "the gates were not run" in diag.message and "does not parse (SK001)" in diag.message
    assert "fix the frontmatter first" in diag.message and "save a new baseline" not in diag.message + diag.hint


def test_baseline_of_another_k_cannot_be_compared(tmp_path):
    project(tmp_path, "")
    main(["eval", str(tmp_path / "search-cases.yaml"), "--root", str(tmp_path), "--k", "3",
          "--output", str(tmp_path / "base.json"), "--format", "json"])
    assert json.loads((tmp_path / "base.json").read_text())["k"] == 3
    (tmp_path / "skillsift.toml").write_text('[validate]\nbaseline = "base.json"\n')
    [diag] = check(tmp_path, select=["AR9D4"])
    assert diag.message == ("cannot compare with the baseline base.json: the baseline was evaluated at k=3 "
                            "but this run uses k=2")


def test_vector_mode_without_an_index_cannot_pass(tmp_path):
    project(tmp_path, 'min = "top1=0.1"\nmode = "vector"\n')
    [diag] = check(tmp_path, select=["AR9D4"])
    assert diag.message == "vector evaluation needs an embedding index, and none is usable"


def test_invalid_cases_are_left_to_ar9d2(tmp_path):
    project(tmp_path, 'min = "top1=0.9"\n')
    (tmp_path / "search-cases.yaml").write_text(CASES.replace("git-workflow", "ghost"))
    diags = check(tmp_path, select=["AR9D4", "AR9D2"])
    assert [d.code for d in diags] == ["AR9D2"]


def test_bad_min_is_a_config_problem(tmp_path):
    project(tmp_path, 'min = "top1=2"\n')
    [diag] = check(tmp_path, select=["AR9D0", "AR9D4"])
    assert (diag.code, diag.line) == ("AR9D0", 2)
    assert diag.message == 'validate.min: "top1=2": value must be a number between 0 and 1'


def test_a_regressed_case_names_the_skill_that_took_its_place(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\nk: 1\ncases:\n  - id: staging\n    query: deploy to staging\n    expect: [deploy-staging]\n")
    assert main(["eval", str(tmp_path / "search-cases.yaml"), "--root", str(tmp_path),
                 "--output", str(tmp_path / "base.json"), "--format", "json"]) == 0
    (tmp_path / "skillsift.toml").write_text('[validate]\nbaseline = "base.json"\n')
    write_skill(tmp_path, "staging-deploy-guide", "Deploy to staging: deploy to staging, the staging deploy guide",
                triggers=["deploy to staging"], keywords=["deploy", "staging"])
    diags = check(tmp_path, select=["AR9D4"])
    assert [(d.line, d.message) for d in diags] == [(
        4, 'case "staging" regressed against the baseline: expected deploy-staging, now rank 2; '
           '"staging-deploy-guide" now ranks first')]


def test_a_failed_baseline_gate_hints_the_command_that_refreshes_it(tmp_path):
    project(tmp_path, "")
    write_skill(tmp_path, "issue-refund", "Refund a customer order", triggers=["customer wants money back"])
    (tmp_path / "search-cases.yaml").write_text(CASES.replace("refund an order", "money back"))
    assert main(["eval", str(tmp_path / "search-cases.yaml"), "--root", str(tmp_path),
                 "--output", str(tmp_path / "base.json"), "--format", "json"]) == 0
    (tmp_path / "skillsift.toml").write_text('[validate]\nbaseline = "base.json"\n')
    write_skill(tmp_path, "issue-refund", "Refund a customer order")
    first = check(tmp_path, select=["AR9D4"])[0]
    assert first.hint == ("1 case regressed, at most 0 may; if the change is intended, save a new baseline: "
                          "skillsift eval search-cases.yaml --mode lexical --k 2 --output base.json")


def test_max_rank_drops_gates_a_case_that_still_hits(tmp_path):
    project(tmp_path, "")
    assert main(["eval", str(tmp_path / "search-cases.yaml"), "--root", str(tmp_path),
                 "--output", str(tmp_path / "base.json"), "--format", "json"]) == 0
    base = json.loads((tmp_path / "base.json").read_text())
    staging = next(case for case in base["cases"] if case["id"] == "staging")
    assert staging["rank"] == 1 and staging["hit"]
    # the same case found at rank 1 once, now at rank 2: still a hit at k=2, so no flip
    staging["rank"] = 1
    # the trigger moves to a new skill: deploy-staging now ranks second for "deploy to staging"
    write_skill(tmp_path, "deploy-staging", "Deploy a service to the staging cluster")
    write_skill(tmp_path, "staging-deploy", "Deploy to staging", triggers=["deploy to staging"],
                keywords=["deploy", "staging"])
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "skillsift.toml").write_text('[validate]\nbaseline = "base.json"\n')
    assert check(tmp_path, select=["AR9D4"]) == []
    (tmp_path / "skillsift.toml").write_text('[validate]\nbaseline = "base.json"\nmax_rank_drops = 0\n')
    [diag] = check(tmp_path, select=["AR9D4"])
    assert diag.message == "1 case dropped in rank against the baseline (max 0): staging (1 -> 2)"
    assert "save a new baseline" in diag.hint
