"""A pull request that changes its own gate is seen: the base's own cases and ``[validate]`` table
are read and every change is listed (and can fail the run); the summary lists the checks that
passed; ``ci --format json`` is the whole result; a hybrid run without the embed extra says how
to install it.  Real git repositories, the lexical ranker."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema
import pytest

from tests.ci.test_action import CASES, edit_description, make_pull_request, table_rows
from tests.conftest import write_skill
from tests.support.cli import load_schema, run
from tests.support.extras import require_embed


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


def drop_the_regressing_cases(project):
    """The description edit regresses two cases; the pull request deletes one and weakens the other."""
    edit_description(project)
    text = CASES.replace("  - id: page-engineer\n    query: page the engineer\n    expect: [oncall-runbook]\n", "")
    text = text.replace("    query: open an incident channel\n    expect: [oncall-runbook]\n",
                        "    query: open an incident channel\n    expect: []\n")
    (project / "search-cases.yaml").write_text(text, encoding="utf-8")


def test_deleting_the_case_that_would_regress_is_listed_with_its_base_result(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", drop_the_regressing_cases)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main")
    assert code == 0, err  # the head's cases no longer regress: without the option, only reported
    assert "### Changes to the gate (2)" in out
    rows = table_rows(out, "Changes to the gate")[1:]  # below the header row
    assert rows[0][:2] == ["removed", "`page-engineer` (line 4)"] and rows[0][4] == "rank 1"
    assert rows[1][0] == "changed: expect" and rows[1][1].startswith("`incident-channel`")
    assert rows[1][2:] == ["oncall-runbook", "nothing (negative)", "rank 1"]
    code, out, err = run(capsys, "ci", "--base", "main", "--fail-on-gate-change", "false")
    assert code == 0, err
    code, out, err = run(capsys, "ci", "--base", "main", "--fail-on-gate-change")
    assert code == 2, err
    assert "failed: the pull request changes its own gate (2 changes)" in out


def test_a_validate_ignore_added_beside_a_token_is_listed_and_the_base_can_make_it_fail(tmp_path, capsys,
                                                                                          monkeypatch):
    def base(project):
        (project / "skillsift.toml").write_text("[validate]\nfail_on_gate_change = true\n", encoding="utf-8")

    def pull_request(project):
        write_skill(project, "aws-helper", "Work with AWS", body="key = AKIAIOSFODNN7EXAMPLE\n")
        (project / "skillsift.toml").write_text('[validate]\nignore = ["AR001"]\n', encoding="utf-8")

    project = make_pull_request(tmp_path / "repo", pull_request, before=base)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main")
    assert code == 2, err  # the base asks for it; removing the key in the pull request does not turn it off
    rows = table_rows(out, "Changes to the gate")[1:]
    assert rows[0][:4] == ["added", "`validate.ignore`", "–", '\\["AR001"\\]']
    assert rows[1][:2] == ["removed", "`validate.fail_on_gate_change`"]
    assert "the pull request changes its own gate (2 changes)" in out


def test_the_summary_lists_the_checks_that_passed(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", edit_description)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main", "--max-flips", "2", "--min", "top1=0.2,mrr=0.3")
    assert code == 0, err
    section = out[out.index("### Passed checks"):].split("\n\n")[1].splitlines()
    assert section[0] == "- regressed cases against the base: 2 (max 2)"
    assert section[1].startswith("- --min mrr: 0.") and section[1].endswith(" (min 0.3000)")
    assert section[2].startswith("- --min top1: ")
    assert "- changes to the gate: none (reported, not gated)" in section
    assert "- validation findings at or above error: 0" in section


def test_json_is_the_whole_result_and_follows_its_schema(tmp_path, capsys, monkeypatch):
    project = make_pull_request(tmp_path / "repo", drop_the_regressing_cases)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json", "--min", "top1=0.5",
                         "--fail-on-gate-change")
    assert code == 2, err
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("ci.v1.json"))
    assert doc["status"] == "failed" and doc["exit_code"] == 2
    assert [g["subject"] for g in doc["gate_changes"]] == ["page-engineer", "incident-channel"]
    assert doc["gate_changes"][0]["base_result"] == "rank 1"
    checks = {c["name"]: c["passed"] for c in doc["checks"]}
    assert checks["--min top1"] is True and checks["changes to the gate"] is False
    assert doc["failures"] == ["the pull request changes its own gate (2 changes)"]
    assert doc["metrics"]["head"]["top1"] >= 0.5 and "top1" in doc["metrics"]["paired"]
    assert "skillsift ci:" in err and "skillsift ci:" not in out
    jsonschema.validate(json.loads(run(capsys, "ci", "--baseline", "none", "--format", "json")[1]),
                        load_schema("ci.v1.json"))


def test_hybrid_without_the_embed_extra_names_the_extra(tmp_path):
    require_embed()  # the index is built with the extra, then the run goes without it
    for name, description in {"deploy-prod": "Deploy to production", "refund": "Refund a customer"}.items():
        write_skill(tmp_path, name, description)
    (tmp_path / "skillsift.toml").write_text('[search]\nmode = "hybrid"\n', encoding="utf-8")
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\ncases:\n  - id: a\n    query: ship it to prod\n    expect: [deploy-prod]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    built = subprocess.run([sys.executable, "-m", "skillsift", "index", "--root", str(tmp_path)], env=env,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    no_extra = ("import sys; sys.modules['onnxruntime'] = None; sys.modules['tokenizers'] = None; "
                "from skillsift.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", no_extra, "ci", "--baseline", "none"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "hint: install the embed extra: in the GitHub Action set `extras: embed`; locally pip install " \
           "'skillsift[embed]'" in proc.stderr
    assert "budget and network" not in proc.stderr


EXAMPLES = """\
version: 1
cases:
  - id: ex-refund
    query: money back for a broken order
    expect: [refund-policy]
  - id: ex-page
    query: wake up whoever is on call
    expect: [oncall-runbook]
  - id: ex-changelog
    query: what shipped this week
    expect: [release-notes]
"""
# a request of repository text: it must reach the summary as text, never as markup or a command
HOSTILE_REQUEST = "`` </details><img src=x> ![i](https://e.test/x.png) ##[warning]forged"


def examples_pull_request(project):
    """The pull request moves one request to another skill, removes one and adds a hostile one."""
    text = EXAMPLES.replace("    expect: [oncall-runbook]\n", "    expect: [postmortem]\n")
    text = text.replace("  - id: ex-changelog\n    query: what shipped this week\n    expect: [release-notes]\n", "")
    text += f"  - id: ex-new\n    query: {json.dumps(HOSTILE_REQUEST)}\n    expect: [deploy-staging]\n"
    (project / "examples" / "requests.yaml").write_text(text, encoding="utf-8")


def with_examples(project):
    (project / "examples").mkdir()
    (project / "examples" / "requests.yaml").write_text(EXAMPLES, encoding="utf-8")
    (project / "skillsift.toml").write_text('[search]\nexamples = ["examples/*.yaml"]\n', encoding="utf-8")


def test_requests_added_removed_or_moved_in_an_examples_file_are_listed_and_can_fail(tmp_path, capsys, monkeypatch):
    import cmarkgfm

    from tests.render.test_sanitise import _tags, _text, no_raw_controls
    from tests.support.runner import commands

    project = make_pull_request(tmp_path / "repo", examples_pull_request, before=with_examples)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main")
    assert code == 0, err  # reported, not gated
    assert "### Changes to the gate (3)" in out
    rows = table_rows(out, "Changes to the gate")[1:]
    assert [r[0] for r in rows] == ["request removed", "request moved", "request added"]
    assert rows[0][1:3] == ["what shipped this week (`examples/requests.yaml` line 9)", "release-notes"]
    assert rows[0][3] == "–"
    assert rows[1][1:4] == ["wake up whoever is on call (`examples/requests.yaml` line 6)", "oncall-runbook",
                            "postmortem"]
    assert rows[2][2:4] == ["–", "deploy-staging"]
    # the hostile request is text: no command for the runner, no tag, image or link, the folds intact
    assert commands(out) == [] and commands(err) == []
    no_raw_controls(out)
    html = cmarkgfm.github_flavored_markdown_to_html(out)
    assert not _tags(html) & {"img", "a", "script"}, _tags(html)
    assert html.count("<details>") == html.count("</details>")
    assert HOSTILE_REQUEST in _text(html)
    code, out, err = run(capsys, "ci", "--base", "main", "--fail-on-gate-change")
    assert code == 2, err
    assert "failed: the pull request changes its own gate (3 changes)" in out
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("ci.v1.json"))
    assert [(g["kind"], g["what"], g["file"]) for g in doc["gate_changes"]] == [
        ("example", "request removed", "examples/requests.yaml"),
        ("example", "request moved", "examples/requests.yaml"),
        ("example", "request added", "examples/requests.yaml")]
    assert doc["gate_changes"][2]["subject"] == HOSTILE_REQUEST


def test_an_examples_file_dropped_from_the_config_lists_its_requests_as_removed(tmp_path, capsys, monkeypatch):
    def pull_request(project):
        (project / "skillsift.toml").write_text("", encoding="utf-8")

    project = make_pull_request(tmp_path / "repo", pull_request, before=with_examples)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json")
    changes = json.loads(out)["gate_changes"]
    assert changes[0] == {"kind": "config", "subject": "search.examples", "before": '["examples/*.yaml"]',
                          "after": "", "what": "removed"}
    assert [(c["what"], c["subject"]) for c in changes[1:]] == [
        ("request removed", "money back for a broken order"), ("request removed", "wake up whoever is on call"),
        ("request removed", "what shipped this week")]


def test_unchanged_or_reworded_requests_are_no_change(tmp_path, capsys, monkeypatch):
    def pull_request(project):
        text = EXAMPLES.replace("money back for a broken order", "Money back, for a broken order!")
        (project / "examples" / "other.yaml").write_text(text, encoding="utf-8")  # the same requests twice
        edit_description(project)

    project = make_pull_request(tmp_path / "repo", pull_request, before=with_examples)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json")
    assert json.loads(out)["gate_changes"] == []


def test_with_a_config_file_outside_the_repository_the_deleted_case_is_still_listed(tmp_path, capsys, monkeypatch):
    """``--config`` outside the repository is the same file on both sides; the cases file is still the base's own."""
    outside = tmp_path / "shared-config" / "skillsift.toml"
    outside.parent.mkdir()
    outside.write_text('[search]\nmode = "lexical"\n', encoding="utf-8")
    project = make_pull_request(tmp_path / "repo", drop_the_regressing_cases)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "ci", "--base", "main", "--config", str(outside), "--fail-on-gate-change")
    assert code == 2, err
    rows = table_rows(out, "Changes to the gate")[1:]
    assert rows[0][:2] == ["removed", "`page-engineer` (line 4)"] and rows[0][4] == "rank 1"
    assert "the pull request changes its own gate (2 changes)" in out
