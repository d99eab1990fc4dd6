"""``skillsift ci`` gates on the agent's cached choices: base and head answers from the committed judge
cache, no agent called (real git repositories, the word-overlap fake judge)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from skillsift.cli import main
from tests.ci.test_action import edit_description, make_pull_request
from tests.judge.conftest import judge_argv
from tests.support.cli import load_schema, run


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE",
                "CI"):
        monkeypatch.delenv(var, raising=False)


def _config(max_flips: int, counter) -> str:
    return (f"[judge]\ncommand = {json.dumps(judge_argv('counter.py', counter))}\n\n"
            f"[validate]\njudge_max_flips = {max_flips}\n")


def _judged(project) -> None:
    """The author's step: ask the judge and keep its answers in .skillsift/judge-cache.jsonl."""
    assert main(["judge", str(project / "search-cases.yaml"), "--root", str(project), "--allow-exec"]) == 0


def _answers(project) -> dict:
    lines = (project / ".skillsift" / "judge-cache.jsonl").read_text().splitlines()
    return {(doc["case"], doc["key"]): doc["choice"] for doc in map(json.loads, lines)}


def test_the_judge_gate_compares_the_cached_base_and_head_answers(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SKILLSIFT_ALLOW_NETWORK", "1")
    counter = tmp_path / "calls.txt"

    def before(project):
        (project / "skillsift.toml").write_text(_config(0, counter), encoding="utf-8")
        _judged(project)

    def pull_request(project):
        edit_description(project)
        _judged(project)

    project = make_pull_request(tmp_path / "repo", pull_request, before=before)
    calls = counter.read_text().count("call")
    capsys.readouterr()
    monkeypatch.chdir(project)
    monkeypatch.setenv("CI", "true")
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json")
    doc = json.loads(out)
    jsonschema.Draft202012Validator(load_schema("ci.v1.json")).validate(doc)
    assert counter.read_text().count("call") == calls  # replayed from the cache: no call
    # independently: which case did the agent answer right on each side (one cache holds both)
    per_case: dict = {}
    for (case, _key), choice in _answers(project).items():
        per_case.setdefault(case, set()).add(choice)
    assert per_case["page-engineer"] == {"oncall-runbook", ""}
    assert doc["judge"] == {"max_flips": 0, "regressed": ["page-engineer", "incident-channel"],
                            "fixed": ["stakeholder-updates"], "unknown": [],
                            "base_unanswered": 0}
    assert code == 2
    assert any("2 cases the agent chose right on the base chosen wrong on the head (judge, max 0)" in f
               for f in doc["failures"])
    code, md, _ = run(capsys, "ci", "--base", "main")
    assert "**Agent's choice (judge) against the base:** 2 cases regressed, 1 fixed" in md


def test_a_head_without_cached_answers_fails_the_judge_gate(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SKILLSIFT_ALLOW_NETWORK", "1")
    counter = tmp_path / "calls.txt"

    def before(project):
        (project / "skillsift.toml").write_text(_config(5, counter), encoding="utf-8")
        _judged(project)

    project = make_pull_request(tmp_path / "repo", edit_description, before=before)  # the judge not run again
    capsys.readouterr()
    monkeypatch.chdir(project)
    code, out, _ = run(capsys, "ci", "--base", "main", "--format", "json")
    doc = json.loads(out)
    # the edit changed the listing, so no head question is in the cache: every case right on the base is unknown
    expected = {"page-engineer": "oncall-runbook", "incident-channel": "oncall-runbook",
                "stakeholder-updates": "oncall-runbook", "timeline": "postmortem", "refund": "refund-policy",
                "changelog": "release-notes", "staging": "deploy-staging"}
    right = [case for (case, _key), choice in _answers(project).items() if expected.get(case) == choice]
    order = list(expected)
    assert doc["judge"]["unknown"] == sorted(right, key=order.index) and len(right) == 6
    assert doc["judge"]["regressed"] == []
    assert code == 2
    assert any("without a cached head answer (run skillsift judge and commit its cache)" in f for f in doc["failures"])


def test_without_cached_base_answers_nothing_is_compared_and_the_summary_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SKILLSIFT_ALLOW_NETWORK", "1")
    counter = tmp_path / "calls.txt"

    def before(project):  # the base names the judge but never asked it
        (project / "skillsift.toml").write_text(_config(0, counter), encoding="utf-8")

    def pull_request(project):
        edit_description(project)
        _judged(project)

    project = make_pull_request(tmp_path / "repo", pull_request, before=before)
    capsys.readouterr()
    monkeypatch.chdir(project)
    code, out, _ = run(capsys, "ci", "--base", "main", "--format", "json")
    doc = json.loads(out)
    assert doc["judge"]["regressed"] == doc["judge"]["unknown"] == [] and doc["judge"]["base_unanswered"] == 7
    code, md, _ = run(capsys, "ci", "--base", "main")
    assert "7 without a cached base answer (not compared)" in md
