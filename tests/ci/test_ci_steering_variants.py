"""More ways a pull request could steer ranking unseen, each a gate change with its file (and line), through `ci`.

Varied from tests/ci/test_ci_steering.py: the role is added in ``pyproject.toml`` ``[tool.skillsift]``,
the requests come in frontmatter (each gate change names its SKILL.md *and line*) or in a new examples
file added to the list, a skill is renamed to take a pin, a name carries bidirectional controls into the
summary.  ``--fail-on-gate-change`` fails on each; the exit code of a regression stays 2.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.ci.test_ci_steering import CASES, REQUESTS, STEERED, VECTOR_CONFIG, commit_pull_request
from tests.conftest import write_skill
from tests.support.cli import load_schema, run, set_user_config
from tests.support.concept_embedder import user_config


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


def pull_request(repo, capsys, files: dict, edit, *, index: bool = False):
    """``main``: the refund catalog, the cases and ``files``; the pull request: ``edit``; checked out detached."""
    return commit_pull_request(repo, capsys, files, edit, index=index)


def gate(capsys, *flags):
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json", *flags)
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("ci.v1.json"))
    return code, doc


PYPROJECT = '[project]\nname = "acme"\n\n[tool.skillsift.search]\nexample_weight = 0.6\n'


def test_a_role_added_in_pyproject_is_a_gate_change(tmp_path, capsys, monkeypatch):
    def edit(repo):
        (repo / "pyproject.toml").write_text(PYPROJECT + '\n[tool.skillsift.roles.support]\nskills = ["git-*"]\n',
                                             encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, {"pyproject.toml": PYPROJECT}, edit)
    monkeypatch.chdir(repo)
    code, doc = gate(capsys)
    assert code == 0
    assert {"kind": "config", "subject": "roles.support", "before": "", "after": '{"skills": ["git-*"]}',
            "what": "added"} in doc["gate_changes"], doc["gate_changes"]
    code, doc = gate(capsys, "--fail-on-gate-change")
    assert code == 2 and doc["status"] == "failed"


def test_example_weight_raised_in_pyproject_is_a_gate_change(tmp_path, capsys, monkeypatch):
    def edit(repo):
        (repo / "pyproject.toml").write_text(PYPROJECT.replace("0.6", "1.0"), encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, {"pyproject.toml": PYPROJECT}, edit)
    monkeypatch.chdir(repo)
    code, doc = gate(capsys, "--fail-on-gate-change")
    assert code == 2
    assert [(g["subject"], g["before"], g["after"]) for g in doc["gate_changes"]] == [
        ("search.example_weight", "0.6", "1.0")]


def test_frontmatter_requests_are_gate_changes_with_their_skill_md_line(tmp_path, capsys, monkeypatch):
    set_user_config(user_config())

    def edit(repo):
        write_skill(repo, "git-workflow", "Branching and pull request conventions",
                    extra="tags: [git]\nexamples:\n" + "".join(f"  - query: {json.dumps(q)}\n" for q in STEERED))

    repo = pull_request(tmp_path / "repo", capsys, {"skillsift.toml": VECTOR_CONFIG, "requests.yaml": REQUESTS},
                        edit, index=True)
    skill = ".claude/skills/git-workflow/SKILL.md"
    lines = (repo / skill).read_text(encoding="utf-8").splitlines()
    want = {q: lines.index(f"  - query: {json.dumps(q)}") + 1 for q in STEERED}
    monkeypatch.chdir(repo)
    code, doc = gate(capsys)
    assert code == 2  # the captured cases regress: exit 2, not 1
    added = {g["subject"]: g for g in doc["gate_changes"] if g["kind"] == "example"}
    assert sorted(added) == sorted(STEERED)
    assert {q: (g["file"], g["line"]) for q, g in added.items()} == {q: (skill, n) for q, n in want.items()}
    code, text, _ = run(capsys, "ci", "--base", "main")
    assert code == 2
    for n in want.values():
        assert f"{skill}:{n}" in text or f"{skill}`, line {n}" in text or f"line {n}" in text


def test_a_new_examples_file_added_to_the_list_is_seen(tmp_path, capsys, monkeypatch):
    set_user_config(user_config())
    more = "version: 1\ncases:\n" + "".join(f"  - id: m{n}\n    query: {json.dumps(q)}\n    expect: [git-workflow]\n"
                                            for n, q in enumerate(STEERED))

    def edit(repo):
        (repo / "more-requests.yaml").write_text(more, encoding="utf-8")
        (repo / "skillsift.toml").write_text(VECTOR_CONFIG.replace('["requests.yaml"]',
                                                                   '["requests.yaml", "more-requests.yaml"]'),
                                             encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, {"skillsift.toml": VECTOR_CONFIG, "requests.yaml": REQUESTS},
                        edit, index=True)
    monkeypatch.chdir(repo)
    code, doc = gate(capsys)
    assert code == 2, json.dumps(doc, indent=1)[:3000]
    kinds = {(g["kind"], g["subject"]) for g in doc["gate_changes"]}
    assert ("config", "search.examples") in kinds
    added = [g for g in doc["gate_changes"] if g["kind"] == "example"]
    assert sorted((g["subject"], g["file"], g["line"]) for g in added) == sorted(
        (q, "more-requests.yaml", 3 + 3 * n) for n, q in enumerate(STEERED))
    code, doc = gate(capsys, "--fail-on-gate-change")
    assert code == 2 and "changes its own gate" in doc["verdict"]


def test_the_same_examples_file_listed_twice_counts_once(tmp_path, capsys, monkeypatch):
    set_user_config(user_config())

    def edit(repo):
        (repo / "skillsift.toml").write_text(VECTOR_CONFIG.replace('["requests.yaml"]',
                                                                   '["requests.yaml", "./requests.yaml"]'),
                                             encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, {"skillsift.toml": VECTOR_CONFIG, "requests.yaml": REQUESTS},
                        edit, index=True)
    monkeypatch.chdir(repo)
    code, doc = gate(capsys)
    assert code == 0 and doc["regressed"] == []
    assert [g["kind"] for g in doc["gate_changes"]] == ["config"]  # the list changed; no request was added
    code, out, err = run(capsys, "validate", "--root", repo)
    assert code == 0, out + err


def test_a_skill_renamed_to_take_a_pin_is_a_gate_change(tmp_path, capsys, monkeypatch):
    """A skill no case names is renamed after a gated query: the exact-name pin would rank it first."""
    def edit(repo):
        import shutil

        shutil.rmtree(repo / ".claude/skills/misc-notes")
        write_skill(repo, "roll-out-to-the-staging-cluster", "Notes of all kinds")

    def base_with_notes(repo):
        write_skill(repo, "misc-notes", "Notes of all kinds")

    repo = tmp_path / "repo"
    base_with_notes(repo)
    repo = pull_request(repo, capsys, {"skillsift.toml": '[search]\nmode = "lexical"\n'}, edit)
    monkeypatch.chdir(repo)
    code, doc = gate(capsys, "--fail-on-gate-change")
    assert code == 2, doc
    pins = [g for g in doc["gate_changes"] if g["kind"] == "pin"]
    assert [(g["subject"], g["after"], g["what"]) for g in pins] == [
        ("deploy-1", "roll-out-to-the-staging-cluster", "pin added")]


@pytest.mark.parametrize("where", ["query", "expect"])
def test_bidirectional_controls_and_html_in_names_never_reach_the_summary_raw(tmp_path, capsys, monkeypatch, where):
    hostile = "refund\u202e-gnp.exe\u2066</details>``<img src=x>"

    def edit(repo):
        if where == "query":  # a changed case: listed among the gate changes, ranked on both sides
            cases = CASES.replace("query: refund a customer", f"query: {json.dumps(hostile)}")
        else:  # an unknown skill: the head cannot be evaluated, the error names it
            listed = f"    expect: [issue-refund, {json.dumps(hostile)}]\n"
            cases = CASES.replace("    expect: [issue-refund]\n", listed, 1)
        (repo / "search-cases.yaml").write_text(cases, encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, {"skillsift.toml": '[search]\nmode = "lexical"\n'}, edit)
    monkeypatch.chdir(repo)
    summary = tmp_path / "summary.md"
    code, text, err = run(capsys, "ci", "--base", "main", "--summary", summary)
    assert code in ((0, 2) if where == "query" else (1,)), text + err
    written = summary.read_text(encoding="utf-8")
    assert "refund" in written
    for raw in ("\u202e", "\u2066", "</details>``", "<img"):
        assert raw not in written  # the job summary is Markdown: nothing renders as HTML or reorders text
    assert "\u202e" not in text + err and "\u2066" not in text + err  # the terminal: escaped, \\u202e
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json")
    assert "\u202e" not in out and "\u2066" not in out  # escaped in the JSON text
