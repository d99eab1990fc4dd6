"""Every planted secret is flagged, withheld, never sent and never logged (docs/secrets.md).

A planted set (every rule and the common variants, in a description, a trigger, a keyword,
the body and the name) is indexed against a recording OpenAI-compatible server on
127.0.0.1, validated, and then searched for in hybrid mode through the MCP service with
the query log on.
"""

from __future__ import annotations

import json

import pytest

from skillsift.cli import main
from tests.support.cli import set_user_config
from tests.support.secret_samples import PLACEMENTS, write_planted

CLEAN = ("plan-release", "Plans a release and writes the notes."), ("write-tests", "Writes unit tests for a module.")


def _user_config(server) -> None:
    set_user_config(
        "[embeddings]\n"
        'provider = "openai"\n'
        'model = "text-embedding-3-small"\n'
        f'base_url = "{server.base_url}"\n'
        'api_key_env = "EMBED_KEY"\n'
        "allow_network = true\n"
        "[search]\n"
        "log_queries = true\n"
    )


@pytest.fixture
def planted(tmp_path, server, monkeypatch):
    monkeypatch.setenv("EMBED_KEY", "k-0123456789")
    _user_config(server)
    root = tmp_path / "repo"
    entries = write_planted(root, seed=21)
    for name, description in CLEAN:
        path = root / ".claude/skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\nname: {name}\ndescription: {description}\n---\nSteps.\n", encoding="utf-8")
    (root / "skillsift.toml").write_text("[search]\nindex_body = true\nmode = \"hybrid\"\n", encoding="utf-8")
    return root, entries


def _sent(server) -> bytes:
    return b"\n".join(server.bodies)


def _values(entries):
    return [value for *_rest, value in entries]


def test_every_planted_secret_is_withheld_and_none_reaches_the_server(planted, server, capsys):
    root, entries = planted
    assert len({kind for _id, _p, kind, _l, _v in entries}) >= 60
    assert {placement for _id, placement, *_ in entries} == set(PLACEMENTS)
    code = main(["index", "--root", str(root), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    withheld = {item["id"].split(" ", 1)[0] for item in doc["withheld"]}
    assert withheld == {skill_id for skill_id, *_ in entries}
    sent = _sent(server)
    assert b"Plans a release" in sent and b"Writes unit tests" in sent  # the clean skills were embedded
    leaked = [skill_id for skill_id, _p, _k, _l, value in entries if value.encode() in sent
              or json.dumps(value)[1:-1].encode() in sent]
    assert leaked == []
    shown = [skill_id for skill_id, _p, _k, _l, value in entries if value in out + err]
    assert shown == []  # a secret in a name is masked in the AR9D3 lines and the summary


def test_validate_flags_every_planted_secret(planted, capsys):
    root, entries = planted
    code = main(["validate", "--root", str(root), "--select", "AR001", "--format", "json"])
    out, _err = capsys.readouterr()
    assert code == 1
    doc = json.loads(out)
    flagged = {d["file"].split("/")[-2] for d in doc["diagnostics"]
               if d["code"] == "AR001" and d["severity"] == "error"}
    assert {skill_id for skill_id, *_ in entries} - flagged == set()
    assert flagged <= {skill_id for skill_id, *_ in entries}
    assert not any(value in out for value in _values(entries))  # masked excerpts only


def test_queries_holding_a_secret_are_not_sent_nor_logged(planted, server, capsys):
    from skillsift.mcpserver.service import SkillService

    root, entries = planted
    assert main(["index", "--root", str(root)]) == 0
    capsys.readouterr()
    before = len(server.requests)
    warnings: list[str] = []
    service = SkillService(str(root), warn=warnings.append)
    clean = service.find_skill("plan the release notes")
    assert clean["ranking"] == "hybrid" and clean["degraded"] is None
    assert len(server.requests) == before + 1
    for _id, _placement, _kind, line, _value in entries:
        result = service.find_skill(f"how do I use {line}")
        assert result["degraded"] == "secret_withheld", line
        assert result["ranking"] == "lexical"
    assert len(server.requests) == before + 1  # no query holding a secret was sent
    assert any("holds a secret" in w for w in warnings)
    sent = _sent(server)
    assert not [v for v in _values(entries) if v.encode() in sent]
    log = (root / ".skillsift/local/search-queries.jsonl").read_text(encoding="utf-8")
    assert "plan the release notes" in log
    assert len(log.splitlines()) == 1  # only the clean query was written
    assert not [v for v in _values(entries) if v[:16] in log]


def test_search_command_ranks_a_secret_query_lexically_with_the_reason(planted, server, capsys):
    root, entries = planted
    assert main(["index", "--root", str(root)]) == 0
    capsys.readouterr()
    before = len(server.requests)
    line = next(line for skill_id, _p, kind, line, _v in entries if kind == "github-token")
    code = main(["search", "--root", str(root), "--format", "json", "deploy", "with", line])
    out, err = capsys.readouterr()
    assert code == 0
    doc = json.loads(out)
    assert doc["degraded"] == "secret_withheld" and doc["ranking"] == "lexical"
    assert "not sent to the embedding provider" in err
    assert len(server.requests) == before
