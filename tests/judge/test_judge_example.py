"""The recorded example: examples/acme holds a [judge] table and a committed judge cache, so the report and the
gate run with no agent installed (the command it names is never run here: CI=true reads the cache only)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.ci.test_action import git
from tests.conftest import ACME
from tests.support.cli import run

CACHE = ACME / ".skillsift" / "judge-cache.jsonl"


@pytest.fixture(autouse=True)
def _ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "SKILLSIFT_ALLOW_NETWORK"):
        monkeypatch.delenv(var, raising=False)


def test_the_committed_cache_answers_every_case_of_the_example(capsys, monkeypatch):
    monkeypatch.setenv("PATH", "")  # no agent (no program at all) can be found: nothing may run
    code, out, err = run(capsys, "judge", ACME / "search-cases.yaml", "--root", ACME, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["calls"] == 0 and doc["limits"] == []
    assert {c["source"] for c in doc["cases"]} == {"cache"} and doc["counts"]["answered"] == 38
    # the figures are those of the recorded answers, counted here from the file itself
    answers = {json.loads(line)["case"]: json.loads(line)["choice"] for line in CACHE.read_text().splitlines()}
    positives = [c for c in doc["cases"] if c["expected"]]
    right = sum(answers[c["id"]] in c["expected"] for c in positives)
    assert doc["figures"]["agent_top1"]["value"] == round(right / len(positives), 4)
    agree = sum(answers[c["id"]] == c["ranker_first"] for c in doc["cases"])
    assert doc["figures"]["agreement"]["value"] == round(agree / 38, 4)
    code, text, _ = run(capsys, "judge", ACME / "search-cases.yaml", "--root", ACME)
    assert "38 cases, 38 answered; 0 calls made; answers kept in .skillsift/judge-cache.jsonl" in text
    assert "disagreements (" in text


def _repository(tmp_path):
    root = tmp_path / "acme"
    shutil.copytree(ACME, root, ignore=shutil.ignore_patterns("index"))
    config = root / "skillsift.toml"
    config.write_text(config.read_text() + "\n[validate]\njudge_max_flips = 0\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "feature")
    return root


def _pull_request(root, edit) -> None:
    edit(root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "pull request")
    git(root, "update-ref", "refs/remotes/origin/main", "main")
    git(root, "checkout", "-q", "--detach", "feature")


def test_the_gate_replays_base_and_head_from_the_committed_cache(capsys, monkeypatch, tmp_path):
    root = _repository(tmp_path)

    def body_only(project):  # the listing is unchanged: every head question is in the cache
        path = project / ".claude" / "skills" / "issue-refund" / "SKILL.md"
        path.write_text(path.read_text() + "\nOne more line of body, which no listing shows.\n")

    _pull_request(root, body_only)
    monkeypatch.chdir(root)
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json")
    doc = json.loads(out)
    assert doc["judge"] == {"max_flips": 0, "regressed": [], "fixed": [], "unknown": [],
                            "base_unanswered": 0}, err
    assert {"name": "agent's choices against the base (judge)", "passed": True,
            "detail": "0 cases regressed, 0 fixed (max 0)"} in doc["checks"]


def test_a_description_changed_without_asking_the_agent_fails_the_gate(capsys, monkeypatch, tmp_path):
    root = _repository(tmp_path)

    def reword(project):
        path = project / ".claude" / "skills" / "issue-refund" / "SKILL.md"
        path.write_text(path.read_text().replace("Issue a full or partial refund", "Refund", 1))

    _pull_request(root, reword)
    monkeypatch.chdir(root)
    code, out, _ = run(capsys, "ci", "--base", "main", "--format", "json")
    doc = json.loads(out)
    answers = [json.loads(line) for line in CACHE.read_text().splitlines()]
    ranked = json.loads(run(capsys, "eval", root / "search-cases.yaml", "--root", root, "--format", "json")[1])
    expected = {c["id"]: c["expected"] for c in ranked["cases"]}
    right_on_base = {a["case"] for a in answers if a["choice"] in expected.get(a["case"], [])}
    assert set(doc["judge"]["unknown"]) == right_on_base and right_on_base
    assert code == 2 and any("without a cached head answer" in f for f in doc["failures"])
