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

from ..blocks import float64_block_rows

#: Pseudo-count of the mean's shrinkage: 27 skills subtract 73% of the mean, 199 skills 95%.
CENTRE_SHRINK = 10.0


def centre(matrix, rows: Sequence[int], shrink: float = CENTRE_SHRINK, *, block_rows: int | None = None):
    """``matrix`` with ``alpha * mean(matrix[rows])`` subtracted from every row, rows re-normalised.

    ``rows`` are the rows that belong to the catalog (current vectors); the result has the
    shape of ``matrix`` (float32).  A row that the subtraction leaves at zero keeps its
    original vector.  No rows: ``matrix`` unchanged.

    The rows are centred ``block_rows`` at a time (default
    :func:`~skillsift.blocks.float64_block_rows`) into the one float32 result: every row's
    arithmetic is its own (the mean is taken over the catalog's rows once), so the result is
    the same bits as centring the whole matrix at once, without float64 copies of all of it
    (an index with 20,000 known requests is 68 MB a copy).
    """
    import numpy as np

    source = np.asarray(matrix)
    if len(rows) == 0 or source.size == 0:
        return np.asarray(matrix, dtype=np.float32)
    if shrink < 0:
        raise ValueError(f"shrink must not be negative, got {shrink}")
    if block_rows is None:
        block_rows = float64_block_rows(source.shape[1] if source.ndim == 2 else 1)
    if block_rows < 1:
        raise ValueError(f"block_rows must be positive, got {block_rows}")
    alpha = len(rows) / (len(rows) + shrink)
    mean = np.asarray(source[np.asarray(rows, dtype=np.intp)], dtype=np.float64).mean(axis=0)
    shift = alpha * mean
    result = np.empty(source.shape, dtype=np.float32)
    for start in range(0, len(source), block_rows):
        stop = min(len(source), start + block_rows)
        result[start:stop] = _centred_block(np.asarray(source[start:stop], dtype=np.float64), shift)
    return result


def _centred_block(m, shift):
    """The rows of ``m`` (float64) less ``shift``, each re-normalised (a zero row: its own, normalised)."""
    import numpy as np

    out = m - shift
    norms = np.sqrt(np.einsum("ij,ij->i", out, out))
    flat = norms == 0
    out[flat] = m[flat]
    norms[flat] = np.sqrt(np.einsum("ij,ij->i", m[flat], m[flat]))
    norms[norms == 0] = 1.0
    out /= norms[:, None]
    return out
