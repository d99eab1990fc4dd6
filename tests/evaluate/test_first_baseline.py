"""The first baseline: ``eval --output`` writes the configured ``[validate] baseline`` when it is not there yet.

docs/evaluation.md, "The first baseline": the run applies the other gates, says it made the
first one, and a run that does not write it is told the command that would, never itself.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import write_skill
from tests.support.cli import run

CASES = ("version: 1\ncases:\n  - id: refund\n    query: reimburse a returned purchase\n    expect: [issue-refund]\n"
         "  - id: dispute\n    query: bank chargeback dispute\n    expect: [dispute-charge]\n")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    write_skill(root, "issue-refund", "Reimburse a customer for a returned purchase")
    write_skill(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    (root / "search-cases.yaml").write_text(CASES, encoding="utf-8")
    (root / "skillsift.toml").write_text('[validate]\nbaseline = "eval-baseline.json"\n', encoding="utf-8")
    return root


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_eval_output_writes_the_first_configured_baseline(project, capsys, monkeypatch, fmt):
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "eval", "search-cases.yaml", "--output", "eval-baseline.json", "--format", fmt)
    assert code == 0, err
    assert "wrote the first baseline eval-baseline.json" in err
    assert "cannot read baseline" not in err
    written = json.loads((project / "eval-baseline.json").read_text(encoding="utf-8"))
    assert written["schema_version"] and len(written["cases"]) == 2
    if fmt == "json":
        assert json.loads(out)["cases"] == written["cases"]
    else:
        assert "baseline eval-baseline.json (none yet: this run writes the first)" in out
    # the next run compares with it, as the hooks and ci do
    code, out, err = run(capsys, "eval", "search-cases.yaml", "--format", fmt)
    assert code == 0 and "first baseline" not in err
    if fmt == "text":
        assert "baseline eval-baseline.json (at most 0 regressed)" in out
    else:
        assert json.loads(out)["cases"] == written["cases"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_run_that_does_not_write_it_is_told_the_command_that_would(project, capsys, monkeypatch, fmt):
    monkeypatch.chdir(project)
    for extra in ([], ["--output", "elsewhere.json"]):
        code, _out, err = run(capsys, "eval", "search-cases.yaml", "--format", fmt, *extra)
        assert code == 1 and "cannot read baseline eval-baseline.json ([validate] baseline): it does not exist yet" \
            in err
        hint = next(line for line in err.splitlines() if line.startswith("hint:"))
        assert hint == "hint: write the first one: skillsift eval search-cases.yaml --output eval-baseline.json"
        assert not os.path.exists(project / "eval-baseline.json")
    # from another folder the hint names the path from there
    monkeypatch.chdir(project.parent)
    code, _out, err = run(capsys, "eval", "proj/search-cases.yaml", "--root", "proj")
    assert code == 1 and "--output proj/eval-baseline.json" in err
    code, _out, err = run(capsys, "eval", "proj/search-cases.yaml", "--root", "proj", "--output",
                          "proj/eval-baseline.json")
    assert code == 0 and "wrote the first baseline" in err and (project / "eval-baseline.json").is_file()


def test_an_unreadable_baseline_is_still_an_error(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    (project / "eval-baseline.json").write_text("{not json", encoding="utf-8")
    code, _out, err = run(capsys, "eval", "search-cases.yaml", "--output", "eval-baseline.json")
    assert code == 1 and "is not valid JSON" in err
    assert (project / "eval-baseline.json").read_text(encoding="utf-8") == "{not json"
