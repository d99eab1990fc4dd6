"""Blend with a limit: the hits it returns are the first hits of the complete result, ranks included.

A limited blend search settles the positions of items past a cut (their ranks in the complete
lexical and vector lists) only for the hits it returns; these tests hold it to the oracle of
tests/test_vector_scale.py (every skill scored, complete lists fused, then cut).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_vector_scale import make_world, rankers


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
