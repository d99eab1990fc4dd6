"""Centred document vectors for the ``blend`` fusion (pure numpy, no I/O).

Sentence embeddings of one catalog share a large common component (the direction of
"a tool description"), so a query that is close to that shared direction is close to
every skill, and skills whose text is generic collect high cosines for unrelated
queries.  Subtracting the catalog's mean document vector before the cosine removes that
component.  The mean is shrunk towards zero for small catalogs, ``alpha = n / (n +
CENTRE_SHRINK)``, so one or two skills are never pushed to opposite ends by their own
mean.  Only the ranking of ``blend`` uses these vectors; cosines reported in hits, the
``vector_min_sim`` threshold and ``top_sim`` stay plain cosines.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Pseudo-count of the mean's shrinkage: 27 skills subtract 73% of the mean, 199 skills 95%.
CENTRE_SHRINK = 10.0


def centre(matrix, rows: Sequence[int], shrink: float = CENTRE_SHRINK):
    """``matrix`` with ``alpha * mean(matrix[rows])`` subtracted from every row, rows re-normalised.

    ``rows`` are the rows that belong to the catalog (current vectors); the result has the
    shape of ``matrix`` (float32).  A row that the subtraction leaves at zero keeps its
    original vector.  No rows: ``matrix`` unchanged.
    """
    import numpy as np

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
