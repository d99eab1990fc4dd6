"""Running cases through a ranker per mode: by_mode, paired, degraded accounting, calibration."""

from __future__ import annotations

import pytest

from skillsift.diagnostics import SkillsiftError
from skillsift.evaluate.cases import parse_cases
from skillsift.evaluate.run import degraded_message, evaluate, needs_index_error, parse_modes
from skillsift.render.evaluation import result_json
from tests.support.eval_support import EVAL_ENV_LEXICAL, METRICS_CASES, ScriptedRanker, validate_eval_json


def run(text, ranker, modes=("lexical",), k=None, index_info=None):
    cf = parse_cases(text, "search-cases.yaml")
    return evaluate(cf, ranker, k=k or cf.effective_k(0), modes=list(modes), index_info=index_info)


def test_reference_metrics_example_k2():
    ranker = ScriptedRanker({"lexical": EVAL_ENV_LEXICAL})
    res = run(METRICS_CASES, ranker)
    assert (res.k, res.n, res.n_negative, res.mode) == (2, 4, 1, "lexical")
    cases = {c.id: c for c in res.primary.cases}
    assert cases["refund"].rank == 1
    assert cases["miss"].rank is None and not cases["miss"].hit
    assert [c.rank for c in res.primary.cases] == [1, 1, 2, None]
    m = res.primary.metrics
    assert (m.top1, m.hit_at_k, m.mrr, m.recall_at_k) == (0.5, 0.75, 0.625, 0.75)
    assert 0.5 < m.mrr < 1
    assert [c.id for c in res.primary.misses] == ["miss"]
    assert res.primary.tags["paraphrase"].n == 1 and "negative" not in res.primary.tags
    assert res.primary.negatives[0].top == ""
    ci = res.primary.ci95
    assert set(ci) == {"top1", "recall_at_k", "mrr"}
    for key, mean in (("top1", m.top1), ("recall_at_k", m.recall_at_k), ("mrr", m.mrr)):
        assert ci[key].low <= mean <= ci[key].high
    assert {k: (v.low, v.high) for k, v in ci.items()} == {
        "top1": (0.0, 1.0),
        "recall_at_k": (0.25, 1.0),
        "mrr": (0.25, 1.0),
    }
    # every case is ranked once, over the full ranking
    assert [c[1] for c in ranker.calls] == [None] * 5
    doc = validate_eval_json(result_json(res))
    assert list(doc) == [
        "schema_version",
        "k",
        "n",
        "n_negative",
        "mode",
        "modes",
        "tags",
        "ci95",
        "cases",
        "misses",
        "negatives",
        "by_mode",
    ]
    assert doc["negatives"] == [{"id": "neg", "top_score": 0, "tags": ["negative"]}]
    assert doc["modes"]["lexical"] == {
        "n": 4,
        "top1": 0.5,
        "recall_at_k": 0.75,
        "hit_at_k": 0.75,
        "mrr": 0.625,
    }
    assert doc["by_mode"]["lexical"]["cases"] == doc["cases"]
    assert doc["cases"][3] == {
        "id": "miss",
        "query": "zebra",
        "expected": ["git-workflow"],
        "got": [],
        "rank": None,
        "hit": False,
    }


def test_evaluation_is_deterministic():
    ranker = ScriptedRanker({"lexical": EVAL_ENV_LEXICAL})
    assert result_json(run(METRICS_CASES, ranker)) == result_json(run(METRICS_CASES, ranker))


def test_k_override_changes_cut_off_and_got():
    res = run(METRICS_CASES, ScriptedRanker({"lexical": EVAL_ENV_LEXICAL}), k=1)
    second = next(c for c in res.primary.cases if c.id == "second")
    assert res.k == 1 and second.rank == 2 and not second.hit and second.got == ("deploy-staging",)


def test_role_is_passed_to_the_ranker():
    text = "version: 1\ncases:\n  - {id: r, query: deploy refund, role: billing, expect: [refund-policy]}\n"
    ranker = ScriptedRanker({"lexical": EVAL_ENV_LEXICAL}, roles={"billing": {"refund-policy"}})
    res = run(text, ranker)
    case = res.primary.cases[0]
    assert case.got == ("refund-policy",) and case.role == "billing" and case.rank == 1
    assert ranker.calls == [("deploy refund", None, "lexical", "billing")]
    assert validate_eval_json(result_json(res))["cases"][0]["role"] == "billing"


# -- modes ---------------------------------------------------------------------------------------

HYBRID_CASES = """\
version: 1
k: 3
cases:
  - {id: p1, query: money back, expect: [issue-refund]}
  - {id: p2, query: returned purchase money, expect: [issue-refund]}
  - {id: p3, query: roll out to the cluster, expect: [deploy-staging]}
  - {id: p4, query: chargeback from the bank, expect: [dispute-charge]}
  - {id: lex, query: git branching, expect: [git-workflow]}
"""
LEX = {
    "money back": [],
    "returned purchase money": [("issue-refund", 3.1)],
    "roll out to the cluster": [("deploy-staging", 2.2)],
    "chargeback from the bank": [("dispute-charge", 2.9)],
    "git branching": [("git-workflow", 3.3)],
}
HYB = {
    "money back": [("issue-refund", 0.0164), ("dispute-charge", 0.0161)],
    "returned purchase money": [("issue-refund", 0.0328)],
    "roll out to the cluster": [("deploy-staging", 0.0328), ("git-workflow", 0.01)],
    "chargeback from the bank": [("dispute-charge", 0.0328)],
    "git branching": [("git-workflow", 0.0328)],
}
INDEX = {
    "model": "concepts-v1",
    "dims": 5,
    "dtype": "float32",
    "rows": 4,
    "stale_items": 0,
    "missing_items": 0,
}


def test_hybrid_vs_lexical():
    ranker = ScriptedRanker({"lexical": LEX, "hybrid": HYB})
    res = run(HYBRID_CASES, ranker, modes=("hybrid", "lexical"), index_info=INDEX)
    assert res.mode == "hybrid" and res.report_modes() == ["hybrid", "lexical"]
    hyb, lex = res.by_mode["hybrid"].metrics, res.by_mode["lexical"].metrics
    assert (lex.top1, lex.mrr) == (0.8, 0.8)
    assert hyb.mrr > lex.mrr and hyb.hit_at_k == 1.0
    d = res.paired["hybrid"]["mrr"]
    assert d.diff == 0.2 and d.low <= d.diff <= d.high and (d.low, d.high) == (0.0, 0.6)
    assert list(res.paired) == ["hybrid"]
    assert len(res.by_mode) == 2 and res.index["rows"] == 4
    assert sum(mr.degraded_cases for mr in res.by_mode.values()) == 0 and degraded_message(res) == ""
    assert res.calibration is None  # no negative case
    doc = validate_eval_json(result_json(res))
    assert doc["mode"] == "hybrid" and doc["n"] == 5
    assert list(doc["by_mode"]) == ["hybrid", "lexical"]
    assert doc["paired_vs_lexical"]["hybrid"]["mrr"] == {"diff": 0.2, "low": 0, "high": 0.6}
    assert doc["index"] == INDEX
    assert doc["cases"] == doc["by_mode"]["hybrid"]["cases"]


def test_lexical_only_has_no_index_or_paired():
    res = run(HYBRID_CASES, ScriptedRanker({"lexical": LEX}), index_info=INDEX)
    assert res.index is None and res.paired == {}
    doc = validate_eval_json(result_json(res))
    assert "index" not in doc and "paired_vs_lexical" not in doc


def test_all_modes_without_lexical_first():
    ranker = ScriptedRanker({"lexical": LEX, "hybrid": HYB, "vector": HYB})
    res = run(HYBRID_CASES, ranker, modes=parse_modes("all"), index_info=INDEX)
    assert res.mode == "lexical" and sorted(res.paired) == ["hybrid", "vector"]
    res = run(HYBRID_CASES, ranker, modes=("vector", "hybrid"), index_info=INDEX)
    assert res.paired == {}  # no lexical among them
    validate_eval_json(result_json(res))


def test_degraded_cases_are_counted_in_non_lexical_modes_only():
    text = (
        "version: 1\ncases:\n  - {id: a, query: money back, expect: [issue-refund]}\n  - {id: n, query: x}\n"
    )
    degraded = {
        ("hybrid", "money back"): "provider_unavailable",
        ("hybrid", "x"): "provider_unavailable",
        ("lexical", "x"): "no_index",
    }
    ranker = ScriptedRanker({"lexical": {**LEX, "x": []}, "hybrid": HYB}, degraded=degraded)
    res = run(text, ranker, modes=("hybrid", "lexical"))
    hyb = res.by_mode["hybrid"]
    assert hyb.degraded_cases == 2
    assert (
        hyb.cases[0].degraded == "provider_unavailable"
        and hyb.negatives[0].degraded == "provider_unavailable"
    )
    assert res.by_mode["lexical"].degraded_cases == 0 and res.by_mode["lexical"].negatives[0].degraded == ""
    assert hyb.metrics.abstain_rate == 0.0  # a fallback is not an abstention
    assert res.degraded
    assert degraded_message(res) == (
        "the embeddings were unavailable, so the result does not measure the requested "
        "ranking: hybrid: 2 cases fell back to lexical (provider_unavailable)"
    )
    doc = validate_eval_json(result_json(res))
    assert (
        doc["by_mode"]["hybrid"]["degraded_cases"] == 2 and "degraded_cases" not in doc["by_mode"]["lexical"]
    )


def test_degraded_reason_falls_back_to_negatives_and_modes_sort():
    text = (
        "version: 1\ncases:\n  - {id: a, query: money back, expect: [issue-refund]}\n  - {id: n, query: x}\n"
    )
    degraded = {("vector", "x"): "timeout", ("hybrid", "money back"): "budget"}
    ranker = ScriptedRanker({"lexical": {**LEX, "x": []}, "hybrid": HYB, "vector": HYB}, degraded=degraded)
    res = run(text, ranker, modes=("vector", "hybrid"))
    assert degraded_message(res).endswith(
        "hybrid: 1 case fell back to lexical (budget); vector: 1 case fell back to lexical (timeout)"
    )


CALIBRATION_CASES = """\
version: 1
k: 3
cases:
  - {id: p1, query: money back, expect: [issue-refund]}
  - {id: p2, query: roll out to the cluster, expect: [deploy-staging]}
  - {id: p3, query: chargeback from the bank, expect: [dispute-charge]}
  - {id: n1, query: weather today}
  - {id: n2, query: sourdough recipe, expect: []}
"""
VEC = {
    **HYB,
    "weather today": [("dispute-charge", 0.059892)],
    "sourdough recipe": [("dispute-charge", 0.059892)],
}
SIMS = {
    ("vector", "money back"): 0.998303,
    ("vector", "roll out to the cluster"): 0.999991,
    ("vector", "chargeback from the bank"): 0.99995,
    ("vector", "weather today"): 0.059892,
    ("vector", "sourdough recipe"): 0.059892,
}


def test_calibration_from_the_vector_mode():
    ranker = ScriptedRanker({"lexical": LEX, "vector": VEC}, top_sim=SIMS)
    res = run(CALIBRATION_CASES, ranker, modes=("vector",), index_info=INDEX)
    c = res.calibration
    assert (c.mode, c.positives, c.negatives, c.positives_kept, c.negatives_abstained) == (
        "vector",
        3,
        2,
        3,
        2,
    )
    assert c.min_sim == 0.529
    assert all(n.top_sim < c.min_sim for n in res.primary.negatives)
    assert all(p.top_sim >= c.min_sim for p in res.primary.cases)
    assert res.primary.metrics.abstain_rate == 0.0
    doc = validate_eval_json(result_json(res))
    assert doc["calibration"]["min_sim"] == 0.529 and doc["cases"][0]["top_sim"] == 0.998303
    assert doc["negatives"][0]["top"] == "dispute-charge" and doc["negatives"][0]["top_score"] == 0.059892


def test_no_calibration_for_positives_only_negatives_only_or_lexical():
    ranker = ScriptedRanker(
        {"lexical": {**LEX, "weather today": [], "sourdough recipe": []}, "vector": VEC}, top_sim=SIMS
    )
    positives_only = CALIBRATION_CASES.split("  - {id: n1")[0]
    assert run(positives_only, ranker, modes=("vector",)).calibration is None
    negatives_only = "version: 1\ncases:\n  - {id: n1, query: weather today}\n"
    assert run(negatives_only, ranker, modes=("vector",)).calibration is None
    assert run(CALIBRATION_CASES, ranker, modes=("lexical",)).calibration is None


def test_configured_threshold_abstains_on_negatives():
    abstained = {("vector", "weather today"): True, ("vector", "sourdough recipe"): True}
    ranker = ScriptedRanker({"lexical": LEX, "vector": VEC}, top_sim=SIMS, abstained=abstained)
    res = run(CALIBRATION_CASES, ranker, modes=("vector",))
    negs = res.primary.negatives
    assert all(n.top == "" and n.abstained for n in negs)
    assert res.primary.metrics.abstain_rate == 1.0 and res.primary.metrics.hit_at_k == 1.0
    doc = validate_eval_json(result_json(res))
    assert doc["modes"]["vector"]["abstain_rate"] == 1 and doc["negatives"][0]["abstained"] is True


def test_lexical_mode_ignores_top_sim_and_has_no_abstain_rate():
    ranker = ScriptedRanker(
        {"lexical": {**LEX, "weather today": [], "sourdough recipe": []}},
        top_sim={("lexical", "money back"): 0.5},
    )
    res = run(CALIBRATION_CASES, ranker)
    assert res.primary.metrics.abstain_rate is None
    assert all(c.top_sim == 0 for c in res.primary.cases)


# -- mode parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, configured, modes",
    [
        (None, "hybrid", ["hybrid"]),
        ("", "lexical", ["lexical"]),
        ("  ", "vector", ["vector"]),
        ("all", "lexical", ["lexical", "vector", "hybrid"]),
        (" hybrid , lexical,hybrid", "lexical", ["hybrid", "lexical"]),
        ("vector", "lexical", ["vector"]),
    ],
)
def test_parse_modes(spec, configured, modes):
    assert parse_modes(spec, configured) == modes


@pytest.mark.parametrize("spec", ["semantic", "lexical,", "all,lexical", "Lexical"])
def test_parse_modes_errors(spec):
    with pytest.raises(SkillsiftError) as info:
        parse_modes(spec)
    assert info.value.message == f'--mode "{spec}": each mode must be lexical, hybrid or vector, or use all'


def test_needs_index_error():
    err = needs_index_error(["hybrid", "lexical"])
    assert err.message == "hybrid/lexical evaluation needs an embedding index, and none is usable"
    assert err.hint == "Run 'skillsift index' first" and err.exit_code == 1
