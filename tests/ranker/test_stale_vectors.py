"""Stale or missing vectors are never silent (docs/vector-index.md, "Stale vectors at search time").

With the local model (in this process) a skill edited after ``skillsift index`` is embedded in
memory for the run and stderr says so; with a provider outside the process (a real
OpenAI-compatible server on 127.0.0.1) no skill text is sent at search time: the command names
the stale skills and says to run ``skillsift index``, and ``eval`` counts the run as degraded.
"""

from __future__ import annotations

import json

import pytest

from skillsift.index.store import load_index
from tests.support.cli import run, set_user_config

EDIT = "Give the customer their money back for an order, fully or in part."


def _edit_refund(root) -> None:
    skill = root / ".claude/skills/issue-refund/SKILL.md"
    lines = skill.read_text(encoding="utf-8").splitlines()
    lines = [f"description: {EDIT}" if line.startswith("description:") else line for line in lines]
    skill.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def local_acme(acme):
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    return acme


def test_a_local_search_embeds_the_edited_skill_for_the_run_and_says_so(local_acme, capsys):
    index_dir = local_acme / ".skillsift/index"
    before = {p.name: p.read_bytes() for p in index_dir.iterdir()}
    _edit_refund(local_acme)
    code, out, err = run(capsys, "search", "customer wants their money back", "--mode", "hybrid",
                         "--root", local_acme, "--format", "json")
    assert code == 0, err
    assert ("note: the index has no current vector for 1 skill (issue-refund): embedded in memory for this run; "
            "run 'skillsift index' and commit the index to keep them") in err
    hits = json.loads(out)["results"]
    assert hits[0]["name"] == "issue-refund" and not hits[0].get("stale_vector")
    assert {p.name: p.read_bytes() for p in index_dir.iterdir()} == before  # nothing written


def test_a_local_eval_ranks_the_edited_skill_by_its_new_text(local_acme, capsys):
    _edit_refund(local_acme)
    cases = local_acme / "search-cases.yaml"
    code, out, err = run(capsys, "eval", cases, "--root", local_acme, "--mode", "hybrid", "--format", "json")
    assert code == 0, err
    assert "embedded in memory for this run" in err and "issue-refund" in err
    doc = json.loads(out)
    assert doc["index"]["stale_items"] == 0 and doc["index"]["missing_items"] == 0
    # the same numbers as after 'skillsift index': the run ranked what the skills say now
    assert run(capsys, "index", "--root", local_acme)[0] == 0
    code, again, err = run(capsys, "eval", cases, "--root", local_acme, "--mode", "hybrid", "--format", "json")
    assert code == 0 and "embedded in memory" not in err
    assert json.loads(again)["modes"] == doc["modes"]


def test_a_new_skill_without_a_row_is_embedded_for_the_run(local_acme, capsys, skill_writer):
    skill_writer(local_acme, "pay-out-bonus", "Pay a sales bonus to an employee through payroll.")
    code, out, err = run(capsys, "search", "pay the quarterly sales bonus", "--mode", "hybrid", "--root", local_acme,
                         "--format", "json")
    assert code == 0, err
    assert "no current vector for 1 skill (pay-out-bonus)" in err
    assert json.loads(out)["results"][0]["name"] == "pay-out-bonus"


@pytest.fixture
def remote(tmp_path, server, monkeypatch, skill_writer):
    monkeypatch.setenv("EMBED_KEY", "k-0123456789")
    set_user_config('[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\n'
                    f'base_url = "{server.base_url}"\napi_key_env = "EMBED_KEY"\nallow_network = true\n')
    root = tmp_path / "repo"
    skill_writer(root, "issue-refund", "Refund an order from the billing console.", triggers=["refund an order"])
    skill_writer(root, "deploy-staging", "Deploy a service to the staging cluster.", triggers=["deploy to staging"])
    skill_writer(root, "write-postmortem", "Write a blameless postmortem.", triggers=["write a postmortem"])
    (root / "skillsift.toml").write_text('[search]\nmode = "hybrid"\n', encoding="utf-8")
    (root / "search-cases.yaml").write_text(
        "version: 1\ncases:\n  - id: refund\n    query: refund an order\n    expect: [issue-refund]\n",
        encoding="utf-8")
    return root


def test_a_remote_provider_gets_no_skill_text_and_the_stale_skill_is_named(remote, server, capsys, skill_writer):
    code, _out, err = run(capsys, "index", "--root", remote)
    assert code == 0, err
    assert load_index(remote / ".skillsift/index").ok
    skill_writer(remote, "issue-refund", "Give the customer their money back.", triggers=["refund an order"])
    sent_before = len(server.inputs)
    code, out, err = run(capsys, "search", "refund an order", "--root", remote)
    assert code == 0
    assert ("warning: the index has no current vector for 1 skill (issue-refund), ranked by words only; "
            "run 'skillsift index' and commit the index") in err
    sent = [text for batch in server.inputs[sent_before:] for text in batch]
    assert sent == ["refund an order"]  # the query only: a search never sends a skill
    # eval counts it as degraded: exit 1, no baseline written
    baseline = remote / "base.json"
    code, out, err = run(capsys, "eval", remote / "search-cases.yaml", "--root", remote, "--output", baseline)
    assert code == 1
    assert "hybrid: 1 skill ranked by words only, the index has no current vector for them (issue-refund)" in err
    assert "hint: run 'skillsift index' and commit the index" in err
    assert not baseline.exists()
    # after 'skillsift index' the same run passes
    assert run(capsys, "index", "--root", remote)[0] == 0
    code, out, err = run(capsys, "eval", remote / "search-cases.yaml", "--root", remote)
    assert code == 0, err
    assert "no current vector" not in err


# -- known requests added to an examples file after `skillsift index` --------------------------------------------

NEW_REQUEST = "the zebra stripes look wrong on the dashboard"


def _add_request(root) -> None:
    path = root / "search-examples.yaml"
    path.write_text(path.read_text(encoding="utf-8") + f'  - id: known-zebra\n    query: "{NEW_REQUEST}"\n'
                    "    expect: [csv-cleanup]\n", encoding="utf-8")


def test_a_known_request_added_after_the_index_is_embedded_for_the_run(local_acme, capsys):
    index_dir = local_acme / ".skillsift/index"
    before = {p.name: p.read_bytes() for p in index_dir.iterdir()}
    _add_request(local_acme)
    query = ["search", "zebra stripes on the dashboard look wrong", "--mode", "hybrid", "--root", local_acme]
    code, out, err = run(capsys, *query, "--explain")
    assert code == 0, err
    assert ("note: the index has no vector for 1 known request of the examples files: embedded in memory for "
            "this run") in err
    assert out.splitlines()[1].split()[5] == "csv-cleanup"  # ranked first by the new request alone
    assert f'closest known request: "{NEW_REQUEST}"' in out
    assert {p.name: p.read_bytes() for p in index_dir.iterdir()} == before  # nothing written
    code, in_memory, _ = run(capsys, *query, "--format", "json")
    assert code == 0
    # the same ranking as once the index holds the request
    assert run(capsys, "index", "--root", local_acme)[0] == 0
    code, indexed, err = run(capsys, *query, "--format", "json")
    assert code == 0 and "known request" not in err
    assert json.loads(indexed)["results"] == json.loads(in_memory)["results"]


def test_the_mcp_server_takes_an_edited_examples_file_without_an_index_run(local_acme, monkeypatch):
    from skillsift.mcpserver.service import SkillService

    monkeypatch.setenv("SKILLSIFT_SEARCH_MODE", "hybrid")
    warnings: list[str] = []
    service = SkillService(str(local_acme), warn=warnings.append, recheck_interval=0)
    query = "zebra stripes on the dashboard look wrong"
    assert service.find_skill(query)["results"][0]["name"] != "csv-cleanup"
    _add_request(local_acme)
    assert service.find_skill(query)["results"][0]["name"] == "csv-cleanup"
    assert service.reloads == 2
    assert any("no vector for 1 known request of the examples files: embedded in memory" in w for w in warnings)


def test_a_remote_provider_gets_no_request_text_and_the_new_requests_are_counted(remote, server, capsys):
    (remote / "skillsift.toml").write_text('[search]\nmode = "hybrid"\nexamples = ["known.yaml"]\n', encoding="utf-8")
    known = remote / "known.yaml"
    known.write_text('version: 1\ncases:\n  - id: a\n    query: "money back for an order"\n'
                     "    expect: [issue-refund]\n", encoding="utf-8")
    assert run(capsys, "index", "--root", remote)[0] == 0
    known.write_text(known.read_text(encoding="utf-8") + '  - id: b\n    query: "ship the build to staging"\n'
                     "    expect: [deploy-staging]\n", encoding="utf-8")
    sent_before = len(server.inputs)
    code, _out, err = run(capsys, "search", "refund an order", "--root", remote)
    assert code == 0
    assert ("warning: the index has no vector for 1 known request of the examples files, so they are not used; "
            "run 'skillsift index' and commit the index") in err
    assert [t for batch in server.inputs[sent_before:] for t in batch] == ["refund an order"]
