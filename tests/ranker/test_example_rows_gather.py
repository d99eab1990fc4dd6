"""Known requests' rows gathered from the index in one step (``ExampleRows.of(..., rows=)``) are the rows the
stacked copy gave: seeded random indexes (float32 and float16 rows, repeated owners and texts, rows picked in
any order and more than once)."""

from __future__ import annotations

import numpy as np
import pytest

from skillsift.ranker.examples import ExampleRows


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_gathered_rows_are_the_stacked_ones(seed, dtype):
    rng = np.random.default_rng(seed)
    n_rows, dims, n = 300, 24, int(rng.integers(1, 400))
    stored = rng.standard_normal((n_rows, dims)).astype(dtype)
    rows = rng.integers(n_rows, size=n).tolist()
    owners = rng.integers(0, 15, size=n).tolist()
    texts = [f"request {int(t)}" for t in rng.integers(0, 40, size=n)]
    stacked = ExampleRows.of(np.stack([stored[r] for r in rows]), owners, texts)
    gathered = ExampleRows.of(stored, owners, texts, rows=rows)
    assert gathered.matrix.dtype == np.float32 and gathered.matrix.shape == (n, dims)
    assert gathered.matrix.tobytes() == stacked.matrix.tobytes()
    assert gathered.owner.tolist() == stacked.owner.tolist()
    assert gathered.texts == stacked.texts and gathered.keys == stacked.keys
