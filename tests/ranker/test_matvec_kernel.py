"""The screens' matrix-vector product through the optional SIMD kernel (``screens.matvec``).

With ``simsimd`` installed (the ``skillsift[fast]`` extra) the screens' float32 and float64 products
are the kernel's dot products, summed in another order than numpy's loop.  The screens rely on one
thing only: each product lies within the proven bound of the exact similarity (the sequential
float64 sum of :func:`~skillsift.ranker.screens.exact_dots`), ``dot_error_factor(d) |a| |q|`` for
float32 rows and ``2 gamma(d, u64) |a| |q|`` for float64 ones.  Checked here on random rows (fixed
seeds: unit, clustered and unnormalised rows) and on vectors made from real SKILL.md files; the
rankings with and without the kernel are the same hits, field for field.
"""

from __future__ import annotations

import numpy as np
import pytest

from skillsift.ranker import screens
from skillsift.ranker.screens import F64_UNIT, dot_error_factor, exact_dots, gamma, matvec

KERNEL = screens.simd_dot()
needs_kernel = pytest.mark.skipif(KERNEL is None, reason="simsimd is not installed (the fast extra)")


def _rows(seed: int, n: int, dims: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    kind = seed % 3
    rows = rng.standard_normal((n, dims))
    if kind == 1:  # clustered around a few centres, as embeddings of related texts are
        centres = rng.standard_normal((4, dims))
        rows = centres[rng.integers(4, size=n)] + 0.2 * rows
    if kind != 2:  # unit rows (the index's); kind 2 keeps unnormalised ones
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows.astype(np.float32)


def _check_bound(matrix32, query32) -> None:
    """The kernel's float32 and float64 products of every row lie within their bounds of the exact sum."""
    exact = exact_dots(matrix32, np.arange(len(matrix32)), query32)
    unclamped = np.abs(exact) < 1.0  # exact_dots clamps to [-1, 1]: compare where it did not
    norms = np.linalg.norm(matrix32.astype(np.float64), axis=1) * np.linalg.norm(query32.astype(np.float64))
    dims = matrix32.shape[1]
    got32 = matvec(matrix32, query32)
    assert got32.dtype == np.float32 and got32.shape == (len(matrix32),)
    err32 = np.abs(got32.astype(np.float64) - exact)
    assert (err32 <= dot_error_factor(dims) * norms * (1 + 1e-9) + 1e-300)[unclamped].all()
    got64 = matvec(matrix32.astype(np.float64), query32.astype(np.float64))
    assert got64.dtype == np.float64
    err64 = np.abs(got64 - exact)
    assert (err64 <= 2 * gamma(dims, F64_UNIT) * norms * (1 + 1e-9) + 1e-300)[unclamped].all()


@needs_kernel
@pytest.mark.parametrize("dims", [3, 64, 384, 385])
@pytest.mark.parametrize("seed", range(6))
def test_kernel_products_hold_the_screens_bounds(seed, dims):
    matrix = _rows(seed, 700, dims)
    query = _rows(seed + 100, 1, dims)[0]
    _check_bound(matrix, query)
    _check_bound(matrix[:1], query)  # one row


@needs_kernel
def test_kernel_products_of_real_skill_vectors():
    """Vectors made from the words of real SKILL.md files (../shared/corpora), and queries from their descriptions."""
    from tests.ranker.test_fusion_differential import _real_world

    skills, index, provider = _real_world(400)
    matrix = np.ascontiguousarray(index.matrix, dtype=np.float32)
    for query in list(provider.table.values())[:20]:
        _check_bound(matrix, np.asarray(query, dtype=np.float32))


def test_without_the_kernel_numpy_loop_reads(monkeypatch):
    """No kernel, mixed dtypes, strided or empty rows: numpy's own loop, bit for bit."""
    matrix, query = _rows(1, 50, 64), _rows(2, 1, 64)[0]
    monkeypatch.setattr(screens, "_SIMD_DOT", [None])
    assert matvec(matrix, query).tolist() == np.einsum("ij,j->i", matrix, query).tolist()
    monkeypatch.undo()
    strided = matrix[::2]
    assert matvec(strided, query).tolist() == np.einsum("ij,j->i", strided, query).tolist()
    mixed = query.astype(np.float64)
    assert matvec(matrix, mixed).tolist() == np.einsum("ij,j->i", matrix, mixed).tolist()
    assert matvec(matrix[:0], query).shape == (0,)


@needs_kernel
@pytest.mark.parametrize("fusion", ["blend", "zscore"])
def test_real_skills_rank_the_same_with_and_without_the_kernel(fusion, monkeypatch):
    """The screens read the kernel's products or numpy's: the hits are the same, field for field."""
    from skillsift.ranker import vector_ranking
    from tests.ranker.reference import rankers
    from tests.ranker.test_fusion_differential import _real_world

    monkeypatch.setattr(vector_ranking, "SMALL_ROWS", 0)  # the screened path at any size
    world = _real_world(400)
    texts = list(world[2].table)
    with_kernel, _ = rankers(world, fusion=fusion, candidates=20)
    want = [with_kernel.search(text, limit=None) for text in texts]
    monkeypatch.setattr(screens, "_SIMD_DOT", [None])
    without, _ = rankers(world, fusion=fusion, candidates=20)
    assert [without.search(text, limit=None) for text in texts] == want
