"""BM25F statistics of a scope of documents: the points of :mod:`skillsift.ranker.model.bm25f`, cached.

A scope is the whole catalog or the documents a role admits; ``N``, ``df`` and
``avgL`` are those of the scope.  Within a scope a term's points per document do not
depend on the query, so :class:`Scope` computes them once per term (the whole
catalog of a large index: for every term at build time) and caches them.  Every
path computes them with the same float64 operations in the same order (numpy's
element-wise arithmetic is IEEE like Python's), so all produce the same doubles.
"""

from __future__ import annotations

import threading

from . import block_max
from .block_max import BlockMaxima
from .model import bm25f
from .model.bm25f import K1, K1_PLUS_1, ONE_MINUS_B, B
from .postings import Postings, widen

LIST_CACHE_MAX_POSTINGS = 1_000_000


class Scope:
    """The admitted documents (all, or a subset) and their BM25F statistics.

    Serves, per term, the admitted documents holding it and their points, as Python
    lists or numpy arrays; both are computed once per term and cached.
    """

    def __init__(self, postings: Postings, members: frozenset[int] | None):
        self.postings = postings
        self.members = members
        self.n = postings.n_docs if members is None else len(members)
        total = postings.doc_len_total(members)
        self.avg = total / self.n if self.n else 0.0  # lengths are multiples of 0.5: the sum is exact
        self._norm_list: list[float] | None = None
        self._norm_array = None
        self._mask = None
        self._points_csr = None  # whole-catalog scope of a numpy-built index: points of every posting
        self.blocks: BlockMaxima | None = None  # and, for a large catalog, the block maxima of its long terms
        self._lists: dict[int, tuple[list[int], list[float]]] = {}
        self._listed = 0
        self._arrays: dict[int, tuple] = {}
        self._lock = threading.Lock()

    @property
    def empty(self) -> bool:
        return self.n == 0 or self.avg == 0

    def idf(self, df: int) -> float:
        return bm25f.idf(self.n, df)

    def norm(self, length: float) -> float:
        """``k1 * (1 - b + b * L / avgL)``, the length normalisation of one document."""
        return bm25f.norm(length, self.avg)

    def norm_list(self) -> list[float]:
        if self._norm_list is None:
            if self._norm_array is not None or self.postings.csr is not None:
                self._norm_list = self.norm_array().tolist()
            else:
                self._norm_list = [self.norm(length) for length in self.postings.doc_len_list()]
        return self._norm_list

    def norm_array(self):
        """:meth:`norm` of every document, the same operations element-wise."""
        if self._norm_array is None:
            norm = self.postings.doc_len_array() * B
            norm /= self.avg
            norm += ONE_MINUS_B
            norm *= K1
            self._norm_array = norm
        return self._norm_array

    def precompute(self) -> None:
        """Points of every posting of a numpy-built index (whole-catalog scope only).

        A catalog of at least :data:`~skillsift.ranker.block_max.PRUNE_MIN_DOCS` documents
        also gets the block maxima a limited query prunes with (docs/ranking-speed.md).
        """
        import numpy as np

        offsets, docs, tfs = self.postings.csr
        tfs = widen(tfs)  # stored compact (exact); the points are float64
        df = np.diff(offsets)
        distinct, which = np.unique(df, return_inverse=True)  # idf depends on df only: few logs
        idf = np.array([self.idf(d) for d in distinct.tolist()], dtype=np.float64)[which.reshape(-1)]
        points = tfs * np.repeat(idf, df)  # idf * tf (multiplication commutes exactly)
        points *= K1_PLUS_1
        points /= tfs + self.norm_array()[docs]
        self._points_csr = points
        if self.postings.n_docs >= block_max.PRUNE_MIN_DOCS:
            self.blocks = BlockMaxima(self.postings.bounds, docs, points, self.postings.n_docs)

    # -- per-term postings with points ------------------------------------------------------

    def term_lists(self, tid: int) -> tuple[list[int], list[float]]:
        """(admitted documents holding term ``tid``, their points) as Python lists."""
        cached = self._lists.get(tid)
        if cached is not None:
            return cached
        if self._points_csr is not None:
            bounds = self.postings.bounds
            lo, hi = bounds[tid], bounds[tid + 1]
            cached = (self.postings.csr[1][lo:hi].tolist(), self._points_csr[lo:hi].tolist())
        else:
            docs, tfs = self.postings.lists(tid)
            if self.members is not None:
                members = self.members
                kept = [i for i, d in enumerate(docs) if d in members]
                docs, tfs = [docs[i] for i in kept], [tfs[i] for i in kept]
            idf, norm = self.idf(len(docs)), self.norm_list()
            cached = (docs, [idf * tf * K1_PLUS_1 / (tf + norm[d]) for d, tf in zip(docs, tfs, strict=True)])
        with self._lock:
            if self._listed > LIST_CACHE_MAX_POSTINGS:
                self._lists.clear()
                self._listed = 0
            self._lists[tid] = cached
            self._listed += len(cached[0])
        return cached

    def term_arrays(self, tid: int):
        """(admitted documents holding term ``tid``, their points) as numpy arrays."""
        if self._points_csr is not None:
            bounds = self.postings.bounds
            lo, hi = bounds[tid], bounds[tid + 1]
            return self.postings.csr[1][lo:hi], self._points_csr[lo:hi]
        cached = self._arrays.get(tid)
        if cached is None:
            docs, tfs = self.postings.arrays(tid)
            if self.members is not None:
                keep = self.mask()[docs]
                docs, tfs = docs[keep], tfs[keep]
            points = tfs * self.idf(len(docs))
            points *= K1_PLUS_1
            points /= tfs + self.norm_array()[docs]
            cached = (docs, points)
            with self._lock:
                if len(self._arrays) > 4096:
                    self._arrays.clear()
                self._arrays[tid] = cached
        return cached

    def df(self, tid: int) -> int:
        """Number of admitted documents holding term ``tid``."""
        if self.members is None:
            return self.postings.df(tid)
        if self.postings.csr is not None:
            return len(self.term_arrays(tid)[0])
        return len(self.term_lists(tid)[0])

    def mask(self):
        """Boolean array of the admitted documents."""
        if self._mask is None:
            import numpy as np

            mask = np.zeros(self.postings.n_docs, dtype=bool)
            mask[np.fromiter(self.members, dtype=np.int64, count=len(self.members))] = True
            self._mask = mask
        return self._mask
