"""The bundled example repository: what the README promises about it holds."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from skillsift.cli import main

ACME = ROOT / "examples" / "acme"
CASES = str(ACME / "search-cases.yaml")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


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
    assert doc["state"] == "fresh" and doc["rows"] == doc["skills"]


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
