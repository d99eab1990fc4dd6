"""`skillsift search` end to end (reference §10.11, issue: foundation)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema
import pytest

from tests.support.cli import load_schema, run


def search_schema():
    return load_schema("search.v1.json")


def test_text_search_finds_refund_policy(cli_project, capsys):
    code, out, _ = run(capsys, "search", "customer", "refund", "--root", str(cli_project))
    assert code == 0
    assert "refund-policy" in out.splitlines()[1]
    assert all(len(line) <= 80 for line in out.splitlines())


def test_json_search_validates_and_ranks_deploy_staging_first(cli_project, capsys):
    code, out, _ = run(capsys, "search", "deploy to staging", "--format", "json", "--root", str(cli_project))
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, search_schema())
    assert doc["results"][0]["name"] == "deploy-staging"
    assert doc["results"][0]["domain"] == "root"
    assert doc["results"][0]["digest"].startswith("sha256:")
    assert doc["ranking"] == "lexical" and doc["degraded"] is None
    assert doc["count"] == len(doc["results"])


def test_no_match_prints_clear_line_and_exits_zero(cli_project, capsys):
    code, out, _ = run(capsys, "search", "zebra", "--root", str(cli_project))
    assert code == 0
    assert out.strip() == "no served skill matches"


def test_stopword_only_query_says_so(cli_project, capsys):
    code, out, _ = run(capsys, "search", "how", "to", "the", "--root", str(cli_project))
    assert code == 0
    assert "only stopwords" in out
    code, out, _ = run(capsys, "search", "the of and", "--format", "json", "--root", str(cli_project))
    doc = json.loads(out)
    jsonschema.validate(doc, search_schema())
    assert doc["no_terms"] is True and doc["count"] == 0


def test_limit_caps_results(tmp_path, capsys, skill_writer):
    for i in range(6):
        skill_writer(tmp_path, f"deploy-{i}", f"Deploy thing number {i}")
    code, out, _ = run(
        capsys, "search", "deploy", "--limit", "2", "--format", "json", "--root", str(tmp_path)
    )
    assert code == 0
    assert json.loads(out)["count"] == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["search"],
        ["search", "   "],
        ["search", "x", "--format", "xml"],
        ["search", "x", "--limit", "99"],
        ["search", "x", "--limit", "0"],
        ["search", "x", "--mode", "semantic"],
    ],
)
def test_usage_errors_exit_one(cli_project, capsys, argv):
    code, _out, err = run(capsys, *argv, "--root", str(cli_project))
    assert code == 1
    assert err.strip()


def test_explain_points_sum_to_score(cli_project, capsys):
    code, out, _ = run(
        capsys,
        "search",
        "deploy staging rollout",
        "--explain",
        "--format",
        "json",
        "--root",
        str(cli_project),
    )
    assert code == 0
    doc = json.loads(out)
    jsonschema.validate(doc, search_schema())
    hit = doc["results"][0]
    assert hit["name"] == "deploy-staging"
    points = sum(t["points"] for t in hit["explain"]["terms"])
    assert abs(points - hit["score"]) <= 1e-6
    assert {t["term"] for t in hit["explain"]["terms"]} == {"deploy", "stag", "rollout"}
    assert hit["explain"]["terms"][0]["fields"]  # field occurrences are listed


def test_explain_text_shows_breakdown(cli_project, capsys):
    code, out, _ = run(capsys, "search", "staging", "--explain", "--root", str(cli_project))
    assert code == 0
    assert "LEX#" in out and "BM25F" in out and "ranking: lexical" in out
    assert "staging" in out and "keywords×1" in out


def test_hybrid_without_index_falls_back_with_reason(cli_project, capsys):
    code, out, err = run(
        capsys, "search", "deploy", "--mode", "hybrid", "--format", "json", "--root", str(cli_project)
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["ranking"] == "lexical" and doc["degraded"] == "no_index"
    assert "no usable index" in err
    lexical = json.loads(run(capsys, "search", "deploy", "--format", "json", "--root", str(cli_project))[1])
    assert [r["name"] for r in doc["results"]] == [r["name"] for r in lexical["results"]]


def test_scope_filters(tmp_path, capsys, skill_writer):
    skill_writer(tmp_path, "deploy-app", "Deploy the app", tags=["ops"])
    skill_writer(tmp_path, "deploy-docs", "Deploy the docs site", tags=["docs"])
    skill_writer(tmp_path, "deploy-db", "Deploy database changes", layout=".ai-rulez/domains/data/skills")
    root = str(tmp_path)

    def names(*extra):
        return [
            r["name"]
            for r in json.loads(
                run(capsys, "search", "deploy", "--format", "json", "--root", root, *extra)[1]
            )["results"]
        ]

    assert set(names()) == {"deploy-app", "deploy-docs", "deploy-db"}
    assert names("--tag", "ops") == ["deploy-app"]
    assert names("--domain", "data") == ["deploy-db"]
    assert set(names("--domain", "root")) == {"deploy-app", "deploy-docs"}
    assert names("--deny", "deploy-d*") == ["deploy-app"]
    assert set(names("--allow", "deploy-d*", "--deny", "deploy-db")) == {"deploy-docs"}


def test_same_bytes_across_processes(cli_project):
    argv = [
        sys.executable,
        "-m",
        "skillsift",
        "search",
        "deploy service staging",
        "--format",
        "json",
        "--explain",
        "--root",
        str(cli_project),
    ]
    outs = {subprocess.run(argv, capture_output=True, text=True, check=True).stdout for _ in range(3)}
    assert len(outs) == 1


def test_unavailable_provider_says_why_and_how_to_fix(cli_project, capsys, monkeypatch):
    from skillsift.embed import local

    monkeypatch.setattr(local, "locate_model", lambda: (_ for _ in ()).throw(
        local.ProviderUnavailable("the local embedding model is not installed", hint=local.INSTALL_HINT)))
    from skillsift.catalog.embedtext import embedded_text, text_digest
    from skillsift.catalog.load import load_catalog
    from skillsift.config import DEFAULT_EMBED_FIELDS
    from skillsift.index.manifest import ManifestItem
    from skillsift.index.store import new_index, write_index

    skill = load_catalog(cli_project).get("git-workflow")
    item = ManifestItem(id="git-workflow", item_digest=skill.digest, text_digest=text_digest(embedded_text(skill)))
    write_index(cli_project / ".skillsift" / "index",
                new_index(provider="local@all-MiniLM-L6-v2", model="all-MiniLM-L6-v2", items=[item],
                          fields=DEFAULT_EMBED_FIELDS, vectors=[[1.0] + [0.0] * 383]))  # the local model's width
    code, out, err = run(capsys, "search", "deploy", "--mode", "hybrid", "--root", str(cli_project))
    assert code == 0 and "deploy-staging" in out
    assert "provider is unavailable" in err
    assert "skillsift[embed]" in err


def test_a_hybrid_answer_says_what_words_alone_would_have_done():
    """The Quick start ends on this line: why the hybrid answer differs from the lexical one."""
    from skillsift.ranker.result import Hit, SearchResult
    from skillsift.render.search import meaning_line, ordinal

    top = Hit(name="issue-refund", score=0.45, lexical_rank=2, vector_rank=2, vector_sim=0.377)
    other = Hit(name="rollback-release", score=0.25, lexical_rank=1, vector_rank=5, vector_sim=0.168)
    hybrid = SearchResult(query="q", ranking="hybrid", hits=(top, other))
    assert meaning_line(hybrid) == ("hybrid: issue-refund is first on meaning and words together (cosine 0.377); "
                                    "by words alone it ranks 2nd")
    unseen = SearchResult(query="q", ranking="vector", hits=(Hit(name="a", score=0.5, vector_rank=1,
                                                                    vector_sim=0.5),))
    assert meaning_line(unseen) == "vector: a is first by meaning (cosine 0.500); words alone do not find it"
    assert meaning_line(SearchResult(query="q", ranking="hybrid", hits=(other, top))) == ""
    assert meaning_line(SearchResult(query="q", ranking="lexical", hits=(top,))) == ""
    assert meaning_line(SearchResult(query="q", ranking="hybrid", hits=(top,), degraded="timeout")) == ""
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]


def test_piped_text_keeps_whole_descriptions_and_width_cuts_them():
    """``skillsift search QUERY | cat``: no terminal, so no cut; ``--width`` cuts to the columns asked for."""
    from tests.conftest import ACME

    def piped(*extra):
        return subprocess.run([sys.executable, "-m", "skillsift", "search", "refund", "--root", str(ACME), *extra],
                              capture_output=True, text=True, check=True, env={**os.environ, "COLUMNS": "40"}).stdout

    whole = ("Issue a full or partial refund for an Acme order from the billing console, with the right reason "
             "code and a notification to the customer. Use for goodwill refunds, duplicate charges and cancelled "
             "orders.")
    assert whole in piped().splitlines()[1]
    cut = piped("--width", "60").splitlines()
    assert all(len(line) <= 62 and line.endswith("…") for line in cut[1:])  # a description keeps 20 columns
    assert whole in piped("--width", "0").splitlines()[1]
