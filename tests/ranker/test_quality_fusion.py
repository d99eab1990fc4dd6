"""The ``blend`` fusion: cosine plus a bounded, score-aware lexical bonus (docs/ranking-quality.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.catalog.load import catalog_from_skills
from skillsift.config import Config, SearchConfig, validate_search_table
from skillsift.index.build import build_index, plan_build
from skillsift.ranker.centring import CENTRE_SHRINK, centre
from skillsift.ranker.model.fusion import BLEND_SCALE, blend_bonus_scale, sort_fused
from skillsift.ranker.rounding import round_half_away
from skillsift.ranker.search import Ranker
from tests.ranker.reference import blend
from tests.support.concept_embedder import ConceptEmbedder, refund_catalog


def _by_id(items):
    return {it.id: it for it in items}


def _order(items):
    return [it.id for it in sort_fused(items)]


# -- the pure function ------------------------------------------------------------------------------


def test_hand_computed_blend():
    fused = blend([("a", 10.0), ("b", 5.0)], [("b", 0.9), ("c", 0.5), ("a", 0.35)])
    by = _by_id(fused)
    assert by["b"].score == round_half_away(0.9 + BLEND_SCALE * 0.5, 9) == 0.96
    assert by["a"].score == round_half_away(0.35 + BLEND_SCALE * 1.0, 9) == 0.47
    assert by["c"].score == 0.5  # no lexical match: its cosine alone
    assert _order(fused) == ["b", "c", "a"]
    assert (by["b"].lexical_rank, by["b"].vector_rank, by["b"].vector_sim) == (2, 1, 0.9)
    assert (by["a"].lexical_rank, by["a"].vector_rank) == (1, 3)
    assert (by["c"].lexical_rank, by["c"].vector_rank) == (0, 2)


def test_weights_scale_the_bonus_by_their_ratio():
    lexical, vector = [("a", 10.0), ("b", 5.0)], [("b", 0.9), ("c", 0.5), ("a", 0.4)]
    assert blend_bonus_scale(2.0, 1.0) == pytest.approx(2 * BLEND_SCALE)
    doubled = _by_id(blend(lexical, vector, 2.0, 1.0))
    assert doubled["a"].score == round_half_away(0.4 + 2 * BLEND_SCALE, 9)
    assert _order(doubled.values()) == ["b", "a", "c"]  # a's bonus now beats c's cosine
    assert blend(lexical, vector, 3.0, 3.0) == blend(lexical, vector)  # only the ratio counts
    assert [it.score for it in blend(lexical, vector, 0.0, 1.0)] == [0.9, 0.5, 0.4]  # no bonus at all


def test_scores_are_scale_free_in_bm25():
    """Multiplying every BM25F score (a bigger catalog, a longer query) changes nothing."""
    vector = [("b", 0.61), ("a", 0.6), ("c", 0.2)]
    small = blend([("a", 2.0), ("c", 1.0)], vector)
    large = blend([("a", 200.0), ("c", 100.0)], vector)
    assert small == large
    assert _order(small) == ["a", "b", "c"]


def test_candidates_pick_the_set_but_scores_use_everything_known():
    fused = blend([("a", 3.0), ("b", 2.0), ("c", 1.0)], [("c", 0.9), ("b", 0.5), ("a", 0.1)], candidates=1)
    by = _by_id(fused)
    assert set(by) == {"a", "c"}
    assert by["a"].vector_sim == 0.1 and by["a"].vector_rank == 3  # known although cut from the vector list
    assert by["c"].score == round_half_away(0.9 + BLEND_SCALE / 3, 9)  # c's lexical score still counts
    with pytest.raises(ValueError):
        blend([("a", 1.0)], [("a", 0.5)], candidates=0)


def test_item_without_a_vector_counts_as_the_least_similar():
    fused = _by_id(blend([("stale", 4.0), ("x", 1.0)], [("x", 0.7), ("y", 0.2)]))
    assert fused["stale"].vector_sim is None and fused["stale"].vector_rank == 0
    assert fused["stale"].score == round_half_away(0.2 + BLEND_SCALE, 9)
    assert fused["x"].score == round_half_away(0.7 + BLEND_SCALE * 0.25, 9)


def test_empty_lists():
    only_vector = blend([], [("b", 0.3), ("a", 0.3), ("c", -0.1)])
    assert [(it.id, it.score) for it in sort_fused(only_vector)] == [("a", 0.3), ("b", 0.3), ("c", -0.1)]
    only_lexical = blend([("a", 2.0), ("b", 1.0)], [])
    assert [(it.id, it.score) for it in sort_fused(only_lexical)] == [("a", BLEND_SCALE), ("b", BLEND_SCALE / 2)]
    assert blend([], []) == []


def test_ties_break_by_id_and_pin_goes_first():
    fused = blend([("b", 1.0), ("a", 1.0)], [("a", 0.5), ("b", 0.5), ("z", 0.9)])
    assert _order(fused) == ["z", "a", "b"]
    assert [it.id for it in sort_fused(fused, pinned="b")] == ["b", "z", "a"]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="w_vec > 0"):
        blend([("a", 1.0)], [("a", 0.5)], 1.0, 0.0)
    with pytest.raises(ValueError, match="names 'a' twice"):
        blend([("a", 1.0), ("a", 0.5)], [])


_ids = st.sampled_from("abcdefgh")


@settings(max_examples=150, deadline=None)
@given(
    lex=st.dictionaries(_ids, st.floats(0.001, 50, allow_nan=False)),
    vec=st.dictionaries(_ids, st.floats(-1, 1, allow_nan=False)),
    w=st.floats(0, 4, allow_nan=False),
    cut=st.one_of(st.none(), st.integers(1, 8)),
)
def test_bonus_is_bounded_and_monotone(lex, vec, w, cut):
    lexical = sorted(lex.items(), key=lambda kv: (-kv[1], kv[0]))
    vector = sorted(vec.items(), key=lambda kv: (-kv[1], kv[0]))
    fused = blend(lexical, vector, w, 1.0, candidates=cut)
    floor = min(vec.values()) if vec else 0.0
    bonus = BLEND_SCALE * w
    top = max(lex.values()) if lex else 0.0
    for it in fused:
        base = vec.get(it.id, floor)
        extra = it.score - base
        assert -1e-9 <= extra <= bonus + 1e-9
        if it.id in lex:
            assert extra == pytest.approx(bonus * lex[it.id] / top, abs=1e-8)
    chosen = (lexical[:cut] if cut else lexical) + (vector[:cut] if cut else vector)
    assert {it.id for it in fused} == {i for i, _ in chosen}
    assert sort_fused(fused) == sort_fused(list(reversed(fused)))  # order never depends on input order


def test_cosines_reported_apart_from_the_ranking_similarity():
    fused = _by_id(blend([("a", 1.0)], [("b", 0.2), ("a", -0.1)], cosines={"a": 0.4, "b": 0.7}))
    assert fused["a"].score == round_half_away(-0.1 + BLEND_SCALE, 9) and fused["a"].vector_sim == 0.4
    assert fused["b"].score == 0.2 and fused["b"].vector_sim == 0.7


# -- centring ----------------------------------------------------------------------------------------


def test_centre_subtracts_the_shrunk_mean_and_renormalises():
    import numpy as np

    m = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
    out = centre(m, [0, 1, 2])
    alpha = 3 / (3 + CENTRE_SHRINK)
    mean = m[:3].astype(np.float64).mean(axis=0)
    for r in range(4):  # every row moves, catalog rows and the rest alike
        want = m[r] - alpha * mean
        assert np.allclose(out[r], want / np.linalg.norm(want), atol=1e-6)
    assert out.dtype == np.float32 and out.shape == m.shape
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)


def test_centre_removes_the_shared_direction():
    import numpy as np

    rng = np.random.default_rng(7)
    shared = np.zeros(16)
    shared[0] = 3.0
    m = shared + rng.normal(size=(200, 16))
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    before = (m @ m.T)[np.triu_indices(200, 1)].mean()
    c = centre(m, range(200)).astype(np.float64)
    after = (c @ c.T)[np.triu_indices(200, 1)].mean()
    assert before > 0.3 and abs(after) < 0.05


def test_centre_small_and_degenerate_catalogs():
    import numpy as np

    one = np.array([[0.0, 1.0]], dtype=np.float32)
    assert np.allclose(centre(one, [0]), one)  # a single skill keeps its direction
    two = np.array([[1.0, 0.0], [0.8, 0.6]], dtype=np.float32)
    c = centre(two, [0, 1])
    assert float(c[0] @ c[1]) > 0  # two skills are not pushed to opposite ends
    assert np.array_equal(centre(two, []), two)
    zero = np.zeros((2, 2), dtype=np.float32)
    assert np.array_equal(centre(zero, [0, 1]), zero)
    with pytest.raises(ValueError):
        centre(two, [0], shrink=-1)


# -- in the ranker -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built_index():
    embedder = ConceptEmbedder()
    return build_index(plan_build(refund_catalog(), None, provider=embedder), embedder).index


def make_ranker(index, *, skills=None, **search):
    config = Config(search=replace(SearchConfig(mode="hybrid", fusion="blend"), **search))
    return Ranker(catalog_from_skills(skills or refund_catalog()), config, index=index, provider=ConceptEmbedder(),
                  query_timeout_ms=0)


def test_blend_finds_what_lexical_cannot(built_index):
    ranker = make_ranker(built_index)
    assert ranker.search("money back", mode="lexical").hits == ()
    result = ranker.search("money back")
    assert result.ranking == "hybrid" and result.degraded is None and result.embedded
    assert result.hits[0].name == "issue-refund"


def test_blend_score_is_centred_similarity_plus_lexical_bonus(built_index):
    import numpy as np

    ranker = make_ranker(built_index)
    result = ranker.search("reimburse customer", limit=None)
    top = result.hits[0]
    assert top.name == "issue-refund" and top.lexical_rank == 1 and top.vector_rank == 1
    rows = [built_index.row("", s.name) for s in refund_catalog()]
    centred = centre(built_index.matrix, rows)
    query = ConceptEmbedder().embed(["reimburse customer"])[0]
    for hit in result.hits:
        row = built_index.row("", hit.name)
        sim = float(np.asarray(centred[row], dtype=np.float64) @ np.asarray(query, dtype=np.float64))
        bonus = BLEND_SCALE if hit.lexical_rank == 1 else 0.0
        assert hit.score == pytest.approx(sim + bonus, abs=1e-6)
        plain = float(np.asarray(built_index.matrix[row], dtype=np.float64) @ np.asarray(query, dtype=np.float64))
        assert hit.vector_sim == pytest.approx(plain, abs=1e-6)  # hits still report the plain cosine


def test_blend_keeps_the_exact_pin(built_index):
    query = "use the deploy-staging skill to handle a chargeback dispute from a bank"
    assert make_ranker(built_index).search(query).hits[0].name == "deploy-staging"
    assert make_ranker(built_index).search(query, mode="vector").hits[0].name == "dispute-charge"


def test_blend_with_a_stale_item(built_index):
    skills = [replace(s, description="Pay a customer back for a returned order") if s.name == "issue-refund" else s
              for s in refund_catalog()]
    result = make_ranker(built_index, skills=skills).search("reimburse customer")
    refund = next(h for h in result.hits if h.name == "issue-refund")
    assert refund.stale_vector and refund.vector_rank == 0 and refund.lexical_rank == 1
    assert result.hits[0].name == "issue-refund"  # the lexical bonus lifts it over the least similar cosine
    assert [h.name for h in result.hits if h.stale_vector] == ["issue-refund"]


def test_blend_abstention_rules_follow_rrf(built_index):
    weather = make_ranker(built_index, vector_min_sim=0.5).search("weather today")
    assert weather.abstained and weather.hits == () and weather.ranking == "hybrid"
    git = make_ranker(built_index, vector_min_sim=0.99).search("git")
    assert git.hits[0].name == "git-workflow" and not git.abstained


def test_blend_is_deterministic_and_leaves_lexical_mode_alone(built_index):
    ranker = make_ranker(built_index)
    runs = {tuple((h.name, h.score) for h in ranker.search("staging rollout for a customer", limit=None).hits)
            for _ in range(20)}
    assert len(runs) == 1
    lexical = Ranker(catalog_from_skills(refund_catalog()), Config()).search("staging rollout", mode="lexical")
    assert ranker.search("staging rollout", mode="lexical") == lexical


def test_config_accepts_blend():
    assert validate_search_table({"fusion": "blend"}) == []
    assert validate_search_table({"fusion": "sum"}) == [
        'search.fusion "sum" must be auto, rrf, weighted, blend, zscore or zscore-mnz']
    assert validate_search_table({"fusion": "zscore"}) == []


def test_query_embedding_worker_is_reused_and_replaced_after_a_timeout(built_index):
    import threading
    import time

    class Gate(ConceptEmbedder):
        slow = True

        def embed(self, texts):
            self.threads = getattr(self, "threads", []) + [threading.current_thread()]
            if self.slow:
                time.sleep(0.3)
            return super().embed(texts)

    embedder = Gate()
    config = Config(search=replace(SearchConfig(mode="hybrid", fusion="blend")))
    ranker = Ranker(catalog_from_skills(refund_catalog()), config, index=built_index, provider=embedder,
                    query_timeout_ms=50)
    assert ranker.search("money back").degraded == "timeout"
    embedder.slow = False
    first = ranker.search("chargeback from the bank")
    second = ranker.search("roll out to the cluster")
    assert first.degraded is None and second.degraded is None and first.embedded and second.embedded
    assert first.hits[0].name == "dispute-charge" and second.hits[0].name == "deploy-staging"
    timed_out, *rest = embedder.threads
    assert rest[0] is rest[1] and rest[0] is not timed_out  # one worker serves both; the stuck one was replaced
