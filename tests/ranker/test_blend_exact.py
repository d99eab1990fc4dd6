"""Blend over a small scope, every similarity exact, equals fusing the complete lists.

The oracle (tests/ranker/test_vector_scale.py) scores every skill with sequential sums, ranks
the complete lexical and centred lists and fuses them with :func:`skillsift.ranker.fusion.blend`;
the ranker's small-scope path (:mod:`skillsift.ranker.blend_exact`) must agree on every field of
every hit, and so must the screened path on the same scopes.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from skillsift.ranker import blend_exact, vector_search
from skillsift.ranker.blend_exact import SMALL_ROWS, ExactRows
from skillsift.ranker.vector import exact_dots
from tests.ranker.test_blend_top import _pinning_queries
from tests.ranker.test_vector_scale import make_world, rankers


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_exact_rows_give_the_sequential_sums_bit_for_bit(dtype):
    rng = np.random.default_rng(7)
    for n in [1, 2, 3, 5, 17, 40, 64, SMALL_ROWS]:
        matrix = rng.standard_normal((n + 3, 384)).astype(dtype)
        centred = rng.standard_normal((n + 3, 384)).astype(np.float32) * 3  # clamping is exercised too
        rows = rng.permutation(n + 3)[:n]
        query = rng.standard_normal(384).astype(np.float32)
        query /= np.linalg.norm(query)
        exact = ExactRows(matrix, centred, rows, skills=list(range(n)), ties=list(range(n)))
        plain, centred_sims = exact.similarities(query)
        assert plain == exact_dots(matrix, rows, query).tolist()
        assert centred_sims == exact_dots(centred, rows, query).tolist()


def _check(world, texts, *, role=None, roles=None, **search):
    new, old = rankers(world, roles=roles, **search)
    for text in texts:
        full = old.search(text, limit=None, role=role)
        assert new.search(text, limit=None, role=role) == full, text
        for k in (1, 3, 10):
            assert new.search(text, limit=k, role=role) == replace(full, hits=full.hits[:k]), (text, k)
    return new


@pytest.mark.parametrize("seed", range(8))
def test_small_catalog_blend_equals_the_complete_fusion(seed):
    n = (6, 12, 27, 40, 51, 64, 96, 20)[seed]
    world = make_world(seed, n=n, shared=(0.0, 0.5, 0.9)[seed % 3], stale=seed % 3, missing=seed % 2,
                       duplicates=2 if seed % 4 == 0 else 0, queries=10,
                       dtype="float16" if seed % 2 else "float32")
    texts = list(world[2].table) + _pinning_queries(world, 4, seed)
    _check(world, texts, fusion="blend", candidates=(3, 8, 20, 50)[seed % 4],
           vector_min_sim=(0.0, 0.04)[seed % 2])


def test_a_small_role_of_a_large_catalog_takes_the_exact_path(monkeypatch):
    world = make_world(3, n=300, shared=0.6, stale=2, missing=1)
    names = [s.name for s in world[0]][::10]  # 30 skills
    calls = []
    original = blend_exact.blend_exact

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(blend_exact, "blend_exact", counted)
    _check(world, list(world[2].table), role="tenth", roles={"tenth": tuple(names)}, fusion="blend",
           candidates=6, vector_min_sim=0.02)
    assert calls  # the scope was small enough


@pytest.mark.parametrize("seed", range(4))
def test_the_exact_and_the_screened_paths_agree(seed, monkeypatch):
    world = make_world(40 + seed, n=(10, 30, 64, 45)[seed], shared=0.5, stale=seed % 2, duplicates=seed % 2 * 3,
                       queries=12)
    texts = list(world[2].table) + _pinning_queries(world, 3, seed)
    new, _ = rankers(world, fusion="blend", candidates=5, vector_min_sim=(0.0, 0.03)[seed % 2])
    small = [new.search(text, limit=k) for text in texts for k in (None, 1, 4)]
    monkeypatch.setattr(vector_search, "SMALL_ROWS", 0)
    screened, _ = rankers(world, fusion="blend", candidates=5, vector_min_sim=(0.0, 0.03)[seed % 2])
    assert [screened.search(text, limit=k) for text in texts for k in (None, 1, 4)] == small
