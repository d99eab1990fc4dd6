"""Vector scoring and query-embedding helpers (pure apart from the provider call)."""

from __future__ import annotations

import math
from collections import OrderedDict

QUERY_CAP_BYTES = 2048
QUERY_CACHE_SIZE = 256


def cap_query(text: str, limit: int = QUERY_CAP_BYTES) -> str:
    """Cut ``text`` to at most ``limit`` UTF-8 bytes at a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


def normalise_query(vec):
    """L2-normalise a query vector (unchanged when already unit within 1e-5, or zero)."""
    import numpy as np

    v = np.asarray(vec, dtype=np.float64)
    ss = float(np.dot(v, v))
    if ss == 0.0 or abs(ss - 1.0) < 1e-5:
        return v.astype(np.float32)
    return (v.astype(np.float32) * np.float32(1.0 / math.sqrt(ss))).astype(np.float32)


def cosine_list(matrix, rows, ids, query_vec) -> list[tuple[int, float]]:
    """Score items by dot product with the query, clamped to [-1, 1].

    ``rows[i]`` is the matrix row of item ``i`` (items without a usable vector are not
    passed); returns (item position in ``rows``, similarity) sorted by similarity
    desc, then id asc.  One matrix-vector product over the selected rows.
    """
    import numpy as np

    if len(rows) == 0:
        return []
    sub = matrix[np.asarray(rows, dtype=np.intp)]
    sims = sub.astype(np.float64) @ np.asarray(query_vec, dtype=np.float64)
    np.clip(sims, -1.0, 1.0, out=sims)
    order = sorted(range(len(rows)), key=lambda k: (-sims[k], ids[k]))
    return [(k, float(sims[k])) for k in order]


class QueryCache:
    """LRU of normalised query vectors keyed by the exact (capped) query string."""

    def __init__(self, size: int = QUERY_CACHE_SIZE):
        self.size = size
        self._data: OrderedDict[str, object] = OrderedDict()

    def get(self, key: str):
        vec = self._data.get(key)
        if vec is not None:
            self._data.move_to_end(key)
        return vec

    def put(self, key: str, vec) -> None:
        self._data[key] = vec
        self._data.move_to_end(key)
        while len(self._data) > self.size:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)
