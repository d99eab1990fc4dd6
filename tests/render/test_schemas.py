"""Every JSON output of the CLI validates against the schema shipped for it in skillsift/schemas/."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from tests.conftest import ROOT, write_skill
from tests.support.cli import load_schema, run

# command -> the schema its --format json output follows (docs name the same files)
OUTPUTS = {
    "search": "search.v1.json",
    "eval": "search-eval.v1.json",
    "validate": "diagnostics.v1.json",
    "status": "status.v1.json",
    "index": "index.v1.json",
}


def check(command: str, text: str) -> dict:
    doc = json.loads(text)
    schema = load_schema(OUTPUTS[command])
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    validator.validate(doc)
    return doc


def test_every_shipped_schema_is_a_valid_draft_2020_12_schema():
    names = sorted(p.name for p in resources.files("skillsift.schemas").iterdir() if p.name.endswith(".json"))
    assert set(OUTPUTS.values()) <= set(names)
    for name in names:
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_search_outputs(capsys, acme):
    for argv in (["refund"], ["zzz-nothing"], ["deploy", "--explain", "--role", "platform"]):
        code, out, _ = run(capsys, "search", *argv, "--root", acme, "--format", "json")
        assert code == 0
        check("search", out)


def test_search_hybrid_output(capsys, acme):
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    # load the model first: the query budget (query_timeout_ms) is for embedding the query, and a
    # busy test machine must measure the ranking, not how long the model takes to load
    from skillsift.embed.local import LocalProvider

    LocalProvider().load()
    code, out, _ = run(capsys, "search", "customer wants their money back", "--mode", "hybrid", "--root", acme,
                       "--format", "json")
    assert code == 0 and check("search", out)["ranking"] != "lexical"


def test_eval_output(capsys, acme):
    code, out, _ = run(capsys, "eval", acme / "search-cases.yaml", "--root", acme, "--format", "json")
    assert code == 0
    check("eval", out)


def test_validate_outputs_and_a_root_that_does_not_depend_on_the_machine(capsys, tmp_path, monkeypatch):
    for where in ("one", "two"):
        project = tmp_path / where / "repo"
        write_skill(project, "ok", "Deploy the service to staging")
        write_skill(project, "nodesc", "")
        (project / "search-cases.yaml").write_text("version: 1\ncases:\n  - {id: a, query: q, nope: 1}\n",
                                                   encoding="utf-8")
    outputs = []
    for where in ("one", "two"):
        monkeypatch.chdir(tmp_path / where)
        code, out, _ = run(capsys, "validate", "--root", "repo", "--format", "json")
        assert code == 1
        doc = check("validate", out)
        assert doc["root"] == "repo" and str(tmp_path) not in out
        outputs.append(out)
    assert outputs[0] == outputs[1]  # same tree, same bytes, wherever it sits
    monkeypatch.chdir(tmp_path / "one" / "repo")
    code, out, _ = run(capsys, "validate", "--format", "json")
    assert check("validate", out)["root"] == "."
    monkeypatch.chdir(ROOT)
    code, out, _ = run(capsys, "validate", "--root", "examples/acme", "--format", "json")
    assert code == 0 and check("validate", out)["root"] == "examples/acme"


def test_status_outputs_in_every_state(capsys, acme, tmp_path):
    code, out, _ = run(capsys, "status", "--root", acme, "--format", "json")
    assert code == 0 and check("status", out)["state"] == "fresh"
    path = acme / ".claude/skills/issue-refund/SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Issue a full", "Issue a whole", 1), encoding="utf-8")
    code, out, _ = run(capsys, "status", "--root", acme, "--format", "json")
    assert check("status", out)["state"] == "stale"
    (acme / ".skillsift/index/manifest.json").write_text("{", encoding="utf-8")
    code, out, _ = run(capsys, "status", "--root", acme, "--format", "json")
    assert check("status", out)["state"] == "unreadable"
    bare = tmp_path / "bare"
    write_skill(bare, "one", "Deploy the service")
    code, out, _ = run(capsys, "status", "--root", bare, "--format", "json")
    assert check("status", out)["state"] == "none"


def test_index_outputs_dry_run_and_build(capsys, tmp_path):
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    root = tmp_path / "repo"
    write_skill(root, "deploy", "Deploy the service to staging")
    write_skill(root, "billing", "Answer billing questions", triggers=["invoice"])
    (root / "skillsift.toml").write_text('[search]\nmode = "hybrid"\n', encoding="utf-8")
    code, out, _ = run(capsys, "index", "--root", root, "--format", "json", "--dry-run")
    assert code == 0
    doc = check("index", out)
    assert doc["dry_run"] is True and doc["to_embed"] == 2 and doc["written"] is False
    code, out, _ = run(capsys, "index", "--root", root, "--format", "json")
    doc = check("index", out)
    assert doc["written"] is True and doc["embedded"] == 2 and doc["missing"] == []
    code, out, _ = run(capsys, "index", "--root", root, "--format", "json")
    assert check("index", out)["written"] is False and str(tmp_path) not in out
