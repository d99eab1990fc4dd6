"""The bundled example repository: what the README promises about it holds."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ACME, ROOT
from tests.support.cli import run

CASES = str(ACME / "search-cases.yaml")


def test_example_validates_clean(capsys):
    code, out, _ = run(capsys, "validate", "--root", str(ACME))
    assert code == 0, out
    assert "no problems found" in out


def test_lexical_evaluation_passes_and_literal_queries_rank_first(capsys):
    code, out, _ = run(capsys, "eval", CASES, "--root", str(ACME), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    literal = [c for c in doc["cases"] if "literal" in c.get("tags", [])]
    assert len(literal) >= 10 and all(c["rank"] == 1 for c in literal)
    paraphrase = [c for c in doc["cases"] if "paraphrase" in c.get("tags", [])]
    assert sum(c["rank"] == 1 for c in paraphrase) == 0  # the gap embeddings are there to close


def test_committed_index_is_fresh(capsys):
    code, out, _ = run(capsys, "status", "--root", str(ACME), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["state"] == "fresh" and doc["rows"] == doc["skills"] + doc["examples"]["configured"]
    assert doc["examples"]["current"] == doc["examples"]["configured"] > 0  # its known requests are indexed


def test_hybrid_beats_lexical_with_an_interval_excluding_zero(capsys):
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    code, out, err = run(capsys, "eval", CASES, "--root", str(ACME), "--mode", "all", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["index"]["model"] == "all-MiniLM-L6-v2" and doc["index"]["stale_items"] == 0
    for mode in ("hybrid", "vector"):
        assert "degraded_cases" not in doc["by_mode"][mode]
        mrr = doc["paired_vs_lexical"][mode]["mrr"]
        assert mrr["low"] > 0, (mode, mrr)


def _quick_start_steps() -> list[list[str]]:
    """The skillsift commands of the README's Quick start main job, in order, as the shell splits them."""
    import re
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Quick start"):]
    block = re.search(r"```sh\n(.*?)\n```", section, re.S).group(1)
    steps = [shlex.split(part) for part in block.split("&&")]
    assert ["pip", "install", ".[embed]"] in steps  # installed with the local model
    return [argv[1:] for argv in steps if argv[0] == "skillsift"]


def test_quick_start_main_job_ends_on_the_hybrid_answer(capsys, monkeypatch):
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    # load the model first: the query budget (query_timeout_ms) is for embedding the query, and a
    # busy test machine must measure the ranking, not how long the model takes to load
    from skillsift.embed.local import LocalProvider

    LocalProvider().load()
    monkeypatch.chdir(ROOT)
    for var in ("SKILLSIFT_SEARCH_MODE", "SKILLSIFT_ALLOW_NETWORK"):
        monkeypatch.delenv(var, raising=False)
    steps = _quick_start_steps()
    assert [argv[0] for argv in steps] == ["validate", "eval", "search"]
    outputs = []
    for argv in steps:
        code, out, err = run(capsys, *argv)
        assert code == 0, (argv, out, err)
        assert "ranking lexically" not in err, err  # the hybrid search really used the vectors
        outputs.append(out)
    validate_out, eval_out, search_out = outputs
    assert "no problems found" in validate_out
    assert "mode: lexical" in eval_out and "misses:" in eval_out
    assert eval_out.rstrip().splitlines()[-1].startswith("hint: misses on paraphrases are what hybrid mode is for")
    first = search_out.splitlines()[1].split()
    assert first[0] == "1" and first[2] == "issue-refund", search_out
    # and it ends on the sentence that says what the user saw
    assert search_out.rstrip().splitlines()[-1].startswith("hybrid: issue-refund is first on meaning and words"), \
        search_out


def test_no_hybrid_hint_when_hybrid_is_the_configured_mode(capsys, tmp_path):
    import shutil

    root = tmp_path / "acme"
    shutil.copytree(ACME, root, ignore=shutil.ignore_patterns(".skillsift"))
    config = root / "skillsift.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('mode = "lexical"', 'mode = "hybrid"', 1),
                      encoding="utf-8")
    code, out, _ = run(capsys, "eval", str(root / "search-cases.yaml"), "--root", str(root), "--mode", "lexical")
    assert code == 0 and "misses:" in out and "hint:" not in out
    code, out, _ = run(capsys, "eval", CASES, "--root", str(ACME))
    assert code == 0 and "hint: misses on paraphrases" in out
