"""Block-max pruning of a limited lexical ranking over a large catalog (docs/ranking-speed.md).

The documents of the catalog are cut into blocks of ``2**BLOCK_SHIFT`` consecutive ids.
For every term that holds many postings, the index stores at build time the most
points the term gives a document of each block and where each block starts in the
term's postings; a query computes those of its other terms on the fly.  A block's
bound (the sum of its terms' maxima) is at least the score of every document in it,
so a query scores whole blocks, the highest bounds first, and stops once no block
left can reach the limit-th raw score found, minus the 2e-6 the rounding to six
decimals may need (:meth:`~skillsift.ranker.lexical.LexicalIndex.rank` keeps every
document within that margin).  The documents it scores get the same float64 sums in
query-term order as the complete ranking's, so the hits are identical.

Only the whole-catalog scope of a numpy-built index has block maxima (a subset has
its own statistics and keeps the exhaustive path); small queries, large limits
(:meth:`BlockMaxima.worth`) and queries the bounds do not prune (:data:`GIVE_UP_FRACTION`)
keep it too.
"""

from __future__ import annotations

from ..records import record

# Catalogs of at least this many documents store block maxima.
PRUNE_MIN_DOCS = 50_000
# Blocks of 2**BLOCK_SHIFT consecutive document ids.
BLOCK_SHIFT = 5
# A term's block maxima are stored when it has at least this many postings per block
# on average; a query derives the others' from their postings.
STORED_MIN_POSTINGS_PER_BLOCK = 0.5
# A query takes the pruned path when its terms hold at least this many postings, and this
# many per block (fewer cost less to add up exhaustively than the pruning's own steps).
QUERY_MIN_POSTINGS_PER_BLOCK = 0.5
QUERY_MIN_POSTINGS = 12_000
# A one-term query costs the exhaustive path only a partition of its points: pruned from this many.
ONE_TERM_MIN_POSTINGS = 120_000
# The first round scores this many blocks (at least ``limit``), each later one four times more.
FIRST_BLOCKS = 32
# A limit above one hit per this many blocks leaves too few blocks to skip.
BLOCKS_PER_HIT = 64
# After the second round, more than this share of the blocks still to score means the bounds
# do not prune this query: it is left to the exhaustive path.
GIVE_UP_FRACTION = 0.25
MARGIN = 2e-6  # rounding to 6 decimals moves a score by at most half of 1e-6: twice that is safe
_EPS = 2.0**-53
_ZERO = (0,)


@record(frozen=True)
class PrunedTop:
    """The first ``limit`` hits and the work spent finding them (for tests and benchmarks)."""

    hits: list[tuple[int, float]]
    blocks_scored: int
    postings_scored: int
    n_blocks: int


class BlockMaxima:
    """Per-block maxima of the points of a catalog's long terms, and where their blocks start."""

    def __init__(self, bounds, docs, points, n_docs: int, *, shift: int | None = None):
        """``bounds``: the term offsets of the CSR postings (``Postings.bounds``); ``docs``: their
        document ids; ``points``: the points of every posting (float64)."""
        import numpy as np

        self.shift = BLOCK_SHIFT if shift is None else shift
        self.n_blocks = (n_docs + (1 << self.shift) - 1) >> self.shift
        self._bounds, self._docs, self._points = bounds, docs, points
        df = np.diff(np.frombuffer(bounds, dtype=np.int64))
        least = max(1.0, STORED_MIN_POSTINGS_PER_BLOCK * self.n_blocks)
        stored = np.flatnonzero(np.greater_equal(df, least)).tolist()
        self.rows = dict(zip(stored, range(len(stored)), strict=True))  # term id -> row
        # float32 maxima rounded up (never below the float64 maximum); int32 starts within the term.
        self.maxima = np.zeros((len(stored), self.n_blocks), dtype=np.float32)
        self.starts = np.zeros((len(stored), self.n_blocks + 1), dtype=np.int32)
        for row, tid in enumerate(stored):
            lo, hi = bounds[tid], bounds[tid + 1]
            block = docs[lo:hi] >> self.shift
            np.cumsum(np.bincount(block, minlength=self.n_blocks), out=self.starts[row, 1:])
            first = np.flatnonzero(np.diff(block, prepend=-1))
            self.maxima[row, block[first]] = _round_up32(np, np.maximum.reduceat(points[lo:hi], first))

    @property
    def nbytes(self) -> int:
        return int(self.maxima.nbytes + self.starts.nbytes)

    def worth(self, terms: int, postings: int, limit: int) -> bool:
        """Whether a query of ``terms`` terms holding ``postings`` postings takes the pruned path
        for its first ``limit`` hits."""
        least = max(QUERY_MIN_POSTINGS, QUERY_MIN_POSTINGS_PER_BLOCK * self.n_blocks)
        if terms == 1:
            least = max(least, ONE_TERM_MIN_POSTINGS)
        return limit * BLOCKS_PER_HIT <= self.n_blocks and postings >= least

    def top(self, tids, limit: int, finish) -> PrunedTop | None:
        """The first ``limit`` hits of the whole catalog's ranking of the terms ``tids`` (query order).

        ``finish(docs, scores, limit)``: the first ``limit`` hits of matches given as arrays
        (the exhaustive path's last step).  None when the bounds do not prune the query
        (:data:`GIVE_UP_FRACTION`).
        """
        import numpy as np

        shift, n_blocks, bounds = self.shift, self.n_blocks, self._bounds
        bound = np.zeros(n_blocks, dtype=np.float64)
        query = _Query()
        for tid in tids:
            lo, hi = bounds[tid], bounds[tid + 1]
            if lo == hi:
                continue
            row = self.rows.get(tid)
            if row is None:
                docs = self._docs[lo:hi]
                block = docs >> shift
                first = np.flatnonzero(block[1:] != block[:-1])
                first += 1
                first = np.concatenate((_ZERO, first))
                bound[block[first]] += np.maximum.reduceat(self._points[lo:hi], first)
                query.derived.append((query.terms, docs, lo))
            else:
                bound += self.maxima[row]
                query.stored.append((query.terms, row, lo))
            query.terms += 1
        # Every point is at most its block's maximum; the float sums of m terms (the
        # score's and the bound's) are each within a relative m * 2**-53 of the exact
        # ones, so this slack makes the bound a bound of every float64 score.
        bound *= 1.0 + 1e-9 + 4 * query.terms * _EPS
        found_docs, found_scores = [], []
        found, kth = 0, None
        batch = max(FIRST_BLOCKS, limit)
        blocks_scored = postings_scored = rounds = 0
        todo = _best(np, bound, np.flatnonzero(bound > 0), batch)
        while len(todo):
            rounds += 1
            todo.sort()
            bound[todo] = -1.0  # scored
            blocks_scored += len(todo)
            docs, scores, visited = self._score_blocks(np, query, todo)
            postings_scored += visited
            if len(docs):
                found_docs.append(docs)
                found_scores.append(scores)
                found += len(docs)
                if found >= limit:
                    every = np.concatenate(found_scores)
                    kth = np.partition(every, found - limit)[found - limit]
            rest = np.flatnonzero(bound > 0 if kth is None else bound >= kth - MARGIN)
            if rounds >= 2 and len(rest) > GIVE_UP_FRACTION * n_blocks:
                return None
            batch *= 4
            todo = rest if len(rest) <= 2 * batch else _best(np, bound, rest, batch)
        hits = []
        if found:
            hits = finish(np.concatenate(found_docs), np.concatenate(found_scores), limit)
        return PrunedTop(hits, blocks_scored, postings_scored, n_blocks)

    def _score_blocks(self, np, query: _Query, todo):
        """(documents, raw scores, postings read) of every match in the blocks ``todo`` (ascending)."""
        shift, m = self.shift, len(todo)
        # Per term (rows, in query order) and block (columns): where its postings start and end.
        lo = np.empty((query.terms, m), dtype=np.int64)
        hi = np.empty((query.terms, m), dtype=np.int64)
        if query.stored:
            at, rows, base = (np.array(c, dtype=np.int64) for c in zip(*query.stored, strict=True))
            lo[at] = self.starts[rows[:, None], todo] + base[:, None]
            hi[at] = self.starts[rows[:, None], todo + 1] + base[:, None]
        if query.derived:
            edges = np.concatenate((todo << shift, (todo + 1) << shift))
            for at_row, docs, base in query.derived:
                both = np.searchsorted(docs, edges)
                both += base
                lo[at_row], hi[at_row] = both[:m], both[m:]
        lo, hi = lo.ravel(), hi.ravel()
        lengths = hi - lo
        total = int(lengths.sum())
        if not total:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64), 0
        ends = np.cumsum(lengths)
        at = np.repeat(lo - (ends - lengths), lengths)
        at += np.arange(total)
        # A document's slot in the blocks' local accumulator: its id minus its block's rebase.
        rebase = np.empty((query.terms, m), dtype=np.int64)
        rebase[:] = (todo - np.arange(m, dtype=np.int64)) << shift
        slots = self._docs[at] - np.repeat(rebase.ravel(), lengths)
        # Term by term in query order: bincount adds each slot's points in the order they
        # come, from 0.0, the same additions as the exhaustive path.
        acc = np.bincount(slots, self._points[at], minlength=m << shift)
        hit = np.flatnonzero(acc)  # points are positive: a match scores above 0
        docs = todo[hit >> shift] << shift
        docs |= hit & ((1 << shift) - 1)
        return docs, acc[hit], total


class _Query:
    """A query's terms that have postings: ``(position, row, offset)`` of the stored ones and
    ``(position, documents, offset)`` of the others, positions in query order."""

    def __init__(self):
        self.terms = 0
        self.stored: list[tuple[int, int, int]] = []
        self.derived: list[tuple[int, object, int]] = []


def _best(np, bound, blocks, count: int):
    """The ``count`` of ``blocks`` with the highest bounds (all of them if fewer), those with a bound above 0."""
    if len(blocks) > count:
        values = bound[blocks]
        blocks = blocks[np.argpartition(values, len(blocks) - count)[len(blocks) - count:]]
    return blocks[bound[blocks] > 0]


def _round_up32(np, values):
    """``values`` as float32, each rounded up where float32 cannot hold it exactly."""
    out = values.astype(np.float32)
    low = out.astype(np.float64) < values
    out[low] = np.nextafter(out[low], np.float32(np.inf))
    return out
