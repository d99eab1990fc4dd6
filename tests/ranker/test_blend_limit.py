"""Blend with a limit: the hits it returns are the first hits of the complete result, ranks included.

A limited blend search settles the positions of items past a cut (their ranks in the complete
lexical and vector lists) only for the hits it returns; these tests hold it to the oracle of
tests/test_vector_scale.py (every skill scored, complete lists fused, then cut).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.ranker.test_vector_scale import make_world, rankers


@pytest.mark.parametrize("seed", range(6))
def test_limited_blend_is_a_prefix_of_the_complete_blend(seed):
    world = make_world(seed, n=300 + 40 * seed, shared=0.8 if seed % 2 else 0.3, stale=seed % 3,
                       missing=seed % 2, queries=10)
    new, old = rankers(world, fusion="blend", candidates=(5, 8, 20)[seed % 3],
                        vector_min_sim=(0.0, 0.05)[seed % 2])
    deep = 0
    for text in world[2].table:
        full = new.search(text, limit=None)
        for k in (1, 3, 10):
            assert new.search(text, limit=k) == old.search(text, limit=k) == replace(full, hits=full.hits[:k])
        deep += sum(1 for h in full.hits[:10] if h.vector_rank > 8 or h.lexical_rank > 8)
    assert deep > 0  # ranks past the cut were settled for returned hits


def test_limited_blend_in_a_role_scope():
    world = make_world(4, n=320, shared=0.8)
    names = [s.name for s in world[0]][::2]
    new, old = rankers(world, roles={"half": tuple(names)}, fusion="blend", candidates=5)
    for text in world[2].table:
        assert new.search(text, limit=4, role="half") == old.search(text, limit=4, role="half")


def test_a_lexical_result_made_at_once_equals_the_dataclass_one():
    from dataclasses import FrozenInstanceError, asdict

    from skillsift.ranker.result import Hit, SearchResult

    hits = (Hit("deploy", 1.5, "Deploy it", lexical_rank=1), Hit("review", 0.25, lexical_rank=2))
    for stopword_only in (False, True):
        fast = SearchResult.lexical("ship it", hits, stopword_only)
        slow = SearchResult(query="ship it", ranking="lexical", hits=hits, stopword_only=stopword_only)
        assert fast == slow and repr(fast) == repr(slow) and asdict(fast) == asdict(slow)
        assert list(vars(fast)) == list(vars(slow))  # same attribute order: same JSON and pickles
        with pytest.raises(FrozenInstanceError):
            fast.query = "other"  # type: ignore[misc]
        assert replace(fast, hits=hits[:1]).hits == hits[:1]
