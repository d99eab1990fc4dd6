"""The blend fusion computed from screened similarities equals fusing the complete lists.

The oracle (tests/ranker/test_vector_scale.py) scores every skill exactly, ranks the complete
lexical and centred lists, fuses them with :func:`skillsift.ranker.fusion.blend` and cuts.
The ranker computes exactly only what decides the hits it returns
(:mod:`skillsift.ranker.blend_top`); every field of every hit must agree, for every limit,
with thresholds, scopes, stale and missing vectors, exact ties and pinned ids.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.ranker.test_vector_scale import make_world, rankers


def _pinning_queries(world, count: int, seed: int) -> list[str]:
    """Queries that name a skill (its id's words in sequence), each with its own vector."""
    skills, index, provider = world
    rng = np.random.default_rng(seed)
    texts = []
    for k in range(count):
        skill = skills[int(rng.integers(len(skills)))]
        text = f"please use {skill.name.replace('-', ' ')} now {k}"
        vector = rng.standard_normal(index.dims).astype(np.float32)
        provider.table[text] = vector / np.linalg.norm(vector)
        texts.append(text)
    return texts


@pytest.mark.parametrize("seed", range(8))
def test_blend_hits_equal_the_complete_fusion_cut(seed):
    world = make_world(seed, n=260 + 30 * seed, shared=(0.0, 0.5, 0.9)[seed % 3], stale=seed % 3,
                       missing=seed % 2, duplicates=2 if seed % 4 == 0 else 0, queries=10,
                       dtype="float16" if seed % 2 else "float32")
    texts = list(world[2].table) + _pinning_queries(world, 4, seed)
    new, old = rankers(world, fusion="blend", candidates=(3, 8, 20, 50)[seed % 4],
                       vector_min_sim=(0.0, 0.04)[seed % 2])
    pinned = deep = 0
    for text in texts:
        full = old.search(text, limit=None)
        assert new.search(text, limit=None) == full, text
        for k in (1, 2, 5, 10):
            assert new.search(text, limit=k) == replace(full, hits=full.hits[:k]), (text, k)
        pinned += bool(full.hits) and text.startswith("please use") and full.hits[0].name.replace("-", " ") in text
        deep += sum(1 for h in full.hits[:10] if h.vector_rank > 8 or h.lexical_rank > 8)
    assert pinned >= 3  # the queries that name a skill put it first
    assert deep > 0  # ranks past the cuts were settled for returned hits


def test_blend_in_a_role_scope_with_a_threshold():
    world = make_world(11, n=400, shared=0.6, stale=2, missing=1)
    names = [s.name for s in world[0]][1::3]
    new, old = rankers(world, roles={"third": tuple(names)}, fusion="blend", candidates=6, vector_min_sim=0.02)
    for text in world[2].table:
        for k in (1, 4, None):
            assert new.search(text, limit=k, role="third") == old.search(text, limit=k, role="third")


def test_blend_computes_few_similarities_exactly():
    """On a catalog of thousands the returned hits settle from float64 products: exact sums stay rare."""
    from skillsift.ranker import vector

    world = make_world(5, n=3000, shared=0.5, queries=12)
    new, old = rankers(world, fusion="blend", candidates=50)
    counted = []
    original = vector.ScreenedScores.exact

    def exact(self, positions):
        counted.append(len(np.asarray(positions)))
        return original(self, positions)

    vector.ScreenedScores.exact = exact
    try:
        results = [new.search(text, limit=10) for text in world[2].table]
    finally:
        vector.ScreenedScores.exact = original
    assert results == [old.search(text, limit=10) for text in world[2].table]
    assert sum(counted) <= 3 * len(results)  # a few near ties at most, not the candidates
