"""The float64 blocks (skillsift/blocks.py): small enough to stay off huge pages, and no result depends on them.

Every reader that widens a matrix's rows to float64 a block at a time (the index's row checks, the centring,
the plain and centred screens, the known requests' screen, the exact similarities) must give the same bits
with the default blocks as with the whole matrix in one block: seeded random matrices spanning several
blocks, at the local model's width and at others.
"""

from __future__ import annotations

import numpy as np
import pytest

from skillsift.blocks import FLOAT64_BLOCK_BYTES, float64_block_rows
from skillsift.index.rows import squared_norms
from skillsift.ranker.centring import CENTRE_SHRINK, centre
from skillsift.ranker.examples import ExampleRows
from skillsift.ranker.request_screen import RequestScreen
from skillsift.ranker.screens import CentredScreen, PlainScreen, exact_dots, max_row_norm

HUGE_PAGE = 2 << 20


@pytest.mark.parametrize("dims", [0, 1, 7, 64, 384, 768, 1536, 3072, 131072, 262144, 10**6])
def test_a_block_stays_below_a_huge_page_and_holds_a_row(dims):
    rows = float64_block_rows(dims)
    assert rows >= 1
    assert rows * 8 * max(1, dims) <= max(FLOAT64_BLOCK_BYTES, 8 * dims)  # one row of a very wide matrix at least
    if 8 * dims <= FLOAT64_BLOCK_BYTES:
        assert rows * 8 * dims < HUGE_PAGE and (rows + 1) * 8 * max(1, dims) > FLOAT64_BLOCK_BYTES


def _unit_rows(seed: int, n: int, dims: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, dims))
    if seed % 2:  # crowded around a few directions, as embedded text is
        m = rng.standard_normal((6, dims))[rng.integers(6, size=n)] + 0.3 * m
    m[rng.integers(n, size=3)] = 0.0  # zero rows: the degenerate paths
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    m /= norms
    m[rng.integers(n, size=n // 3), : dims // 2 + 1] *= 2.0**-30  # tiny parts: float64 sums round, their order shows
    return m.astype(np.float32)


@pytest.mark.parametrize("seed,dims", [(0, 384), (1, 384), (2, 37), (3, 1536)])
def test_every_blocked_reader_gives_the_bits_of_one_block(seed, dims):
    n = 3 * float64_block_rows(dims) + 5  # several blocks and a short last one
    m = _unit_rows(seed, n, dims)
    whole = n + 1
    rows = np.arange(0, n, 2)  # the catalog's rows: every other one
    assert squared_norms(m).tobytes() == squared_norms(m, chunk_rows=whole).tobytes()
    assert centre(m, rows).tobytes() == centre(m, rows, block_rows=whole).tobytes()
    assert max_row_norm(m) == max_row_norm(m, chunk_rows=whole)
    centred = centre(m, rows)
    plain = PlainScreen(m)
    blocked = CentredScreen(m, centred, rows, CENTRE_SHRINK, plain.row_norm)
    one = CentredScreen(m, centred, rows, CENTRE_SHRINK, plain.row_norm, chunk_rows=whole)
    assert blocked.shift.tobytes() == one.shift.tobytes()
    assert blocked.inv.tobytes() == one.inv.tobytes() and blocked.base.tobytes() == one.base.tobytes()
    rng = np.random.default_rng(100 + seed)
    q = m[int(rng.integers(n))] + 0.2 * rng.standard_normal(dims).astype(np.float32)
    q = (q / np.linalg.norm(q)).astype(np.float32)
    every = np.arange(n)
    by_row = np.array([np.cumsum(m[i].astype(np.float64) * q.astype(np.float64))[-1] for i in every])
    assert exact_dots(m, every, q).tobytes() == np.clip(by_row, -1.0, 1.0).tobytes()


def test_the_request_screen_is_the_same_whatever_the_blocks(monkeypatch):
    from skillsift.ranker import request_screen

    n, dims = 2 * float64_block_rows(384) + 9, 384
    m = _unit_rows(7, n, dims)
    owners = np.sort(np.random.default_rng(7).integers(0, 60, size=n))
    ex = ExampleRows.of(m, owners.tolist(), [f"r{i}" for i in range(n)])
    blocked = RequestScreen(ex, kernel=None)
    blocked._quantise()
    monkeypatch.setattr(request_screen, "float64_block_rows", lambda dims: n + 1)
    one = RequestScreen(ex, kernel=None)
    one._quantise()
    assert blocked.row_norm == one.row_norm
    for a, b in zip(blocked.int8, one.int8, strict=True):
        assert a.tobytes() == b.tobytes()
