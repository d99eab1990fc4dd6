"""A known request holding a secret is never sent to a provider outside the process, by any path
that embeds known requests (``index``, ``tune``, the in-memory refresh of ``eval`` and ``search``):
each withholds it with the index build's scan and says so as ``index`` does (docs/secrets.md)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import write_skill
from tests.support.cli import run, set_user_config
from tests.support.concept_embedder import ConceptEmbedder, user_config

KEY = "AKIAQ3ZR7T2MWX9PLK4N"  # an AWS access key id (aws-access-key)
LINE = ('AR9D3: a known request of skill "deploy-staging" was not embedded: its text looks like it holds a '
        "secret (aws-access-key); it is not used")
CASES = [("money back", "issue-refund"), ("roll out staging", "deploy-staging"), ("bank chargeback", "dispute-charge"),
         ("pull request", "git-workflow"), ("customer refund", "issue-refund"), ("deploy cluster", "deploy-staging")]


def _examples(*requests: tuple[str, str]) -> str:
    body = "".join(f'  - id: r{i}\n    query: "{q}"\n    expect: [{s}]\n' for i, (q, s) in enumerate(requests))
    return "version: 1\ncases:\n" + body


def _repo(root: Path, *requests: tuple[str, str]) -> Path:
    write_skill(root, "issue-refund", "Reimburse a customer for a returned purchase")
    write_skill(root, "deploy-staging", "Roll a service out to the staging cluster")
    write_skill(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    (root / "skillsift.toml").write_text('[search]\nmode = "hybrid"\nexamples = ["known.yaml"]\n', encoding="utf-8")
    (root / "known.yaml").write_text(_examples(*requests), encoding="utf-8")
    (root / "cases.yaml").write_text(_examples(*CASES), encoding="utf-8")
    return root


def _sent(calls: Path) -> list[str]:
    return [text for line in calls.read_text().splitlines() for text in json.loads(line)] if calls.exists() else []


SECRET = (f"rotate {KEY} for staging", "deploy-staging")


def test_tune_withholds_a_request_holding_a_secret_as_index_does(tmp_path, capsys):
    root = _repo(tmp_path / "repo", ("bank dispute", "git-workflow"), SECRET)
    calls = tmp_path / "calls.jsonl"
    set_user_config(user_config("--log", str(calls)))
    code, _out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    assert err.splitlines() == [LINE]  # index keeps it back and names it
    assert not any(KEY in text for text in _sent(calls))
    # a request added since the build: the index lacks its row, so tune embeds the requests itself
    (root / "known.yaml").write_text(_examples(("bank dispute", "git-workflow"), SECRET,
                                               ("refund my purchase", "issue-refund")), encoding="utf-8")
    calls.unlink()
    code, out, err = run(capsys, "tune", root / "cases.yaml", "--root", root, "--format", "json")
    assert code == 0, err
    sent = _sent(calls)
    assert "refund my purchase" in sent  # tune embedded the known requests itself ("bank dispute" is cached)
    assert not any(KEY in text for text in sent)
    assert err.splitlines() == [LINE]  # the line index prints, once
    assert json.loads(out)["example_weight"]["known_requests"] == 2  # the two it could send


def test_tune_without_an_index_never_sends_the_secret_to_a_remote_server(tmp_path, capsys, server, monkeypatch):
    monkeypatch.setenv("EMBED_KEY", "k-0123456789")
    set_user_config(f'[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\nbase_url = '
                    f'"{server.base_url}"\napi_key_env = "EMBED_KEY"\nallow_network = true\n')
    root = _repo(tmp_path / "repo", SECRET)
    code, out, err = run(capsys, "tune", root / "cases.yaml", "--root", root, "--format", "json")
    assert code == 0, err
    assert server.requests and not any(KEY.encode() in body for body in server.bodies)
    assert LINE in err.splitlines()
    weight = json.loads(out)["example_weight"]
    assert weight["tuned"] is False and weight["known_requests"] == 0
    assert weight["note"] == ("every known request looks like it holds a secret and is withheld from the provider "
                              "(AR9D3)")


def test_eval_does_not_count_a_withheld_request_as_missing_from_the_index(tmp_path, capsys):
    root = _repo(tmp_path / "repo", ("bank dispute", "git-workflow"), SECRET)
    calls = tmp_path / "calls.jsonl"
    set_user_config(user_config("--log", str(calls)))
    assert run(capsys, "index", "--root", root)[0] == 0
    code, _out, err = run(capsys, "eval", root / "cases.yaml", "--root", root)
    assert code == 0, err
    assert "known request" not in err  # running index again would not give it a row
    assert not any(KEY in text for text in _sent(calls))
    # a clean request added since the build is still counted
    (root / "known.yaml").write_text(_examples(("bank dispute", "git-workflow"), SECRET,
                                               ("refund my purchase", "issue-refund")), encoding="utf-8")
    code, _out, err = run(capsys, "eval", root / "cases.yaml", "--root", root)
    assert "warning: the index has no vector for 1 known request of the examples files" in err


def test_refresh_requests_scans_with_the_build_scan(tmp_path):
    """The in-memory refresh: with a provider outside the process a request holding a secret is
    neither sent nor counted as outdated; in process (where index does not withhold) it is embedded."""
    import numpy as np

    from skillsift.config import load_config
    from skillsift.index.manifest import ManifestItem
    from skillsift.index.store import new_index
    from skillsift.ranker.setup import Refresh, refresh_requests

    root = _repo(tmp_path / "repo", ("bank dispute", "git-workflow"))
    config = load_config(str(root))
    index = new_index(provider="test@local", model="concepts-v1", dims=5, vectors=np.eye(1, 5, dtype=np.float32),
                      items=[ManifestItem("git-workflow", "", "sha256:g", "sha256:g")])
    pairs = [("deploy-staging", SECRET[0]), ("issue-refund", "refund my purchase")]
    remote = ConceptEmbedder(external=True)
    out = refresh_requests(Refresh(index), pairs, config, remote)
    assert out.requests_outdated == 1 and remote.calls == []
    local = ConceptEmbedder()
    out = refresh_requests(Refresh(index), pairs, config, local)
    assert out.requests_embedded == 2 and sorted(local.sent) == sorted(text for _s, text in pairs)


def test_status_and_validate_do_not_ask_for_a_row_the_build_withholds(tmp_path, capsys):
    root = _repo(tmp_path / "repo", ("bank dispute", "git-workflow"), SECRET)
    set_user_config(user_config())
    assert run(capsys, "index", "--root", root)[0] == 0
    code, out, err = run(capsys, "status", "--root", root, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["state"] == "fresh"  # as index says: "index is current"
    assert doc["examples"] == {"configured": 1, "current": 1, "missing": 0, "orphaned": 0}
    code, out, err = run(capsys, "validate", "--root", root)
    assert "AR9D1" not in out + err
    # a clean request added since the build is still one the index is missing
    (root / "known.yaml").write_text(_examples(("bank dispute", "git-workflow"), SECRET,
                                               ("refund my purchase", "issue-refund")), encoding="utf-8")
    code, out, err = run(capsys, "status", "--root", root, "--format", "json")
    assert json.loads(out)["examples"]["missing"] == 1
    code, out, err = run(capsys, "validate", "--root", root)
    assert "the committed index does not hold the known requests (1 not indexed)" in out + err


def test_tune_never_sends_a_skill_text_or_a_case_query_holding_a_secret(tmp_path, capsys, server, monkeypatch):
    """As ``index`` withholds such a skill and ``search`` such a query: tune keeps both back (never
    sent, AR9D3 line each) and still tunes, where it used to stop with exit 1 at the provider's gate."""
    monkeypatch.setenv("EMBED_KEY", "k-0123456789")
    set_user_config(f'[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\nbase_url = '
                    f'"{server.base_url}"\napi_key_env = "EMBED_KEY"\nallow_network = true\n')
    root = _repo(tmp_path / "repo", ("bank dispute", "git-workflow"))
    write_skill(root, "rotate-keys", f"Rotate the AWS access key {KEY} of the staging account")
    cases = CASES + [(f"my key {KEY} leaked", "rotate-keys")]
    (root / "cases.yaml").write_text(_examples(*cases), encoding="utf-8")
    code, out, err = run(capsys, "tune", root / "cases.yaml", "--root", root, "--format", "json")
    assert code == 0, err
    assert server.requests and not any(KEY.encode() in body for body in server.bodies)
    assert ('AR9D3: skill "rotate-keys" was not embedded: its text looks like it holds a secret (aws-access-key); '
            "it ranks lexically only") in err.splitlines()
    assert (f'AR9D3: the query of case "r{len(CASES)}" was not embedded: it looks like it holds a secret '
            "(aws-access-key); it is scored without vectors, as a search ranks it lexically") in err.splitlines()
    doc = json.loads(out)
    assert doc["cases"] == len(cases)


def test_tune_when_every_skill_text_holds_a_secret(tmp_path, capsys, server, monkeypatch):
    """Nothing of the catalog may be sent: tune still scores (every skill lexically) and never crashes."""
    monkeypatch.setenv("EMBED_KEY", "k-0123456789")
    set_user_config(f'[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\nbase_url = '
                    f'"{server.base_url}"\napi_key_env = "EMBED_KEY"\nallow_network = true\n')
    root = tmp_path / "repo"
    for name in ("issue-refund", "deploy-staging"):
        write_skill(root, name, f"Handles {name} with the account key {KEY}")
    (root / "skillsift.toml").write_text('[search]\nmode = "hybrid"\n', encoding="utf-8")
    (root / "cases.yaml").write_text(_examples(("money back", "issue-refund"), ("roll out", "deploy-staging")),
                                     encoding="utf-8")
    code, out, err = run(capsys, "tune", root / "cases.yaml", "--root", root, "--format", "json")
    assert code == 0, err
    assert not any(KEY.encode() in body for body in server.bodies)
    assert sum("was not embedded" in line for line in err.splitlines()) == 2
    assert json.loads(out)["cases"] == 2


def test_tune_when_every_case_query_holds_a_secret(tmp_path, capsys, server, monkeypatch):
    monkeypatch.setenv("EMBED_KEY", "k-0123456789")
    set_user_config(f'[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\nbase_url = '
                    f'"{server.base_url}"\napi_key_env = "EMBED_KEY"\nallow_network = true\n')
    root = _repo(tmp_path / "repo", ("bank dispute", "git-workflow"))
    (root / "cases.yaml").write_text(_examples((f"refund {KEY}", "issue-refund"), (f"deploy {KEY}", "deploy-staging")),
                                     encoding="utf-8")
    code, out, err = run(capsys, "tune", root / "cases.yaml", "--root", root, "--format", "json")
    assert code == 0, err
    assert not any(KEY.encode() in body for body in server.bodies)
    assert sum("the query of case" in line for line in err.splitlines()) == 2


def test_tune_sends_no_piece_of_a_long_query_one_of_whose_pieces_holds_a_secret(tmp_path, capsys, server,
                                                                                 monkeypatch):
    """A long query is embedded in pieces; a search sends none of them when one holds a secret, and
    neither does tune (the clean pieces included)."""
    monkeypatch.setenv("EMBED_KEY", "k-0123456789")
    set_user_config(f'[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\nbase_url = '
                    f'"{server.base_url}"\napi_key_env = "EMBED_KEY"\nallow_network = true\n')
    root = _repo(tmp_path / "repo", ("bank dispute", "git-workflow"))
    long_query = "zebraword refund the customer " * 120 + f"with the key {KEY}"  # past the 2 KB cap: pieces
    (root / "cases.yaml").write_text(_examples(*CASES, (long_query, "issue-refund")), encoding="utf-8")
    code, _out, err = run(capsys, "tune", root / "cases.yaml", "--root", root, "--format", "json")
    assert code == 0, err
    assert server.requests  # the other cases' queries and the skills were sent
    assert not any(b"zebraword" in body or KEY.encode() in body for body in server.bodies)
    assert f'AR9D3: the query of case "r{len(CASES)}" was not embedded' in err
