"""``tune --judge``: the agent's cached choices as the labels tune scores (off by default; nothing is asked)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ACME
from tests.support.cli import run


@pytest.fixture
def acme(acme, monkeypatch):
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PATH", "")  # no agent can run: the labels come from the committed cache
    return acme


def test_tune_judge_scores_the_agents_choices(acme, capsys):
    cases = acme / "search-cases.yaml"
    answers = [json.loads(line) for line in (ACME / ".skillsift" / "judge-cache.jsonl").read_text().splitlines()]
    chosen = {a["case"] for a in answers if a["status"] == "chosen"}
    code, out, err = run(capsys, "tune", cases, "--root", acme, "--format", "json", "--judge")
    assert code == 0, err
    assert "tune --judge: 38 of 38 cases labelled by the agent's cached answers (0 without" in err
    doc = json.loads(out)
    role_scoped = {"role-billing-money-back"} & chosen  # tune skips a role-scoped case, as without --judge
    assert doc["cases"] == len(chosen - role_scoped)
    assert doc["skipped_cases"] == 38 - len(chosen) + len(role_scoped)
    code, plain, _ = run(capsys, "tune", cases, "--root", acme, "--format", "json")
    assert json.loads(plain)["cases"] == 33  # off by default: the cases file's own labels


def test_tune_judge_needs_a_judge(acme, capsys):
    config = acme / "skillsift.toml"
    config.write_text(config.read_text().split("\n# The agent as judge")[0] + "\n")
    code, _, err = run(capsys, "tune", acme / "search-cases.yaml", "--root", acme, "--judge")
    assert code == 1 and "no judge is configured" in err
