"""RRF and weighted fusion, vector-only items and the fused sort (reference §3.5-§3.7, §10.3)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.ranker.fusion import FusedItem, rrf, sort_fused, vector_only, weighted
from skillsift.ranker.rounding import round_half_away


def _by_id(items):
    return {it.id: it for it in items}


def test_rrf_hand_computed_example():
    fused = sort_fused(rrf([("a", 9.0), ("b", 8.0)], [("b", 0.9), ("c", 0.8)], k=60))
    assert [it.id for it in fused] == ["b", "a", "c"]
    b, a, c = fused
    assert b.score == round_half_away(1 / 62 + 1 / 61, 9) == 0.032522475
    assert a.score == round_half_away(1 / 61, 9) == 0.016393443
    assert c.score == round_half_away(1 / 62, 9) == 0.016129032
    assert (b.lexical_rank, b.vector_rank, b.vector_sim) == (2, 1, 0.9)
    assert (a.lexical_rank, a.vector_rank, a.vector_sim) == (1, 0, None)
    assert (c.lexical_rank, c.vector_rank, c.vector_sim) == (0, 2, 0.8)


def test_rrf_ties_break_by_id_and_weights_move_them():
    equal = sort_fused(rrf([("b", 1.0)], [("a", 0.5)]))
    assert [it.id for it in equal] == ["a", "b"]
    assert equal[0].score == equal[1].score
    vector_heavy = sort_fused(rrf([("b", 1.0)], [("a", 0.5)], w_lex=1.0, w_vec=3.0))
    assert [it.id for it in vector_heavy] == ["a", "b"]
    assert vector_heavy[0].score == round_half_away(3 / 61, 9)
    lexical_heavy = sort_fused(rrf([("b", 1.0)], [("a", 0.5)], w_lex=3.0, w_vec=1.0))
    assert [it.id for it in lexical_heavy] == ["b", "a"]


def test_rrf_uses_k():
    (item,) = rrf([("x", 1.0)], [], k=1)
    assert item.score == 0.5
    (item,) = rrf([], [("x", 0.3)], k=0)
    assert item.score == 1.0


def test_weighted_example():
    fused = sort_fused(
        weighted([("a", 10.0), ("b", 5.0), ("c", 0.0)], [("b", 0.9), ("c", 0.5), ("a", 0.1)], 1.0, 1.0)
    )
    assert [(it.id, it.score) for it in fused] == [("b", 0.75), ("a", 0.5), ("c", 0.25)]
    assert _by_id(fused)["a"].vector_sim == 0.1
    assert [(it.lexical_rank, it.vector_rank) for it in fused] == [(2, 1), (1, 3), (3, 2)]


def test_weighted_uses_the_weight_ratio():
    fused = _by_id(weighted([("a", 2.0), ("b", 1.0)], [("b", 0.9), ("a", 0.1)], w_lex=1.0, w_vec=3.0))
    assert fused["a"].score == 0.25  # a = 1/4: lexical best only
    assert fused["b"].score == 0.75  # vector best only


def test_weighted_equal_scores_normalise_to_one_and_empty_lists_add_nothing():
    fused = _by_id(weighted([("a", 3.0), ("b", 3.0)], [("c", 0.4)]))
    assert fused["a"].score == fused["b"].score == 0.5  # every member of an all-equal list is 1
    assert fused["c"].score == 0.5  # a single-member list is all-equal too
    only_lexical = _by_id(weighted([("a", 2.0), ("b", 1.0)], []))
    assert (only_lexical["a"].score, only_lexical["b"].score) == (0.5, 0.0)
    assert weighted([], []) == []
    with pytest.raises(ValueError, match="w_lex"):
        weighted([("a", 1.0)], [], w_lex=0.0, w_vec=0.0)


def test_candidates_cut_both_lists():
    lexical = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
    vector = [("c", 0.9), ("b", 0.8), ("a", 0.7)]
    one = rrf(lexical, vector, candidates=1)
    assert sorted(it.id for it in one) == ["a", "c"]
    assert len(weighted(lexical, vector, candidates=1)) == 2
    assert len(rrf(lexical, vector, candidates=50)) == 3
    assert rrf(lexical[:1], vector[:1]) == one  # the same as lists already cut
    with pytest.raises(ValueError, match="candidates"):
        rrf(lexical, vector, candidates=0)


def test_duplicate_ids_in_a_list_are_rejected():
    with pytest.raises(ValueError, match="lexical list names 'a' twice"):
        rrf([("a", 1.0), ("a", 0.5)], [])
    with pytest.raises(ValueError, match="vector list names 'b' twice"):
        weighted([], [("b", 0.3), ("b", 0.2)])


def test_vector_only_scores_are_rounded_cosines():
    items = sort_fused(vector_only([("x", 0.8320961234), ("y", 0.5550634)]))
    assert [(it.id, it.score, it.vector_sim, it.vector_rank, it.lexical_rank) for it in items] == [
        ("x", 0.832096, 0.832096, 1, 0),
        ("y", 0.555063, 0.555063, 2, 0),
    ]
    assert len(vector_only([("x", 0.8), ("y", 0.5)], candidates=1)) == 1


def test_sort_fused_pins_first_then_score_then_id():
    items = [
        FusedItem("c", 0.5),
        FusedItem("a", 0.5),
        FusedItem("b", 0.9),
        FusedItem("z", 0.1),
    ]
    assert [it.id for it in sort_fused(items)] == ["b", "a", "c", "z"]
    assert [it.id for it in sort_fused(items, pinned="z")] == ["z", "b", "a", "c"]
    assert [it.id for it in sort_fused(items, pinned="missing")] == ["b", "a", "c", "z"]
    assert [it.id for it in items] == ["c", "a", "b", "z"]  # the input is left as it was


_ids = st.sampled_from(list("abcdefgh"))
_ranked = st.lists(st.tuples(_ids, st.floats(-1, 1)), max_size=8, unique_by=lambda t: t[0]).map(
    lambda xs: sorted(xs, key=lambda t: -t[1])
)


@settings(max_examples=300, deadline=None)
@given(_ranked, _ranked, st.integers(1, 100), st.floats(0.1, 5), st.floats(0.1, 5))
def test_fusion_properties(lexical, vector, k, w_lex, w_vec):
    union = {i for i, _ in lexical} | {i for i, _ in vector}
    for fused in (rrf(lexical, vector, k, w_lex, w_vec), weighted(lexical, vector, w_lex, w_vec)):
        assert {it.id for it in fused} == union
        by_id = _by_id(fused)
        for rank, (i, _) in enumerate(lexical, start=1):
            assert by_id[i].lexical_rank == rank
        for rank, (i, sim) in enumerate(vector, start=1):
            assert by_id[i].vector_rank == rank and by_id[i].vector_sim == round_half_away(sim, 6)
        for it in fused:
            assert it.score == round_half_away(it.score, 9)
        ordered = sort_fused(fused)
        assert all(
            (x.score > y.score) or (x.score == y.score and x.id < y.id) for x, y in pairwise(ordered)
        )
    scores = _by_id(rrf(lexical, vector, k, w_lex, w_vec))
    for i in union:
        lr = next((r for r, (j, _) in enumerate(lexical, start=1) if j == i), 0)
        vr = next((r for r, (j, _) in enumerate(vector, start=1) if j == i), 0)
        expected = (w_lex / (k + lr) if lr else 0.0) + (w_vec / (k + vr) if vr else 0.0)
        assert scores[i].score == round_half_away(expected, 9)


def test_zscore_trust_follows_the_words_matched_and_the_query_length():
    from skillsift.ranker.fusion import zscore_lexical_weight, zscore_trust

    assert zscore_trust(1.0, 1) == pytest.approx(0.675)  # one word, held: 0.5 + 0.7 / 4
    assert zscore_trust(1.0, 4) == zscore_trust(1.0, 9) == pytest.approx(1.2)  # four words or more
    assert zscore_trust(0.5, 2) == pytest.approx(0.5 * 0.85)
    assert zscore_trust(0.0, 6) == 0.0  # no query word in the top lexical match: the cosine alone
    assert zscore_lexical_weight(1.0, 4, 2.0, 1.0) == pytest.approx(2.4)
    with pytest.raises(ValueError, match="w_vec > 0"):
        zscore_lexical_weight(1.0, 4, 1.0, 0.0)
