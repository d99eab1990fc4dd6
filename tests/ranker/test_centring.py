"""The centring of the blend fusion, block by block, against the whole-matrix centring it replaced
(tests/support/centring_reference.py): the same float32 bits on random matrices of many shapes, with
zero rows, rows the mean leaves at zero, repeated and unsorted catalog rows, and any block size."""

from __future__ import annotations

import numpy as np
import pytest

from skillsift.ranker.centring import centre
from tests.support.centring_reference import centre as reference


def _matrix(rng, n: int, dims: int):
    m = rng.standard_normal((n, dims)).astype(np.float32)
    if n:
        m[rng.random(n) < 0.1] = 0.0  # zero rows
        m *= rng.choice([1e-3, 1.0, 30.0], size=(n, 1)).astype(np.float32)
    return m


@pytest.mark.parametrize("seed", range(40))
def test_blocks_give_the_same_bits(seed):
    rng = np.random.default_rng(seed)
    n, dims = int(rng.integers(0, 300)), int(rng.choice([1, 2, 7, 16, 64, 384]))
    m = _matrix(rng, n, dims)
    rows = sorted(rng.choice(n, size=int(rng.integers(0, n + 1)), replace=False).tolist()) if n else []
    shrink = float(rng.choice([0.0, 1.0, 10.0, 1e6]))
    want = reference(m, rows, shrink)
    for block in (1, 3, 64, 4096):
        got = centre(m, rows, shrink, block_rows=block)
        assert got.dtype == want.dtype == np.float32
        assert got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (seed, block)


def test_a_row_the_mean_leaves_at_zero_keeps_its_vector():
    m = np.ones((3, 4), dtype=np.float32)  # shrink 0: every row is its mean
    got = centre(m, [0, 1, 2], 0.0, block_rows=2)
    assert got.tobytes() == reference(m, [0, 1, 2], 0.0).tobytes()
    assert np.allclose(got, 0.5)  # the original row, normalised


def test_unsorted_and_repeated_rows_and_other_dtypes():
    rng = np.random.default_rng(7)
    m = rng.standard_normal((50, 16))
    for matrix in (m, m.astype(np.float32), m.astype(np.float16), m.tolist()):
        rows = [5, 3, 3, 40, 0]
        assert centre(matrix, rows, block_rows=7).tobytes() == reference(matrix, rows).tobytes()


def test_no_rows_and_bad_arguments():
    m = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert centre(m, []).tobytes() == reference(m, []).tobytes()
    with pytest.raises(ValueError):
        centre(m, [0], -1.0)
    with pytest.raises(ValueError):
        centre(m, [0], block_rows=0)
