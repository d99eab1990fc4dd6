"""Renderers: text report, JSON, JUnit XML and Markdown."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from skillsift.evaluate.cases import parse_cases
from skillsift.evaluate.gates import compare_baseline, gate_failures
from skillsift.evaluate.run import evaluate
from skillsift.render.evaluation import render_json, render_markdown, render_text
from skillsift.render.evaluation_junit import render_junit
from skillsift.render.registry import render
from tests.evaluate.test_eval_run import HYB, HYBRID_CASES, INDEX, LEX
from tests.support.eval_support import EVAL_ENV_LEXICAL, METRICS_CASES, ScriptedRanker, validate_eval_json


def run(text, rankings, modes=("lexical",), k=0, path="search-cases.yaml", **kw):
    cf = parse_cases(text, path)
    return evaluate(
        cf,
        ScriptedRanker(rankings, **kw),
        k=cf.effective_k(k),
        modes=list(modes),
        index_info=INDEX if any(m != "lexical" for m in modes) else None,
    )


TEXT_K2 = """\
cases: 4 (+1 negative), k=2, mode: lexical
top1      0.5000  (95% CI 0.0000-1.0000)
recall@2  0.7500  (95% CI 0.2500-1.0000)
hit@2     0.7500
mrr       0.6250  (95% CI 0.2500-1.0000)

by tag:
  paraphrase (1): top1 1.0000  recall@2 1.0000  hit@2 1.0000  mrr 1.0000

negatives (nothing should match; shown is what ranked first, with the ranker's own score):
  neg: nothing

misses:
  miss: expected git-workflow, got [] (not retrieved)
"""


def test_text_report_single_mode():
    res = run(METRICS_CASES, {"lexical": EVAL_ENV_LEXICAL})
    assert render_text(res) == TEXT_K2
    assert render("evaluation", "text", res) == TEXT_K2


def test_lexical_misses_end_with_one_line_on_hybrid_mode_when_it_is_not_configured():
    from skillsift.render.evaluation import HYBRID_HINT

    res = run(METRICS_CASES, {"lexical": EVAL_ENV_LEXICAL})
    assert render("evaluation", "text", res, hybrid_hint=True) == TEXT_K2 + HYBRID_HINT + "\n"
    assert "--mode hybrid" in HYBRID_HINT and "skillsift[embed]" in HYBRID_HINT
    assert HYBRID_HINT not in (render("evaluation", "markdown", res, hybrid_hint=True)
                               + render("evaluation", "json", res, hybrid_hint=True))
    hit_all = run("version: 1\ncases:\n  - {id: a, query: deploy to staging, expect: [deploy-staging]}\n",
                  {"lexical": EVAL_ENV_LEXICAL})
    assert not hit_all.primary.misses and HYBRID_HINT not in render("evaluation", "text", hit_all, hybrid_hint=True)


def test_text_values_start_at_column_12_with_k_100():
    res = run(METRICS_CASES, {"lexical": EVAL_ENV_LEXICAL}, k=100)
    lines = render_text(res).splitlines()
    rows = lines[1:5]
    assert [r.split()[0] for r in rows] == ["top1", "recall@100", "hit@100", "mrr"]
    assert all(r[12].isdigit() and r[11] == " " for r in rows)


def test_text_negatives_avoid_and_gate_lines():
    text = METRICS_CASES + "  - {id: near, query: deploy to production, avoid: [deploy-prod]}\n"
    res = run(text, {"lexical": EVAL_ENV_LEXICAL})
    base = {
        "schema_version": 1,
        "k": 2,
        "mode": "lexical",
        "cases": [{"id": "miss", "hit": True}, {"id": "second", "hit": False}],
    }
    res.flips = compare_baseline(base, mode=res.mode, k=res.k, cases=res.primary.cases)
    res.gate_failures = gate_failures(res.primary.metrics.gated(), {"top1": 0.9}, res.flips, 0)
    out = render_text(res)
    assert "avoid@1   1.0000\n" in out
    assert "  near: deploy-prod (1.5000) [avoided skill first]\n" in out
    assert out.endswith("vs baseline: 1 regressed, 1 fixed\n  regressed: miss\n\ngate failed\n")


def test_text_multi_mode_table_and_paired_lines():
    res = run(HYBRID_CASES, {"lexical": LEX, "hybrid": HYB}, modes=("hybrid", "lexical"))
    lines = render_text(res).splitlines()
    assert lines[0] == "cases: 5 (+0 negative), k=3, mode: hybrid, lexical"
    assert lines[1] == "index: concepts-v1, 5 dims, float32, 4 rows (0 stale, 0 missing)"
    assert lines[3] == " " * 14 + f"{'hybrid':<24}lexical"
    top1 = next(line for line in lines if line.startswith("top1"))
    assert top1.startswith("top1          1.0000 (1.00-1.00)      0.8000 (")
    hit = next(line for line in lines if line.startswith("hit@3"))
    assert hit == "hit@3         1.0000                  0.8000"
    i = lines.index(
        "paired difference vs lexical (95% bootstrap interval; an interval excluding 0 is a real change):"
    )
    assert lines[i + 1 : i + 4] == [
        "  hybrid   mrr          +0.2000  (+0.0000 to +0.6000)",
        "  hybrid   recall_at_k  +0.2000  (+0.0000 to +0.6000)",
        "  hybrid   top1         +0.2000  (+0.0000 to +0.6000)",
    ]


def test_text_multi_mode_dash_for_missing_metric():
    text = HYBRID_CASES + "  - {id: n, query: nothing here}\n"
    res = run(
        text,
        {"lexical": {**LEX, "nothing here": []}, "hybrid": {**HYB, "nothing here": []}},
        modes=("lexical", "hybrid"),
    )
    abstain = next(line for line in render_text(res).splitlines() if line.startswith("abstain"))
    assert abstain.split() == ["abstain", "-", "1.0000"]


def test_json_renderer_prints_integral_floats_as_integers():
    res = run(METRICS_CASES, {"lexical": EVAL_ENV_LEXICAL})
    out = render_json(res)
    assert out.endswith("}\n") and '"top1": 0.5' in out and '"low": 0,' in out and '"high": 1\n' in out
    assert render("evaluation", "json", res) == out
    validate_eval_json(out)


# -- JUnit ---------------------------------------------------------------------------------------


def _suites(xml_text):
    root = ET.fromstring(xml_text)
    assert root.tag == "testsuites"
    return root, root.findall("testsuite")


def test_junit_one_testcase_per_case_and_failures_are_misses():
    res = run(METRICS_CASES, {"lexical": EVAL_ENV_LEXICAL})
    xml_text = render_junit(res)
    assert xml_text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root, suites = _suites(xml_text)
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["refund", "staging", "second", "miss", "neg"]
    assert {c.get("classname") for c in cases} == {"search-cases.lexical"}
    assert int(suite.get("tests")) == 5 == int(root.get("tests"))
    assert int(suite.get("failures")) == len(res.primary.misses) == 1 == int(root.get("failures"))
    assert suite.get("errors") == "0" and suite.get("skipped") == "0"
    failure = cases[3].find("failure")
    assert failure.get("type") == "miss"
    assert failure.get("message") == "expected git-workflow in the top 2, got [] (not retrieved)"
    assert "query: zebra" in failure.text and "expected: git-workflow" in failure.text
    assert all(c.find("failure") is None for c in cases if c.get("name") != "miss")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["mode"] == "lexical" and props["k"] == "2" and props["top1"] == "0.5"


def test_junit_avoided_first_and_negatives():
    text = METRICS_CASES + (
        "  - {id: near, query: deploy to production, avoid: [deploy-prod]}\n"
        "  - {id: ok, query: deploy to production, avoid: [deploy-staging]}\n"
        "  - {id: pos-avoid, query: deploy, expect: [deploy-prod], avoid: [deploy-staging]}\n"
    )
    res = run(text, {"lexical": EVAL_ENV_LEXICAL})
    _, (suite,) = _suites(render_junit(res))
    by_name = {c.get("name"): c for c in suite.findall("testcase")}
    assert by_name["near"].find("failure").get("type") == "avoided-first"
    assert by_name["near"].find("failure").get("message") == "avoided skill deploy-prod ranked first"
    assert by_name["ok"].find("failure") is None
    # a positive case that is a hit but ranked an avoided skill first fails too
    assert by_name["pos-avoid"].find("failure").get("type") == "avoided-first"
    assert int(suite.get("failures")) == 3  # miss, near, pos-avoid
    assert int(suite.get("tests")) == len(res.primary.cases) + len(res.primary.negatives) == 8


def test_junit_multi_mode_degraded_errors_and_gate_output():
    text = "version: 1\ncases:\n  - {id: a, query: money back, expect: [issue-refund]}\n"
    res = run(
        text,
        {"lexical": LEX, "hybrid": HYB},
        modes=("hybrid", "lexical"),
        degraded={("hybrid", "money back"): "timeout"},
    )
    res.gate_failures = ["AR9D4: top1 is 0.0000, below the minimum 0.5000"]
    root, suites = _suites(render_junit(res))
    assert [s.get("name") for s in suites] == ["search-cases (hybrid)", "search-cases (lexical)"]
    hybrid_case = suites[0].find("testcase")
    assert hybrid_case.get("classname") == "search-cases.hybrid"
    assert hybrid_case.find("error").get("message") == "ranking fell back to lexical (timeout)"
    assert suites[0].get("errors") == "1" and suites[1].find("testcase").find("failure") is not None
    assert root.get("errors") == "1" and root.get("failures") == "1" and root.get("tests") == "2"
    assert "AR9D4: top1 is 0.0000" in suites[0].find("system-err").text


def test_junit_escapes_and_drops_invalid_characters():
    text = 'version: 1\ncases:\n  - {id: "a<&>\\"b", query: "zebra \\x01 & <tag>", expect: [git-workflow]}\n'
    res = run(text, {"lexical": EVAL_ENV_LEXICAL | {"zebra \x01 & <tag>": []}})
    _, (suite,) = _suites(render_junit(res))
    case = suite.find("testcase")
    assert case.get("name") == 'a<&>"b'
    assert "zebra \ufffd & <tag>" in case.find("failure").text


# -- Markdown ------------------------------------------------------------------------------------


def test_markdown_summary_misses_and_regressions():
    res = run(METRICS_CASES, {"lexical": EVAL_ENV_LEXICAL})
    base = {"schema_version": 1, "k": 2, "mode": "lexical", "cases": [{"id": "miss", "hit": True}]}
    res.flips = compare_baseline(base, mode="lexical", k=2, cases=res.primary.cases)
    res.gate_failures = gate_failures(res.primary.metrics.gated(), {}, res.flips, 0)
    md = render_markdown(res)
    lines = md.splitlines()
    assert lines[0] == "### skillsift eval: `search-cases.yaml`"
    assert lines[2] == "**Result: gate failed** · 4 cases (+1 negative) · k=2 · primary mode: lexical"
    table = lines[lines.index("| metric | lexical |") :]
    assert table[1] == "| --- | ---: |"
    assert table[2:6] == [
        "| top1 | 0.5000 (0.00–1.00) |",
        "| recall@2 | 0.7500 (0.25–1.00) |",
        "| hit@2 | 0.7500 |",
        "| mrr | 0.6250 (0.25–1.00) |",
    ]
    assert "#### Gate failures" in lines
    assert "- AR9D4: 1 case regressed against the baseline (max 0): miss" in lines
    assert "#### Against the baseline: 1 regressed, 0 fixed" in lines
    row = "| `miss` | zebra | git-workflow | nothing | not retrieved |"
    assert lines.count(row) == 2  # once as a regression, once as a miss
    assert "#### Misses (1 of 4, lexical)" in lines
    assert "<details><summary>By tag</summary>" in lines
    assert "| paraphrase | 1 | 1.0000 | 1.0000 | 1.0000 | 1.0000 |" in lines
    assert render("evaluation", "markdown", res) == md


def test_markdown_multi_mode_paired_and_escaping():
    text = HYBRID_CASES.replace("git branching", "'git | branching'")
    lex = {**LEX, "git | branching": []}
    hyb = {**HYB, "git | branching": [("git-workflow", 0.03)]}
    res = run(text, {"lexical": lex, "hybrid": hyb}, modes=("hybrid", "lexical"))
    md = render_markdown(res)
    assert "**Result: passed**" in md
    assert "| metric | hybrid | lexical |" in md
    assert "| hybrid | mrr | +0.4000 | +0.0000 to +0.8000 | no |" in md
    assert "#### Misses (" not in md  # hybrid (primary) has no miss
    res = run(text, {"lexical": lex, "hybrid": hyb}, modes=("lexical", "hybrid"))
    md = render_markdown(res)
    assert "| `lex` | git \\| branching | git-workflow | nothing | not retrieved |" in md  # pipes escaped


def test_markdown_degraded_warning():
    text = "version: 1\ncases:\n  - {id: a, query: money back, expect: [issue-refund]}\n"
    res = run(
        text,
        {"lexical": LEX, "hybrid": HYB},
        modes=("hybrid",),
        degraded={("hybrid", "money back"): "budget"},
    )
    md = render_markdown(res)
    assert "**Result: not measured: the embeddings were unavailable**" in md
    assert "> **Warning:** the embeddings were unavailable" in md and "(budget)" in md


def test_every_format_renders_a_json_valid_result():
    res = run(HYBRID_CASES, {"lexical": LEX, "hybrid": HYB}, modes=("lexical", "hybrid"))
    for fmt in ("text", "json", "junit", "markdown"):
        assert render("evaluation", fmt, res).endswith("\n")
    doc = validate_eval_json(json.loads(render_json(res)))
    assert doc["mode"] == "lexical" and set(doc["by_mode"]) == {"lexical", "hybrid"}


def test_misses_of_drafts_point_to_reviewing_them_not_to_paraphrases():
    from skillsift.render.evaluation import HYBRID_HINT

    cases = ("version: 1\ncases:\n"
             "  - {id: d1, query: quarterly sourdough proofing, expect: [git-workflow], tags: [draft]}\n"
             "  - {id: d2, query: deploy to staging, expect: [deploy-staging], tags: [draft]}\n")
    text = render("evaluation", "text", run(cases, {"lexical": EVAL_ENV_LEXICAL}), hybrid_hint=True)
    assert text.rstrip().splitlines()[-1].startswith("hint: every miss is a draft (tag draft), worded from the "
                                                      "skill itself, not by a user: review each")
    assert HYBRID_HINT not in text  # a draft's miss says little about paraphrases
    mixed = cases + "  - {id: p, query: quarterly sourdough proofing, expect: [deploy-staging]}\n"
    text = render("evaluation", "text", run(mixed, {"lexical": EVAL_ENV_LEXICAL}), hybrid_hint=True)
    assert "hint: 1 of the 2 misses are drafts (tag draft)" in text and text.endswith(HYBRID_HINT + "\n")
