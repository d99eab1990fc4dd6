"""--min parsing, gates, baselines and flips, calibration."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from skillsift.diagnostics import SkillsiftError
from skillsift.evaluate.calibrate import calibrate, calibrate_modes
from skillsift.evaluate.gates import (
    Flips,
    canonical_metric,
    check_baseline,
    compare_baseline,
    gate_failures,
    load_baseline,
    parse_minimums,
)
from skillsift.evaluate.metrics import Metrics

# -- --min ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("", {}),
        ("   ", {}),
        (None, {}),
        ("top1=0.6,mrr=0.7", {"top1": 0.6, "mrr": 0.7}),
        ("recall@k=0.8, hit=1", {"recall": 0.8, "hit": 1.0}),
        ("ndcg=0.7", {"ndcg": 0.7}),
        (
            "TOP-1=0.5,Recall_At_K=0.2,hit@k=0,NDCG@K=0.1,ndcg_at_k=0.3,hit_at_k=0.4",
            {"top1": 0.5, "recall": 0.2, "hit": 0.4, "ndcg": 0.3},
        ),
        (" top1 = 0.5 ", {"top1": 0.5}),
    ],
)
def test_parse_minimums(spec, expected):
    assert parse_minimums(spec) == expected


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            "top1",
            '--min "top1": want metric=value pairs such as top1=0.6,mrr=0.7 '
            "(metrics: top1, recall, hit, mrr, ndcg)",
        ),
        (
            "nope=0.5",
            '--min "nope=0.5": want metric=value pairs such as top1=0.6,mrr=0.7 '
            "(metrics: top1, recall, hit, mrr, ndcg)",
        ),
        ("top1=1.5", '--min "top1=1.5": value must be a number between 0 and 1'),
        ("top1=abc", '--min "top1=abc": value must be a number between 0 and 1'),
        ("top1=nan", '--min "top1=nan": value must be a number between 0 and 1'),
        ("top1=0.5, mrr=-0.1", '--min " mrr=-0.1": value must be a number between 0 and 1'),
    ],
)
def test_parse_minimums_errors(spec, message):
    with pytest.raises(SkillsiftError) as info:
        parse_minimums(spec)
    assert info.value.message == message and info.value.exit_code == 1


def test_canonical_metric():
    assert [canonical_metric(n) for n in ("Top1", "recall@k", "hit", "MRR", "ndcg_at_k", "map")] == [
        "top1",
        "recall",
        "hit",
        "mrr",
        "ndcg",
        "",
    ]


# -- gates ---------------------------------------------------------------------------------------

BASE = {
    "schema_version": 1,
    "k": 5,
    "mode": "lexical",
    "cases": [
        {"id": "a", "hit": True},
        {"id": "b", "hit": True},
        {"id": "c", "hit": False},
        {"id": "gone", "hit": True},
    ],
}
NOW = [SimpleNamespace(id=i, hit=h) for i, h in (("a", True), ("b", False), ("c", True), ("new", False))]


def test_flips_against_baseline():
    flips = compare_baseline(BASE, mode="lexical", k=5, cases=NOW)
    assert flips == Flips(regressed=("b",), fixed=("c",))
    assert flips.to_dict() == {"regressed": ["b"], "fixed": ["c"]}
    assert compare_baseline({**BASE, "cases": []}, mode="lexical", k=5, cases=NOW).to_dict() == {
        "regressed": [],
        "fixed": [],
    }


@pytest.mark.parametrize(
    "minimums, max_flips, count",
    [
        ({}, 1, 0),
        ({}, 0, 1),
        ({}, -1, 0),
        ({"top1": 0.5}, 0, 1),
        ({"top1": 0.5}, 1, 0),
        ({"top1": 0.6, "mrr": 0.7}, 1, 2),
        ({"top1": 0.9}, 0, 2),
    ],
)
def test_gate_table(minimums, max_flips, count):
    metrics = Metrics(n=4, top1=0.5, mrr=0.6).gated()
    flips = compare_baseline(BASE, mode="lexical", k=5, cases=NOW)
    failures = gate_failures(metrics, minimums, flips, max_flips)
    assert len(failures) == count
    assert all("AR9D4" in f for f in failures)


def test_gate_messages_in_metric_order():
    metrics = Metrics(n=4, top1=0.5, recall_at_k=0.25, hit_at_k=0.75, mrr=0.6).gated()
    flips = Flips(regressed=("b", "d"), fixed=())
    failures = gate_failures(metrics, {"top1": 0.9, "mrr": 0.7, "hit": 0.75, "recall": 0.3}, flips, 1)
    assert failures == [
        "AR9D4: mrr is 0.6000, below the minimum 0.7000",
        "AR9D4: recall is 0.2500, below the minimum 0.3000",
        "AR9D4: top1 is 0.5000, below the minimum 0.9000",
        "AR9D4: 2 cases regressed against the baseline (max 1): b, d",
    ]
    assert gate_failures(metrics, {"top1": 0.5}, None, 0) == []  # equal passes; no baseline, no flip gate


def test_ndcg_gate():
    graded = Metrics(n=1, top1=1.0, mrr=1.0, ndcg_at_k=0.5).gated()
    assert len(gate_failures(graded, {"ndcg": 0.6})) == 1
    assert gate_failures(graded, {"ndcg": 0.4, "top1": 0.9}) == []
    failures = gate_failures(Metrics(n=1).gated(), {"ndcg": 0.1})
    assert failures == ["AR9D4: ndcg cannot be checked: no case is graded"]


# -- baselines -----------------------------------------------------------------------------------


def test_load_baseline(tmp_path):
    good = tmp_path / "base.json"
    good.write_text('{"schema_version":1,"cases":[{"id":"a","hit":true}]}', encoding="utf-8")
    assert load_baseline(str(good))["cases"] == [{"id": "a", "hit": True}]
    nine = tmp_path / "nine.json"
    nine.write_text('{"schema_version":9}', encoding="utf-8")
    with pytest.raises(SkillsiftError) as info:
        load_baseline(str(nine))
    assert info.value.message == f"baseline {nine} has schema_version 9; this build reads 1"
    with pytest.raises(SkillsiftError, match="cannot read baseline"):
        load_baseline(str(tmp_path / "missing.json"))
    with pytest.raises(SkillsiftError, match="is not a file"):
        load_baseline(str(tmp_path))
    broken = tmp_path / "broken.json"
    broken.write_text("{\n  nope", encoding="utf-8")
    with pytest.raises(SkillsiftError, match="is not valid JSON: line 2"):
        load_baseline(str(broken))


@pytest.mark.parametrize(
    "doc, needle",
    [
        ([], "not a JSON object"),
        ({}, "schema_version 0"),
        ({"schema_version": True}, "schema_version true"),
        ({"schema_version": 1, "mode": 3}, "mode must be a string"),
        ({"schema_version": 1, "k": "5"}, "k must be an integer"),
        ({"schema_version": 1, "cases": {}}, "cases must be a list"),
        ({"schema_version": 1, "cases": [{"id": 1, "hit": True}]}, "cases[0] must be an object"),
        ({"schema_version": 1, "cases": [{"id": "a", "hit": "yes"}]}, "cases[0] must be an object"),
        ({"schema_version": 1, "cases": [{"id": "a", "hit": True, "query": 5}]}, "cases[0].query must be a string"),
        ({"schema_version": 1, "cases": [{"id": "a", "got": 1e308}]}, "cases[0].got must be a list of skill names"),
        ({"schema_version": 1, "cases": [{"id": "a", "expected": [{"a": 1}]}]},
         "cases[0].expected must be a list of skill names"),
    ],
)
def test_check_baseline_rejects(doc, needle):
    with pytest.raises(SkillsiftError) as info:
        check_baseline(doc, "b.json")
    assert needle in info.value.message


def test_baseline_k_mismatch_is_refused():
    with pytest.raises(SkillsiftError) as info:
        compare_baseline({**BASE, "k": 10}, mode="lexical", k=3, cases=NOW)
    assert "k=10" in info.value.message and "k=3" in info.value.message
    assert info.value.hint == "rerun with --k 10, or save a new baseline with --output"


@pytest.mark.parametrize(
    "base_mode, run_mode, ok",
    [
        ("hybrid", "hybrid", True),
        ("hybrid", "lexical", False),
        ("lexical", "vector", False),
        (None, "lexical", True),
        ("", "lexical", True),
        (None, "hybrid", False),
    ],
)
def test_baseline_mode_refusal_table(base_mode, run_mode, ok):
    base = {k: v for k, v in BASE.items() if k != "mode"}
    if base_mode is not None:
        base["mode"] = base_mode
    if ok:
        assert compare_baseline(base, mode=run_mode, k=5, cases=NOW).regressed == ("b",)
        return
    with pytest.raises(SkillsiftError) as info:
        compare_baseline(base, mode=run_mode, k=5, cases=NOW)
    shown = base_mode or "lexical"
    assert info.value.message == f"the baseline was ranked in {shown} mode but this run uses {run_mode}"
    assert info.value.hint == f"rerun with --mode {shown}, or save a new baseline with --output"


def test_baseline_round_trip_of_a_written_result(tmp_path):
    doc = {"schema_version": 1, "k": 3, "mode": "hybrid", "cases": [{"id": "x", "hit": False, "rank": None}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    now = [SimpleNamespace(id="x", hit=True)]
    flips = compare_baseline(load_baseline(str(path)), mode="hybrid", k=3, cases=now)
    assert flips == Flips(regressed=(), fixed=("x",))


# -- calibration ---------------------------------------------------------------------------------


def test_calibrate_table():
    c = calibrate([0.8, 0.7, 0.9], [0.2, 0.3], "vector")
    assert (c.min_sim, c.positives_kept, c.negatives_abstained, c.positives, c.negatives) == (0.5, 3, 2, 3, 2)
    c = calibrate([0.8, 0.45, 0.9], [0.5, 0.2])
    # tie at score 4 with 0.65 keeps the threshold answering more positives
    assert (c.min_sim, c.positives_kept, c.negatives_abstained) == (0.325, 3, 1)
    assert calibrate([0.3, 0.4], [0.8, 0.9]) is None
    assert calibrate([0.3], []) is None and calibrate([], [0.3]) is None


def test_calibrate_reference_hybrid_env_values():
    c = calibrate([0.998303, 0.999991, 0.99995], [0.059892, 0.059892], "vector")
    assert c.min_sim == 0.529 and (c.positives_kept, c.negatives_abstained) == (3, 2)
    assert c.to_dict() == {
        "mode": "vector",
        "min_sim": 0.529,
        "positives": 3,
        "positives_kept": 3,
        "negatives": 2,
        "negatives_abstained": 2,
        "rough": True,
    }
    assert c.sentence() == (
        "calibration (vector): vector_min_sim = 0.529 answers 3 of 3 positive cases and "
        "abstains on 2 of 2 negative cases; a rough guess from fewer than 20 negative cases: "
        "add negatives (expect: []) before setting it"
    )


def test_a_calibration_from_twenty_negatives_is_no_rough_guess():
    positives = [0.9 - i * 0.01 for i in range(20)]
    negatives = [0.2 + i * 0.005 for i in range(20)]
    c = calibrate(positives, negatives, "vector")
    assert c is not None and c.negatives == 20 and not c.rough
    assert "rough guess" not in c.sentence() and c.to_dict()["rough"] is False
    fewer = calibrate(positives, negatives[:19], "vector")
    assert fewer is not None and fewer.rough and "rough guess from fewer than 20" in fewer.sentence()


def _mode(pos, neg):
    cases = [SimpleNamespace(top_sim=s, degraded=d) for s, d in pos]
    negatives = [SimpleNamespace(top_sim=s, degraded=d) for s, d in neg]
    return SimpleNamespace(cases=cases, negatives=negatives)


def test_calibrate_modes_prefers_vector_without_fall_through():
    good = _mode([(0.9, ""), (0.8, "")], [(0.2, "")])
    empty = _mode([(0.9, "")], [])
    assert calibrate_modes({"vector": good}, ["vector"]).mode == "vector"
    assert calibrate_modes({"hybrid": good, "lexical": good}, ["lexical", "hybrid"]).mode == "hybrid"
    assert calibrate_modes({"vector": empty, "hybrid": good}, ["hybrid", "vector"]) is None
    assert calibrate_modes({"lexical": good}, ["lexical"]) is None
    # degraded cases and zero cosines are left out
    skewed = _mode([(0.9, ""), (0.95, "timeout"), (0.0, "")], [(0.2, ""), (0.99, "timeout")])
    c = calibrate_modes({"vector": skewed}, ["vector"])
    assert (c.positives, c.negatives, c.min_sim) == (1, 1, 0.55)
