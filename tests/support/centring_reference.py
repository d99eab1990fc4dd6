"""The centring of skillsift.ranker.centring as it was before it went block by block (float64 copies of
the whole matrix): kept word for word as the oracle of tests/ranker/test_centring.py."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CENTRE_SHRINK = 10.0


def centre(matrix, rows: Sequence[int], shrink: float = CENTRE_SHRINK):
    """``matrix`` with ``alpha * mean(matrix[rows])`` subtracted from every row, rows re-normalised.

    ``rows`` are the rows that belong to the catalog (current vectors); the result has the
    shape of ``matrix`` (float32).  A row that the subtraction leaves at zero keeps its
    original vector.  No rows: ``matrix`` unchanged.
    """
    m = np.asarray(matrix, dtype=np.float64)
    if len(rows) == 0 or m.size == 0:
        return np.asarray(matrix, dtype=np.float32)
    if shrink < 0:
        raise ValueError(f"shrink must not be negative, got {shrink}")
    alpha = len(rows) / (len(rows) + shrink)
    mean = m[np.asarray(rows, dtype=np.intp)].mean(axis=0)
    out = m - alpha * mean
    norms = np.sqrt(np.einsum("ij,ij->i", out, out))
    flat = norms == 0
    out[flat] = m[flat]
    norms[flat] = np.sqrt(np.einsum("ij,ij->i", m[flat], m[flat]))
    norms[norms == 0] = 1.0
    return (out / norms[:, None]).astype(np.float32)
