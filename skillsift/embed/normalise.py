"""Turning the vectors a provider printed or returned into unit float32 rows.

Shared by the remote providers: they parse JSON, check the count themselves (their
messages differ) and hand the rows here.  numpy is imported on call.
"""

from __future__ import annotations


class VectorError(ValueError):
    """The rows are not a usable matrix of finite, non-zero vectors.

    ``hard`` is True when the answer breaks the provider's contract as a whole (ragged
    rows, a width other than the one fixed earlier, NaN/Inf): an index build writes
    nothing (docs/vector-index.md, "Hard error").
    """

    def __init__(self, message: str, *, hard: bool = False):
        super().__init__(message)
        self.hard = hard


def unit_rows(rows, *, dims: int | None = None):
    """``rows`` (a list of equal-length number lists) as L2-normalised float32 rows.

    The values are taken as float32 (what providers send), the squared norm is summed in
    float64 and each row is divided by its norm in float32.  ``dims``, when given, is the
    width every row must have (fixed by an earlier response).  Raises :class:`VectorError`
    for ragged rows, non-numbers, a dims mismatch, NaN/Inf or an all-zero vector.
    """
    import numpy as np

    if not rows:
        raise VectorError("no vectors")
    try:
        arr = np.array(rows)
    except (ValueError, TypeError):
        raise VectorError("the vectors do not all have the same dimensions", hard=True) from None
    if arr.ndim != 2:
        if arr.ndim == 1 and arr.dtype == object:
            raise VectorError("the vectors do not all have the same dimensions", hard=True)
        raise VectorError("each vector must be a list of numbers")
    if arr.dtype.kind not in "iuf":
        raise VectorError("each vector must be a list of numbers")
    if arr.shape[1] == 0:
        raise VectorError("a vector is empty")
    if dims is not None and arr.shape[1] != dims:
        raise VectorError(f"the vectors have {arr.shape[1]} dimensions, expected {dims}", hard=True)
    with np.errstate(over="ignore", invalid="ignore"):
        values = arr.astype(np.float32)
    if not np.isfinite(values).all():
        raise VectorError("a vector holds NaN or infinite values", hard=True)
    norms = np.sqrt(np.square(values.astype(np.float64)).sum(axis=1))
    if not np.isfinite(norms).all() or (norms == 0).any():
        raise VectorError("a vector has zero or infinite length and cannot be normalised")
    return values / norms.astype(np.float32)[:, None]
