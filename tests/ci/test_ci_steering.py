"""A pull request cannot steer the ranking unseen (docs/github-action.md, "Changes to the gate").

* Known requests written for the PR's own skill, equal to the gated cases' queries: `skillsift ci`
  ranks the head as `skillsift search` does (a request of another skill is never held out as the
  case's own evidence), so every case the requests capture is a regression, and each request is
  a gate change with its file.
* A ranking setting, a role, the index's model, a pin: each is a gate change, and
  `--fail-on-gate-change` fails on it.

Real git repositories (base on ``origin/main``, the pull request checked out detached), the
deterministic concept embedder as a command provider for the vector runs.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.ci.test_action import git, table_rows
from tests.conftest import write_refund_catalog, write_skill
from tests.support.cli import load_schema, run, set_user_config
from tests.support.concept_embedder import user_config

CASES = """version: 1
k: 1
cases:
  - id: refund-1
    query: refund a customer
    expect: [issue-refund]
  - id: refund-2
    query: money back for a returned purchase
    expect: [issue-refund]
  - id: deploy-1
    query: roll out to the staging cluster
    expect: [deploy-staging]
  - id: dispute-1
    query: bank chargeback dispute
    expect: [dispute-charge]
  - id: git-1
    query: git branching conventions
    expect: [git-workflow]
"""
STEERED = ["refund a customer", "money back for a returned purchase", "roll out to the staging cluster"]
VECTOR_CONFIG = '[search]\nmode = "vector"\nexample_weight = 1.0\nexamples = ["requests.yaml"]\n'
REQUESTS = "version: 1\ncases:\n  - id: r1\n    query: pull request conventions\n    expect: [git-workflow]\n"


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


def pull_request(repo, capsys, edit, *, config: str = VECTOR_CONFIG, index: bool = True, reindex: bool = True):
    """``main``: the refund catalog, the cases, ``config`` (and its committed index); the pull request: ``edit``."""
    return commit_pull_request(repo, capsys, {"requests.yaml": REQUESTS, "skillsift.toml": config}, edit, index=index,
                               reindex=reindex)


def commit_pull_request(repo, capsys, files: dict, edit, *, index: bool, reindex: bool = True):
    """``main``: the refund catalog, the cases and ``files`` (and the committed index when ``index``); the pull
    request: ``edit`` (indexed again when ``reindex``); checked out detached."""
    write_refund_catalog(repo)
    (repo / "search-cases.yaml").write_text(CASES, encoding="utf-8")
    for name, text in files.items():
        (repo / name).write_text(text, encoding="utf-8")
    if index:
        assert run(capsys, "index", "--root", repo)[0] == 0
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    edit(repo)
    if index and reindex:
        assert run(capsys, "index", "--root", repo)[0] == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pull request")
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    git(repo, "checkout", "-q", "--detach", "feature")
    git(repo, "branch", "-q", "-D", "main")
    return repo


def in_frontmatter(repo):
    write_skill(repo, "git-workflow", "Branching and pull request conventions",
                extra="examples:\n" + "".join(f"  - {json.dumps(q)}\n" for q in STEERED))


def in_examples_file(repo):
    text = REQUESTS + "".join(f"  - id: s{n}\n    query: {json.dumps(q)}\n    expect: [git-workflow]\n"
                              for n, q in enumerate(STEERED))
    (repo / "requests.yaml").write_text(text, encoding="utf-8")


def first_of(repo, capsys, query: str) -> str:
    code, out, err = run(capsys, "search", query, "--root", repo, "--format", "json")
    assert code == 0, err
    return json.loads(out)["results"][0]["name"]


@pytest.mark.parametrize(("edit", "where"), [(in_frontmatter, ".claude/skills/git-workflow/SKILL.md"),
                                             (in_examples_file, "requests.yaml")])
def test_requests_equal_to_the_gated_queries_are_regressions_and_gate_changes(tmp_path, capsys, monkeypatch,
                                                                              edit, where):
    set_user_config(user_config())
    repo = pull_request(tmp_path / "repo", capsys, edit)
    # what production ranks at the head: the pull request's skill first for every steered query
    captured = [q for q in STEERED if first_of(repo, capsys, q) == "git-workflow"]
    assert captured == STEERED[:2]  # the deploy query has one close request only: the top-2 mean holds it
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json")
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("ci.v1.json"))
    assert code == 2, out + err
    regressed = {c["id"]: c for c in doc["regressed"]}
    assert sorted(regressed) == ["refund-1", "refund-2"], doc  # exactly the cases production now gets wrong
    # CI's head ranks are production's: each listed case's expected skill sits where `search` puts it
    for change in [*doc["regressed"], *doc["moved"]]:
        code, found, _ = run(capsys, "search", change["query"], "--root", repo, "--format", "json", "--limit", "10")
        names = [r["name"] for r in json.loads(found)["results"]]
        assert names.index(change["expected"][0]) + 1 == change["head_rank"], (change, names)
        assert names[0] == change["first_head"]
    added = [g for g in doc["gate_changes"] if g["kind"] == "example"]
    assert sorted(g["subject"] for g in added) == sorted(STEERED)
    assert {(g["what"], g["after"], g["file"]) for g in added} == {("request added", "git-workflow", where)}
    code, text, err = run(capsys, "ci", "--base", "main")
    assert code == 2
    rows = table_rows(text, "Changes to the gate")[1:]
    assert [r[0] for r in rows] == ["request added"] * 3
    assert all(f"(`{where}`" in r[1] for r in rows)
    assert [r[0] for r in table_rows(text, "Regressed")] == ["`refund-1`", "`refund-2`"]


LEXICAL_CONFIG = '[search]\nexample_weight = 0.6\n\n[roles.support]\nskills = ["issue-refund"]\n'


def _gate(capsys, *flags):
    code, out, err = run(capsys, "ci", "--base", "main", "--format", "json", *flags)
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("ci.v1.json"))
    return code, doc["gate_changes"], doc


@pytest.mark.parametrize(("config", "subject", "before", "after"), [
    (LEXICAL_CONFIG.replace("0.6", "1.0"), "search.example_weight", "0.6", "1.0"),
    (LEXICAL_CONFIG.replace('["issue-refund"]', '["issue-refund", "git-workflow"]'), "roles.support",
     '{"skills": ["issue-refund"]}', '{"skills": ["issue-refund", "git-workflow"]}'),
    (LEXICAL_CONFIG + '\n[roles.ops]\nskills = ["*"]\n', "roles.ops", "", '{"skills": ["*"]}'),
    (LEXICAL_CONFIG + '\n[embeddings]\nmodel = "another-model"\n', "embeddings.model", "", '"another-model"'),
    (LEXICAL_CONFIG.replace("[search]\n", '[search]\nfusion = "rrf"\nweights = {lexical = 3.0}\n'),
     "search.fusion", "", '"rrf"'),
    (LEXICAL_CONFIG.replace("[search]\n", '[search]\nexamples = ["requests.yaml"]\n'), "search.examples", "",
     '["requests.yaml"]'),
])
def test_a_ranking_setting_changed_alone_is_a_gate_change(tmp_path, capsys, monkeypatch, config, subject,
                                                           before, after):
    def edit(repo):
        (repo / "skillsift.toml").write_text(config, encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, edit, config=LEXICAL_CONFIG, index=False)
    monkeypatch.chdir(repo)
    code, changes, doc = _gate(capsys)
    assert code == 0 and doc["regressed"] == []  # both sides ranked with the head's config: nothing moved
    assert changes[0] == {"kind": "config", "subject": subject, "before": before, "after": after,
                          "what": "added" if not before else "changed"}, changes
    code, text, _ = run(capsys, "ci", "--base", "main")
    assert "### Changes to the gate" in text and f"`{subject}`" in text
    n = f"{len(changes)} change" + ("s" if len(changes) > 1 else "")
    assert text.splitlines()[0] == (f"## skillsift ci · ✅ passed: no ranking change; {n} to the gate "
                                    "(reported, not gated)")
    code, changes, doc = _gate(capsys, "--fail-on-gate-change")
    assert code == 2 and doc["status"] == "failed"
    assert "changes its own gate" in doc["verdict"]


def test_a_setting_that_steers_nothing_is_no_gate_change(tmp_path, capsys, monkeypatch):
    def edit(repo):
        (repo / "skillsift.toml").write_text(LEXICAL_CONFIG.replace("[search]\n", "[search]\nbatch_size = 8\n"),
                                             encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, edit, config=LEXICAL_CONFIG, index=False)
    monkeypatch.chdir(repo)
    code, changes, _doc = _gate(capsys, "--fail-on-gate-change")
    assert code == 0 and changes == []


def test_a_skill_named_after_a_gated_query_is_a_pin_change(tmp_path, capsys, monkeypatch):
    def edit(repo):
        write_skill(repo, "refund-a-customer", "Anything at all")

    repo = pull_request(tmp_path / "repo", capsys, edit, config=LEXICAL_CONFIG, index=False)
    monkeypatch.chdir(repo)
    code, changes, _doc = _gate(capsys, "--fail-on-gate-change")
    assert code == 2
    assert changes == [{"kind": "pin", "subject": "refund-1", "before": "", "after": "refund-a-customer",
                        "what": "pin added", "line": 4}]


def test_the_index_model_changed_is_a_gate_change(tmp_path, capsys, monkeypatch):
    set_user_config(user_config())

    def edit(repo):
        manifest = repo / ".skillsift" / "index" / "manifest.json"
        doc = json.loads(manifest.read_text(encoding="utf-8"))
        assert doc["provider"].startswith("command")
        doc["model"] = "doctored-model"
        manifest.write_text(json.dumps(doc), encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, edit, config='[search]\nmode = "lexical"\n', reindex=False)
    monkeypatch.chdir(repo)
    code, changes, _doc = _gate(capsys)
    assert changes == [{"kind": "index", "subject": "index model", "before": "",
                        "after": "doctored-model", "what": "changed", "file": ".skillsift/index/manifest.json"}]
    code, changes, _doc = _gate(capsys, "--fail-on-gate-change")
    assert code == 2


def test_sources_and_the_lock_changed_are_gate_changes(tmp_path, capsys, monkeypatch):
    def edit(repo):
        shared = repo / "shared-skills"
        write_skill(shared, "refund-a-customer", "Refund a customer", layout="")
        source = '\n[[sources]]\nname = "shared"\npath = "shared-skills"\n'
        (repo / "skillsift.toml").write_text(LEXICAL_CONFIG + source, encoding="utf-8")
        (repo / "skillsift.lock").write_text('{"version": 1}\n', encoding="utf-8")

    repo = pull_request(tmp_path / "repo", capsys, edit, config=LEXICAL_CONFIG, index=False)
    monkeypatch.chdir(repo)
    code, changes, _doc = _gate(capsys)
    kinds = {(c["kind"], c["subject"], c["what"]) for c in changes}
    assert ("config", "sources", "added") in kinds and ("lock", "skillsift.lock", "added") in kinds, changes
    code, changes, _doc = _gate(capsys, "--fail-on-gate-change")
    assert code == 2
