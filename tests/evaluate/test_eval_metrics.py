"""Per-case scoring and aggregate metrics (pure functions)."""

from __future__ import annotations

import math

import pytest

from skillsift.evaluate.cases import Case, Expected
from skillsift.evaluate.metrics import (
    abstain_rate,
    aggregate,
    misses,
    ndcg,
    round4,
    round_half_away,
    score_case,
    score_negative,
    series,
    tag_metrics,
)


def case(cid, expect, *, avoid=(), tags=(), role=""):
    entries = tuple(e if isinstance(e, Expected) else Expected(e) for e in expect)
    return Case(
        id=cid, query=f"query of {cid}", expect=entries, avoid=tuple(avoid), tags=tuple(tags), role=role
    )


@pytest.mark.parametrize(
    "value, expected",
    [
        (0.12345, 0.1235),
        (-0.12345, -0.1235),
        (0.6249999, 0.625),
        (2 / 3, 0.6667),
        (1.0, 1.0),
        (0.0, 0.0),
        (0.00005, 0.0001),
        (-0.00005, -0.0001),
        (0.000049999, 0.0),
    ],
)
def test_round4_half_away_from_zero(value, expected):
    assert round4(value) == expected


def test_round3():
    assert round_half_away(0.5285, 3) == 0.529
    assert round_half_away(-0.5285, 3) == -0.529
    assert round_half_away(0.0005, 3) == 0.001


def test_rank_hit_top1_recall_reciprocal():
    c = score_case(case("a", ["x"]), ["x", "y", "z"], 2)
    assert (c.rank, c.hit, c.top1, c.recall, c.reciprocal) == (1, True, 1.0, 1.0, 1.0)
    c = score_case(case("b", ["y"]), ["x", "y", "z"], 2)
    assert (c.rank, c.hit, c.top1, c.recall, c.reciprocal) == (2, True, 0.0, 1.0, 0.5)
    c = score_case(case("c", ["z"]), ["x", "y", "z"], 2)
    assert (c.rank, c.hit, c.top1, c.recall) == (3, False, 0.0, 0.0)
    assert c.reciprocal == pytest.approx(1 / 3)  # not cut at k
    assert c.got == ("x", "y")
    c = score_case(case("d", ["q"]), ["x"], 2)
    assert (c.rank, c.hit, c.reciprocal, c.got) == (None, False, 0.0, ("x",))
    c = score_case(case("e", ["q"]), [], 2)
    assert (c.rank, c.hit, c.got, c.avoid_violated) == (None, False, (), False)


def test_multi_relevant_recall():
    # reference: k=1, "deploy service" expecting both deploy skills -> recall 0.5, hit 1
    c = score_case(case("m", ["deploy-staging", "deploy-prod"]), ["deploy-prod", "deploy-staging"], 1)
    assert c.recall == 0.5 and c.hit and c.rank == 1
    m = aggregate([c])
    assert (m.recall_at_k, m.hit_at_k) == (0.5, 1.0)


def test_ndcg_examples():
    graded = case("g", [Expected("staging", 3, True), Expected("prod", 1, True)])
    c = score_case(graded, ["staging", "prod"], 5)
    assert c.ndcg == pytest.approx(1.0) and c.graded
    perfect = case("p", [Expected("a", 2, True), Expected("b", 1, True)])
    assert score_case(perfect, ["a", "b"], 5).ndcg == pytest.approx(1.0)
    reversed_ = score_case(perfect, ["b", "a"], 5).ndcg
    assert reversed_ == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert ndcg(0.0, [], 5) == 0.0
    assert score_case(perfect, ["z"], 5).ndcg == 0.0
    # only the first k grades count in the ideal, and only positions < k in the gain
    assert score_case(perfect, ["z", "a"], 1).ndcg == 0.0
    assert score_case(perfect, ["a", "b"], 1).ndcg == pytest.approx(1.0)


def test_ndcg_only_when_graded():
    plain = [score_case(case("a", ["x"]), ["x"], 5)]
    assert aggregate(plain).ndcg_at_k is None and "ndcg_at_k" not in series(plain)
    mixed = plain + [score_case(case("b", [Expected("x", 2, True)]), ["y", "x"], 5)]
    m = aggregate(mixed)
    assert m.ndcg_at_k == round4((1.0 + (2 / math.log2(3)) / 2) / 2)
    assert "ndcg_at_k" in series(mixed)
    assert m.gated()["ndcg"] == m.ndcg_at_k
    assert "ndcg" not in aggregate(plain).gated()


def test_aggregate_means_and_rounding():
    ranked = {
        "refund": ["refund-policy"],
        "staging": ["deploy-staging", "deploy-prod"],
        "second": ["deploy-staging", "deploy-prod"],
        "miss": [],
    }
    expect = {
        "refund": "refund-policy",
        "staging": "deploy-staging",
        "second": "deploy-prod",
        "miss": "git-workflow",
    }
    results = [score_case(case(cid, [expect[cid]]), ranked[cid], 2) for cid in ranked]
    m = aggregate(results)
    assert (m.n, m.top1, m.recall_at_k, m.hit_at_k, m.mrr) == (4, 0.5, 0.75, 0.75, 0.625)
    assert m.avoid_top1 is None and m.abstain_rate is None and m.ndcg_at_k is None
    assert [c.id for c in misses(results)] == ["miss"]
    thirds = [score_case(case(str(i), ["x"]), ["y"] * i + ["x"], 5) for i in range(3)]
    assert aggregate(thirds).mrr == round4((1 + 1 / 2 + 1 / 3) / 3) == 0.6111


def test_no_positive_cases():
    m = aggregate([])
    assert (m.n, m.top1, m.recall_at_k, m.hit_at_k, m.mrr, m.ndcg_at_k) == (0, 0.0, 0.0, 0.0, 0.0, None)
    assert m.to_dict() == {"n": 0, "top1": 0.0, "recall_at_k": 0.0, "hit_at_k": 0.0, "mrr": 0.0}


def test_avoid_top1_over_positives_and_negatives():
    ok = score_negative(case("ok", [], avoid=["deploy-staging"]), ["deploy-prod", "deploy-staging"], 1.5)
    bad = score_negative(case("bad", [], avoid=["deploy-staging"]), ["deploy-staging", "deploy-prod"], 2.4)
    plain = score_negative(case("plain", []), [], 0.0)
    assert not ok.avoid_violated and bad.avoid_violated and not plain.avoid_violated
    assert (bad.top, bad.top_score) == ("deploy-staging", 2.4)
    assert (plain.top, plain.top_score) == ("", 0.0)
    m = aggregate([], [ok, bad, plain])
    assert m.avoid_top1 == 0.5 and m.n == 0
    positive = score_case(case("p", ["x"], avoid=["y"]), ["y", "x"], 5)
    assert positive.avoid_violated and positive.has_avoid
    assert aggregate([positive], [ok]).avoid_top1 == 0.5


def test_negative_to_dict_omits_empty_fields():
    neg = score_negative(case("n", [], tags=["negative"]), [], 3.0)
    assert neg.to_dict() == {"id": "n", "top_score": 0.0, "tags": ["negative"]}
    full = score_negative(
        case("m", [], avoid=["a"]), ["a"], 0.42, degraded="timeout", top_sim=0.3, abstained=True
    )
    assert full.to_dict() == {
        "id": "m",
        "top": "a",
        "top_score": 0.42,
        "avoid": ["a"],
        "avoid_violated": True,
        "degraded": "timeout",
        "top_sim": 0.3,
        "abstained": True,
    }


def test_case_to_dict_key_order_and_omissions():
    c = score_case(case("a", ["x"], tags=["t"], role="ops"), ["y", "x"], 1, degraded="budget", top_sim=0.7)
    d = c.to_dict()
    assert list(d) == ["id", "query", "role", "expected", "got", "rank", "hit", "degraded", "tags", "top_sim"]
    assert (d["rank"], d["hit"], d["got"]) == (2, False, ["y"])
    bare = score_case(case("b", ["x"]), [], 1).to_dict()
    assert list(bare) == ["id", "query", "expected", "got", "rank", "hit"] and bare["rank"] is None


def test_tag_metrics():
    results = [
        score_case(case("a", ["x"], tags=["paraphrase", "ops"]), ["x"], 2),
        score_case(case("b", ["x"], tags=["ops", "ops"]), ["y", "z", "x"], 2),
        score_case(case("c", ["x"]), ["x"], 2),
    ]
    tags = tag_metrics(results)
    assert list(tags) == ["ops", "paraphrase"]
    assert tags["paraphrase"].n == 1 and tags["paraphrase"].top1 == 1.0
    assert tags["ops"].n == 2 and tags["ops"].hit_at_k == 0.5 and tags["ops"].mrr == round4((1 + 1 / 3) / 2)
    assert tag_metrics(results[2:]) == {}


def test_abstain_rate():
    answered = score_negative(case("a", []), ["x"], 0.2)
    silent = score_negative(case("b", []), [], abstained=True)
    fell_back = score_negative(case("c", []), [], degraded="timeout")
    assert abstain_rate([answered, silent, fell_back]) == 0.3333
    assert abstain_rate([silent]) == 1.0
    assert abstain_rate([]) is None
