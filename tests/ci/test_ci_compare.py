"""Base vs head: per-case outcomes from a run or a saved result, flips, rank changes, paired differences."""

from __future__ import annotations

import json

import pytest

from skillsift.diagnostics import SkillsiftError
from skillsift.evaluate.cases import parse_cases
from skillsift.evaluate.compare import compare
from skillsift.evaluate.gates import check_baseline
from skillsift.evaluate.outcomes import Outcome, Side, side_from_document, side_from_result
from skillsift.evaluate.run import evaluate
from skillsift.render.evaluation import render_json
from tests.ci.test_ci_report import BASE, CASES, HEAD
from tests.support.eval_support import ScriptedRanker


def run(rankings, k=3):
    return evaluate(parse_cases(CASES, "search-cases.yaml"), ScriptedRanker({"lexical": rankings}), k=k,
                    modes=["lexical"])


def outcome(case_id, rank, k=3):
    hit = rank is not None and rank <= k
    return Outcome(id=case_id, query=f"q {case_id}", expected=("s",), rank=rank, hit=hit,
                   values={"top1": float(rank == 1), "recall_at_k": float(hit), "hit_at_k": float(hit),
                           "mrr": 0.0 if rank is None else 1 / rank})


def side(ranks: dict, k=3, mode="lexical"):
    return Side(label="x", mode=mode, k=k, cases=tuple(outcome(i, r, k) for i, r in ranks.items()))


def test_a_side_reproduces_the_evaluation_metrics():
    result = run(BASE)
    s = side_from_result(result, "base")
    m = result.primary.metrics
    assert s.metrics() == {"top1": m.top1, "recall_at_k": m.recall_at_k, "hit_at_k": m.hit_at_k, "mrr": m.mrr,
                           "ndcg_at_k": m.ndcg_at_k}
    assert [c.id for c in s.cases] == ["staging", "refund", "rollback", "pipes", "branch", "changelog"]
    assert s.n_negative == 1 and s.cases[2].first == "release-notes"


def test_a_saved_result_gives_the_same_outcomes_except_ndcg():
    result = run(HEAD)
    doc = check_baseline(json.loads(render_json(result)))
    saved, live = side_from_document(doc, "file"), side_from_result(result, "head")
    assert saved.metric_keys() == ["top1", "recall_at_k", "hit_at_k", "mrr"]
    assert [(c.id, c.rank, c.hit, c.first) for c in saved.cases] == [(c.id, c.rank, c.hit, c.first)
                                                                      for c in live.cases]
    for a, b in zip(saved.cases, live.cases, strict=True):
        assert a.values == {k: v for k, v in b.values.items() if k != "ndcg_at_k"}
    assert (saved.mode, saved.k, saved.n_negative) == ("lexical", 3, 1)


def test_recall_from_a_saved_result_counts_only_the_top_k():
    doc = {"schema_version": 1, "mode": "lexical", "k": 2, "cases": [
        {"id": "a", "expected": ["x", "y", "z"], "got": ["x", "q"], "rank": 1, "hit": True},
        {"id": "b", "expected": ["x"], "got": ["q", "r"], "rank": 7, "hit": False},
    ]}
    a, b = side_from_document(doc, "f").cases
    assert a.values["recall_at_k"] == pytest.approx(1 / 3) and a.values["top1"] == 1.0
    assert b.values == {"top1": 0.0, "recall_at_k": 0.0, "hit_at_k": 0.0, "mrr": pytest.approx(1 / 7)}


def test_flips_and_rank_changes():
    base = side({"a": 1, "b": 2, "c": None, "d": 1, "e": 3, "f": 2, "g": 5})
    head = side({"a": 4, "b": None, "c": 1, "d": 2, "e": 1, "f": 2, "g": None})
    c = compare(base, head, {"a": 10, "b": 13})
    assert (c.flips.regressed, c.flips.fixed) == (("a", "b"), ("c",))
    assert [(ch.id, ch.before, ch.after, ch.line) for ch in c.regressed] == [("a", 1, 4, 10), ("b", 2, None, 13)]
    assert [(ch.id, ch.before, ch.after) for ch in c.fixed] == [("c", None, 1)]
    # moved: not flips; worse first (d 1->2, g 5->none, both misses or both hits), then better (e 3->1)
    assert [(ch.id, ch.worse) for ch in c.moved] == [("d", True), ("g", True), ("e", False)]
    assert c.changed and c.common == 7 and not c.added and not c.removed


def test_paired_difference_is_head_minus_base_over_common_cases():
    base = side({"a": 1, "b": 1, "old": 1})
    head = side({"b": 2, "a": 1, "new": 1})
    c = compare(base, head)
    assert c.common == 2 and c.added == ("new",) and c.removed == ("old",)
    assert c.paired["top1"].diff == -0.5 and c.paired["mrr"].diff == -0.25
    assert c.paired["hit_at_k"].diff == 0
    assert c.paired["top1"].low <= c.paired["top1"].diff <= c.paired["top1"].high


def test_no_change():
    base = side({"a": 1, "b": None})
    c = compare(base, side({"a": 1, "b": None}))
    assert not c.changed and c.paired["top1"].diff == 0 and (c.paired["top1"].low, c.paired["top1"].high) == (0, 0)


def test_different_mode_or_k_is_refused():
    with pytest.raises(SkillsiftError, match="ranked in hybrid mode but this run uses lexical"):
        compare(side({"a": 1}, mode="hybrid"), side({"a": 1}))
    with pytest.raises(SkillsiftError, match="evaluated at k=5 but this run uses k=3"):
        compare(side({"a": 1}, k=5), side({"a": 1}))


def test_a_flip_recorded_without_a_rank_change_is_still_listed():
    """A hand-edited baseline may say hit with the same rank; the flip must not crash or vanish."""
    base = Side(label="f", mode="lexical", k=3, cases=(Outcome(id="a", query="q", expected=("s",), rank=4, hit=True,
                                                               values={"top1": 0.0}),))
    head = Side(label="h", mode="lexical", k=3, cases=(Outcome(id="a", query="q", expected=("s",), rank=4, hit=False,
                                                               values={"top1": 0.0}),))
    c = compare(base, head)
    assert [ch.id for ch in c.regressed] == ["a"]
