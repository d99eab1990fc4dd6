"""`find_skill` over stdio ranks with the repository's known requests, as `skillsift search` does."""

from __future__ import annotations

import json

from tests.conftest import write_skill
from tests.mcpserver.test_mcp import _text, search_json, talk
from tests.support.cli import run, set_user_config
from tests.support.concept_embedder import user_config


def test_find_skill_ranks_with_known_requests_like_search(tmp_path, capsys):
    root = tmp_path / "proj"
    write_skill(root, "issue-refund", "Reimburse a customer for a returned purchase")
    write_skill(root, "dispute-charge", "Handle a chargeback dispute from a bank")
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    (root / "skillsift.toml").write_text('[search]\nmode = "vector"\nexamples = ["known.yaml"]\n'
                                         "example_weight = 1.0\n", encoding="utf-8")
    (root / "known.yaml").write_text('version: 1\ncases:\n  - id: k\n    query: "bank dispute"\n'
                                     "    expect: [git-workflow]\n", encoding="utf-8")
    set_user_config(user_config())
    code, _out, err = run(capsys, "index", "--root", root)
    assert code == 0, err
    errlog = tmp_path / "server-stderr.txt"

    async def script(session):
        return await session.call_tool("find_skill", {"query": "bank dispute"})

    found = json.loads(_text(talk(root, errlog, script)))
    assert found == search_json(capsys, root, "bank dispute")
    assert found["ranking"] == "vector" and found["results"][0]["name"] == "git-workflow"
    # the same query without the known request: the skill's own text decides
    (root / "skillsift.toml").write_text("[search]\nmode = \"vector\"\n", encoding="utf-8")
    again = json.loads(_text(talk(root, errlog, script)))
    assert again["results"][0]["name"] == "dispute-charge"
