"""`skillsift ci` through the CLI, in temporary git repositories (lexical ranker, no network)."""

from __future__ import annotations

import pytest

from skillsift.cli import main
from tests.ci.test_action import (
    CASES,
    edit_description,
    edit_nothing_relevant,
    git,
    make_pull_request,
    table_rows,
)
from tests.conftest import write_skill
from tests.support.cli import run, set_user_config
from tests.support.concept_embedder import user_config
from tests.support.github_outputs import parse_outputs


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    """The suite may itself run on GitHub Actions: none of the runner's variables leak in."""
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


def ci(capsys, *argv):
    return run(capsys, "ci", *argv)


def test_local_run_prints_the_report(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", edit_description)
    monkeypatch.chdir(project)
    code, out, err = ci(capsys, "--base", "main")
    assert code == 2, err
    assert out.startswith("## skillsift ci · ❌ failed: 2 cases regressed against the base (max 0)\n")
    assert "head compared with base " in out and "(merge-base with origin/main)" in out
    assert out.rstrip().splitlines()[-1] == "skillsift ci: ❌ failed: 2 cases regressed against the base (max 0)"
    assert "::error" not in out
    code, out, _ = ci(capsys, "--base", "main", "--max-flips", "2", "--annotations")
    assert code == 0
    assert out.startswith('::warning file=search-cases.yaml,line=7,title=AR9D4::case "incident-channel" regressed')
    assert "## skillsift ci · ✅ passed: 2 cases regressed, 1 fixed" in out


def test_files_written_for_github(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", edit_description)
    monkeypatch.chdir(project)
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    code, out, err = ci(capsys, "--report-file", tmp_path / "report.md")
    assert code == 2, err
    assert "## skillsift ci" not in out  # the report goes to the summary, the log gets annotations and the verdict
    assert out.count("::error file=search-cases.yaml") == 2 and out.count("::notice ") == 1
    text = summary.read_text(encoding="utf-8")
    assert text == (tmp_path / "report.md").read_text(encoding="utf-8")
    assert [r[0] for r in table_rows(text, "Regressed")] == ["`incident-channel`", "`page-engineer`"]
    values = parse_outputs(outputs.read_text(encoding="utf-8"))
    assert (values["regressed"], values["fixed"], values["verdict"]) == ("2", "1", "failed")
    assert values["report-path"] == str(tmp_path / "report.md")


def test_invalid_cases_file_cannot_run_but_still_reports(tmp_path, capsys, monkeypatch):
    def break_cases(project):
        (project / "search-cases.yaml").write_text(CASES.replace("expect: [postmortem]", "expect: [nobody]")
                                                   .replace("version: 1", "version: 2"), encoding="utf-8")

    project = make_pull_request(tmp_path / "repo", break_cases)
    monkeypatch.chdir(project)
    outputs = tmp_path / "outputs.txt"
    code, out, err = ci(capsys, "--base", "main", "--github-output", outputs)
    assert code == 1
    assert out.startswith("## skillsift ci · ⚠️ could not evaluate: AR9D2: invalid cases file")
    assert "| **error** | AR9D2 | `search-cases.yaml:1` | version must be 1 (got 2)" in out
    assert out.count("version must be 1 (got 2)") == 4  # verdict, error, one finding (not two), log line
    assert "error: AR9D2" in err
    assert parse_outputs(outputs.read_text(encoding="utf-8"))["verdict"] == "error"


def test_a_base_that_is_not_in_the_checkout(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", edit_nothing_relevant)
    monkeypatch.chdir(project)
    code, out, err = ci(capsys, "--base", "release-9")
    assert code == 1
    assert "the base branch was not found in this checkout (tried release-9, origin/release-9)" in out
    assert "hint: Check out the full history: actions/checkout with 'fetch-depth: 0'" in err


def test_no_base_outside_a_pull_request_passes_with_a_note(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", edit_description)
    monkeypatch.chdir(project)
    code, out, err = ci(capsys)
    assert code == 0
    assert out.startswith("## skillsift ci · ✅ passed: no base to compare with")
    assert "not a pull request (GITHUB_BASE_REF is unset)" in err
    code, out, _ = ci(capsys, "--baseline", "none", "--min", "top1=0.9")
    assert code == 2 and "top1 is 0.7143, below the minimum 0.9000" in out


def test_not_a_git_repository(tmp_path, capsys, monkeypatch, skill_writer):
    skill_writer(tmp_path, "refund-policy", "Process customer refund requests")
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\ncases:\n  - id: r\n    query: refund\n    expect: [refund-policy]\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.chdir(tmp_path)
    code, out, _ = ci(capsys, "--base", "main")
    assert code == 1 and "is not inside a git repository" in out
    code, out, _ = ci(capsys, "--baseline", "none")
    assert code == 0 and "✅ passed" in out


def test_the_base_is_evaluated_with_the_heads_config(tmp_path, capsys, monkeypatch, skill_writer):
    """Only the config changes (it adds a skills folder both commits have): both sides rank with it, so
    nothing moved, though the head's numbers dropped."""

    def extra_folder(project):
        skill_writer(project, "incident-bot", "Page the engineer on call and open an incident channel",
                     layout="extra", keywords=["page", "engineer", "incident", "channel"])

    def use_extra_folder(project):
        (project / "skillsift.toml").write_text('[catalog]\nskills = [".claude/skills", "extra"]\n',
                                                encoding="utf-8")

    project = make_pull_request(tmp_path / "repo", use_extra_folder, before=extra_folder)
    monkeypatch.chdir(project)
    code, out, err = ci(capsys, "--base", "main", "--baseline", "none")
    assert "| top1 | 0.5714 (0.29–0.86) |" in out  # the extra skill outranks oncall-runbook twice
    code, out, err = ci(capsys, "--base", "main")
    assert code == 0, out + err
    assert out.startswith("## skillsift ci · ✅ passed: no ranking change")
    assert "| top1 | 0.5714 (0.29–0.86) | 0.5714 (0.29–0.86) | +0.0000 |" in out  # the defaults would give 0.8571
    assert (project / "skillsift.toml").is_file() and git(tmp_path / "repo", "status", "--porcelain") == ""


def test_a_role_the_base_does_not_know_ranks_nothing_there(tmp_path, capsys, monkeypatch, skill_writer):
    def add_role(project):
        skill_writer(project, "pager-duty", "Escalate pages to the duty manager", extra="roles: [ops]")
        (project / "search-cases.yaml").write_text(
            CASES + "  - id: escalate\n    query: escalate pages\n    expect: [pager-duty]\n    role: ops\n",
            encoding="utf-8")

    project = make_pull_request(tmp_path / "repo", add_role)
    monkeypatch.chdir(project)
    code, out, err = ci(capsys, "--base", "main")
    assert code == 0, out + err
    assert [(r[0], r[4], r[5]) for r in table_rows(out, "Fixed")] == [("`escalate`", "not retrieved", "1")]


def test_fail_on_decides_which_findings_fail(tmp_path, capsys, monkeypatch):
    def add_nameless_skill(project):
        path = project / ".claude/skills/nameless/SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text("---\ndescription: Answer questions about the office wifi\n---\nBody.\n", encoding="utf-8")

    project = make_pull_request(tmp_path / "repo", add_nameless_skill)
    monkeypatch.chdir(project)
    code, out, _ = ci(capsys, "--base", "main")
    assert code == 0
    assert "| warning | SK005 | `.claude/skills/nameless/SKILL.md:1` |" in out
    code, out, _ = ci(capsys, "--base", "main", "--fail-on", "warning")
    assert code == 2
    assert "❌ failed: validation found 1 warning" in out
    assert "| **warning** | SK005 |" in out


def test_bad_flags(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", edit_nothing_relevant)
    monkeypatch.chdir(project)
    code, out, _ = ci(capsys, "--base", "main", "--min", "top9=1")
    assert code == 1 and "want metric=value pairs" in out
    code, out, _ = ci(capsys, "--base", "main", "--mode", "fuzzy")
    assert code == 1 and "each mode must be lexical, hybrid or vector" in out
    code, _, err = ci(capsys, "--max-flips", "-1")
    assert code == 1 and "-1" in err
    code, out, _ = ci(capsys, "--baseline", "missing.json")
    assert code == 1 and "cannot read baseline missing.json" in out


def test_a_baseline_file_of_wrong_types_is_refused_with_its_name(tmp_path, capsys, monkeypatch):
    import json

    project = make_pull_request(tmp_path / "repo", edit_nothing_relevant)
    monkeypatch.chdir(project)
    assert run(capsys, "eval", "search-cases.yaml", "--output", "saved.json")[0] == 0
    doc = json.loads((project / "saved.json").read_text(encoding="utf-8"))
    doc["cases"][0]["got"] = 1e308  # a traceback in the comparison before
    (project / "saved.json").write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = ci(capsys, "--baseline", "saved.json")
    assert code == 1, out + err
    assert "baseline saved.json: cases[0].got must be a list of skill names" in out + err


# -- hybrid mode: each side ranks with its own committed index -------------------------------------


@pytest.fixture
def command_provider(monkeypatch):
    """The user config (isolated by conftest) selects the deterministic test embedder as a command."""
    return set_user_config(user_config())


def _hybrid_config(project):
    (project / "skillsift.toml").write_text('[search]\nmode = "hybrid"\n', encoding="utf-8")


def _index(project, capsys):
    code, _out, _err = run(capsys, "index", "--root", project)
    assert code == 0


def _eval_ranks(project, capsys) -> dict:
    import json

    code, out, err = run(capsys, "eval", project / "search-cases.yaml", "--root", project, "--format", "json")
    assert code == 0, err
    return {c["id"]: c["rank"] for c in json.loads(out)["cases"]}


def _rank(cell: str):
    return None if cell == "not retrieved" else int(cell)


def test_hybrid_compares_each_side_with_its_own_index(tmp_path, capsys, monkeypatch, command_provider):
    """The base side ranks exactly as `skillsift eval` does on a checkout of the base commit."""

    def edit_and_reindex(project):
        write_skill(project, "oncall-runbook", "Roll out the fix to the staging cluster, then refund customers")
        _index(project, capsys)

    def indexed_base(project):
        _hybrid_config(project)
        _index(project, capsys)

    repo = tmp_path / "repo"
    project = make_pull_request(repo, edit_and_reindex, before=indexed_base)
    head_ranks = _eval_ranks(project, capsys)
    git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "base"), "origin/main")
    base_ranks = _eval_ranks(tmp_path / "base", capsys)
    git(repo, "worktree", "remove", "--force", str(tmp_path / "base"))
    moved = {i for i in head_ranks if head_ranks[i] != base_ranks[i]}
    assert moved, (base_ranks, head_ranks)  # the edit moves rankings in hybrid mode

    monkeypatch.chdir(project)
    code, out, err = ci(capsys, "--base", "main")
    assert "mode hybrid · head compared with base" in out, out + err
    assert "could not be evaluated" not in out + err
    rows = [r for heading in ("Regressed", "Fixed", "Other rank changes") if f"### {heading}" in out
            for r in table_rows(out, heading)]
    shown = {r[0].strip("`"): (_rank(r[4]), _rank(r[5])) for r in rows}
    assert shown == {i: (base_ranks[i], head_ranks[i]) for i in moved}


def test_hybrid_base_without_an_index_is_not_compared(tmp_path, capsys, monkeypatch, command_provider):
    def index_now(project):
        _hybrid_config(project)
        _index(project, capsys)

    project = make_pull_request(tmp_path / "repo", index_now)
    monkeypatch.chdir(project)
    code, out, err = ci(capsys, "--base", "main")
    assert code == 0, out + err
    assert out.startswith("## skillsift ci · ✅ passed: no base to compare with")
    assert "could not be evaluated, so nothing was compared: hybrid evaluation needs an embedding index" in out
    assert "| metric | head |" in out and "skillsift-base-" not in out


def test_skills_in_a_subfolder_of_the_repository(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", edit_description, sub="agents")
    monkeypatch.chdir(project)
    code, out, err = ci(capsys, "--base", "main", "--annotations")
    assert code == 2, err
    assert '::error file=agents/search-cases.yaml,line=4,title=AR9D4::case "page-engineer"' in out
    assert [r[0] for r in table_rows(out, "Fixed")] == ["`stakeholder-updates`"]


def test_a_regression_the_validate_baseline_also_sees_is_reported_once(tmp_path, capsys, monkeypatch):
    def committed_baseline(project):
        assert main(["eval", str(project / "search-cases.yaml"), "--root", str(project), "--output",
                     str(project / "eval-baseline.json"), "--format", "json"]) == 0
        (project / "skillsift.toml").write_text('[validate]\nbaseline = "eval-baseline.json"\n', encoding="utf-8")

    project = make_pull_request(tmp_path / "repo", edit_description, before=committed_baseline)
    monkeypatch.chdir(project)
    capsys.readouterr()
    code, out, err = ci(capsys, "--base", "main", "--annotations")
    assert code == 2, err
    # each regressed case: one annotation, on its line; no validation error repeats them
    assert out.count("::error file=search-cases.yaml") == 2
    assert out.count('case "incident-channel" regressed') == 1
    assert "cases regressed against the baseline (max 0)" not in out and "validation found" not in out


def test_quiet_prints_the_verdict_line_only_and_still_writes_the_report(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", edit_description)
    monkeypatch.chdir(project)
    report = tmp_path / "report.md"
    code, out, _err = ci(capsys, "--base", "main", "--quiet", "--report-file", str(report))
    assert code == 2
    assert out == "skillsift ci: ❌ failed: 2 cases regressed against the base (max 0)\n"
    assert report.read_text(encoding="utf-8").startswith("## skillsift ci · ❌ failed: 2 cases regressed")
