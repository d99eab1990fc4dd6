"""Rows whose every digest was recomputed are still refused by search and the MCP server (re-embedding the hits).

On a copy of examples/acme with the real local model: a row rewritten with skillsift's own writer (every
``row_digest`` and ``vectors_digest`` valid, so the loader cannot tell) is caught when it reaches the hits
that ``search`` or ``find_skill`` hand out: it is re-embedded, refused, the search runs again and the output
says why (text: stderr; JSON: ``index.refused``).  A row that matched is remembered once per machine (the
user cache, and the process): a warm search embeds nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.index.test_doctored_index import REFUND, index_dir
from tests.index.test_verify_rows import REFUND_TEXT, _local_model
from tests.support.cli import run

VICTIM = "feature-flags"
REQUEST_OF = "onboard-engineer"


@pytest.fixture
def model():
    return _local_model()


def rewrite(root: Path, change) -> None:
    """``change(matrix, index)`` applied to the committed index, written back by skillsift's own writer."""
    from skillsift.index.store import load_index, new_index, write_index

    index = load_index(index_dir(root)).index
    m = index.manifest
    matrix = np.array(index.matrix)
    change(matrix, index)
    write_index(index_dir(root), new_index(provider=m.provider, model=m.model, items=index.items, vectors=matrix,
                                           fields=m.fields, dtype=m.dtype))


def sealed_skill(root: Path) -> None:
    def change(matrix, index):
        matrix[index.row("", VICTIM)] = _local_model().embed([REFUND_TEXT])[0]
    rewrite(root, change)


def sealed_request(root: Path) -> None:
    def change(matrix, index):
        row = next(r for r, item in index.example_items() if item.id == REQUEST_OF)
        matrix[row] = _local_model().embed([REFUND_TEXT])[0]
    rewrite(root, change)


def sealed_half(root: Path) -> None:
    """The victim's row moved half way to the refund text: still unit length, still every digest valid."""
    def change(matrix, index):
        row = index.row("", VICTIM)
        mixed = matrix[row] + _local_model().embed([REFUND_TEXT])[0]
        matrix[row] = mixed / np.linalg.norm(mixed)
    rewrite(root, change)


@pytest.mark.parametrize(("doctor", "name", "kind"), [(sealed_skill, VICTIM, "skill"),
                                                      (sealed_request, REQUEST_OF, "example"),
                                                      (sealed_half, VICTIM, "skill")])
def test_search_refuses_a_sealed_row_that_reaches_its_hits(acme, capsys, model, doctor, name, kind):
    from skillsift.index.store import load_index

    doctor(acme)
    loaded = load_index(index_dir(acme))
    assert loaded.index is not None and loaded.refused == ()  # every digest checks out: the loader cannot tell
    for mode in ("hybrid", "vector"):
        code, out, err = run(capsys, "search", REFUND, "--root", acme, "--mode", mode, "--format", "json")
        assert code == 0, err
        doc = json.loads(out)
        assert doc["ranking"] == mode and doc["results"][0]["name"] == "issue-refund"
        assert name not in [r["name"] for r in doc["results"][:3]]
        refused = doc["index"]["refused"]
        assert [(r["name"], r["kind"]) for r in refused] == [(name, kind)]
        assert "not the embedding of its text" in refused[0]["reason"]
        assert "fails its checks and is not used" in err and name in err
    code, out, err = run(capsys, "search", REFUND, "--root", acme, "--mode", "hybrid")
    assert code == 0 and out.splitlines()[1].split()[2] == "issue-refund"
    assert "not the embedding of its text" in err


def test_a_warm_search_embeds_nothing_and_a_clean_index_says_nothing(acme, capsys, model, monkeypatch):
    from skillsift.embed.local import LocalProvider

    texts: list[int] = []
    real = LocalProvider.embed

    def counting(self, batch, *args, **kwargs):
        texts.append(len(batch))
        return real(self, batch, *args, **kwargs)

    monkeypatch.setattr(LocalProvider, "embed", counting)
    code, first, err = run(capsys, "search", REFUND, "--root", acme, "--mode", "hybrid", "--format", "json")
    assert code == 0 and "index" not in json.loads(first) and "fails its checks" not in err
    cold = sum(texts)
    assert cold > 1  # the query, then the hits' rows re-embedded once
    texts.clear()
    from skillsift.ranker import row_check

    row_check._MEMO.clear()  # a new process: only the user cache remembers
    code, again, err = run(capsys, "search", REFUND, "--root", acme, "--mode", "hybrid", "--format", "json")
    assert again == first
    assert sum(texts) <= 1, texts  # at most the query itself (its vector may come from the query cache)
    cache = Path(__import__("os").environ["SKILLSIFT_CACHE_DIR"]) / "verified"
    assert any(cache.iterdir())


def test_the_mcp_server_refuses_a_sealed_row_and_keeps_serving(acme, tmp_path, model):
    from tests.mcpserver.test_mcp import _text, talk

    sealed_skill(acme)
    config = acme / "skillsift.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('mode = "lexical"', 'mode = "hybrid"', 1),
                      encoding="utf-8")
    errlog = tmp_path / "server-stderr.txt"

    async def script(session):
        first = await session.call_tool("find_skill", {"query": REFUND})
        second = await session.call_tool("find_skill", {"query": "roll back the last release"})
        return _text(first), _text(second)

    first, second = talk(acme, errlog, script)
    names = [r["name"] for r in json.loads(first)["results"]]
    assert names[0] == "issue-refund" and VICTIM not in names[:3]
    assert json.loads(second)["results"][0]["name"] == "rollback-release"
    log = errlog.read_text(encoding="utf-8")
    assert "not the embedding of its text" in log and VICTIM in log
