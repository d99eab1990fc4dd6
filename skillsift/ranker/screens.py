"""Vector scoring and query-embedding helpers (pure apart from the provider call).

**Exact similarity.**  The reference scores a skill with the dot product of its stored
float32 vector and the float32 query, each product taken in float64 (exact: 24-bit
significands multiply into 48 bits) and summed left to right in float64, clamped to
[-1, 1].  :func:`exact_dots` computes exactly that (``cumsum`` is a sequential sum), so a
row's similarity never depends on which other rows were scored with it (a BLAS float64
product does: its blocking changes the last bit with the row's position).

**Screening.**  Computing it for 100k rows per query would cost a float64 copy of the
matrix.  Instead one float32 matrix-vector product scores every row, and only the rows
whose exact value could matter are recomputed exactly.  For unit vectors the float32 dot
product of ``d`` components, in any summation order and with or without fused
multiply-add, is within ``gamma(d, 2**-24) * |a| * |q|`` of the real dot product, and the
sequential float64 sum within ``gamma(d, 2**-53) * |a| * |q|`` (Higham, *Accuracy and
Stability of Numerical Algorithms*, §3.1; ``gamma(n, u) = n*u / (1 - n*u)``).  So with
``|a| <= row_norm`` (the largest stored row norm, about 1) the two differ by at most
:func:`dot_error_factor` ``* row_norm * |q|``: 2.3e-5 for 384 dimensions.  The margin used
is twice that plus 1e-12, which also covers the float64 arithmetic on the bounds
themselves and float32 underflow.  Clamping moves both values by at most their distance.

:class:`ScreenedScores` then answers what the ranking needs from values known within a
margin: the first ``k`` by (exact value desc, name asc), the maximum and minimum, the
rows at or above a threshold and a row's position in the complete order, each time
recomputing exactly only the rows whose interval ``[approx - margin, approx + margin]``
reaches the decision point.  The results equal those of sorting the exact values.  A
position deep in the order (``blend`` reports it for lexical candidates) can have a
crowded interval; those rows are first compared with a float64 BLAS product
(:func:`blas_dots`, within :func:`fine_margin` of the exact value, about 1e-13), and only
the ones it cannot separate are summed sequentially.

Centred similarities (``blend``) are screened from the same float32 products:
:class:`CentredScreen` writes each centred row as ``(row - shift) / norm`` plus a
residual whose norm is measured once per ranker, so its margin is a proven bound however
the centred matrix was computed; the exact value is the sequential dot product with the
stored centred row.

Longer than 450 lines because the error bounds above and the screens that rely on them
(:class:`ScreenedScores`, :class:`PlainScreen`, :class:`CentredScreen`) are one proof:
kept together, a change to a bound is read next to every place it is used.

**Long queries** (docs/ranking-quality.md, "Long queries") are embedded in pieces
(:func:`query_pieces`) and score each skill by its best piece: the maximum over the pieces
of the exact similarity above.  Both screens have a ``max_scores`` form for a matrix of
piece vectors: the screening value is the maximum of the pieces' float32 values and the
margin the largest of their margins, a proven bound again (``|max_k a_k - max_k b_k| <=
max_k |a_k - b_k|``), and the exact value is the maximum of the pieces' exact values.
"""

from __future__ import annotations

import math
from collections import OrderedDict

from ..blocks import float64_block_rows
from .rounding import round_half_away, round_half_away_array

QUERY_CAP_BYTES = 2048
LONG_QUERY_CAP_BYTES = 16384  # a long query split into pieces is read up to here
MAX_PIECES = 16  # pieces of one long query, at most
DEFAULT_PIECE_WORDS = 80  # words per piece: about 110 word pieces, well inside the local model's window
QUERY_CACHE_SIZE = 256

F32_UNIT = 2.0**-24  # unit roundoff of float32
F64_UNIT = 2.0**-53  # unit roundoff of float64
SAFETY = 2.0  # the margin is this multiple of the proven error bound (plus ABS_SLACK)
ABS_SLACK = 1e-12
DEGENERATE = 1e300  # margin base of a centred row whose model has no direction (always recomputed)
MIN_CENTRED_NORM = 1e-6
FEW_ITEMS = 24  # rounded() of at most this many items works in Python floats
RANK_BLOCK = 1 << 20  # comparisons per block when ranks() counts items ahead
CATALOG_SUM_ROWS = 8192  # catalog rows summed per float64 block for the centred screen's shift
EXACT_ALL_AT_ONCE = 96  # ScreenedScores of at most this many items compute them all on first need


def cap_query(text: str, limit: int = QUERY_CAP_BYTES) -> str:
    """Cut ``text`` to at most ``limit`` UTF-8 bytes at a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore")


def query_pieces(text: str, words: int = DEFAULT_PIECE_WORDS) -> tuple[str, ...]:
    """The pieces of a long query: consecutive windows of ``words`` whitespace-separated words.

    The windows do not overlap (overlapping by a quarter measured no better and costs a
    quarter more pieces: docs/ranking-quality.md); at most :data:`MAX_PIECES`, from the start.
    Each piece is its words joined by single spaces.  Deterministic; () for a text without words.
    """
    tokens = text.split()
    words = max(1, int(words))
    return tuple(" ".join(tokens[start:start + words])
                 for start in range(0, min(len(tokens), words * MAX_PIECES), words))


def normalise_query(vec):
    """L2-normalise a query vector (unchanged when already unit within 1e-5, or zero)."""
    import numpy as np

    v = np.asarray(vec, dtype=np.float64)
    ss = float(np.dot(v, v))
    if ss == 0.0 or abs(ss - 1.0) < 1e-5:
        return v.astype(np.float32)
    return (v.astype(np.float32) * np.float32(1.0 / math.sqrt(ss))).astype(np.float32)


# -- exact similarities and error bounds ------------------------------------------------------------


def gamma(n: int, unit: float) -> float:
    """Higham's ``gamma_n = n*u / (1 - n*u)``: the relative error bound of ``n`` rounded operations."""
    if n * unit >= 1:
        raise ValueError(f"{n} operations exceed the precision of unit roundoff {unit}")
    return n * unit / (1 - n * unit)


def dot_error_factor(dims: int) -> float:
    """Bound of |float32 dot product - sequential float64 one| per unit of ``|a| * |q|``."""
    return gamma(dims, F32_UNIT) + gamma(dims, F64_UNIT)


def exact_dots(matrix, rows, query):
    """The reference's similarities of ``matrix[rows]`` with the float32 ``query``, clamped.

    Products of float32 components in float64, summed left to right; float64 array in the
    order of ``rows``.  Works in blocks, so no float64 copy of the matrix is made.  Each block is
    transposed (dims x rows) so that one ``np.add.reduce`` over the outer axis sums every row's
    products in order (tests/ranker/test_vector_scale.py compares it with a sum in Python).
    """
    import numpy as np

    q = np.asarray(query, dtype=np.float32).astype(np.float64)
    rows = np.asarray(rows, dtype=np.intp)
    out = np.zeros(len(rows), dtype=np.float64)
    if q.size == 0:
        return out
    step = float64_block_rows(len(q))
    for start in range(0, len(rows), step):
        part = rows[start:start + step]
        if len(part) == 1:  # one column would make the outer axis the inner one (summed pairwise)
            out[start] = np.cumsum(matrix[part[0]].astype(np.float64) * q)[-1]
            continue
        block = np.empty((len(q), len(part)))  # dims x rows, C order: a row's products down a column
        block[...] = matrix[part].T
        block *= q[:, None]
        # numpy adds an outer axis element by element in order: each column summed left to right
        out[start:start + len(part)] = np.add.reduce(block, axis=0)
    np.clip(out, -1.0, 1.0, out=out)
    return out


def filled(n: int, value: float):
    """``np.full(n, value)`` in float64, without numpy's Python-level ``full`` and its dispatch (a search makes a
    dozen such arrays, each costing more in that wrapper than in filling)."""
    import numpy as np

    out = np.empty(n)
    out.fill(value)
    return out


def distinct(indexes, size: int):
    """The distinct values of ``indexes`` (integers in ``range(size)``), sorted, as ``np.unique`` gives them;
    by a mask over the range when the range is small beside them (no sort: cheaper for a search's few items),
    else by a sort and a comparison of neighbours (a quarter of ``np.unique``'s cost on a search's few hundred)."""
    import numpy as np

    if size > 64 * len(indexes):
        values = np.sort(indexes)
        if len(values) < 2:
            return values
        first = np.empty(len(values), dtype=bool)
        first[0] = True
        np.not_equal(values[1:], values[:-1], out=first[1:])
        return values[first]
    seen = np.zeros(size, dtype=bool)
    seen[indexes] = True
    return np.flatnonzero(seen)


def matvec(matrix, vector):
    """``matrix @ vector`` on the calling thread, in the arrays' dtype.

    Not BLAS: a BLAS matrix-vector product wakes its worker threads, and on a machine whose cores
    are busy that wait costs milliseconds (13 ms measured for 2,022 x 384 float32 rows where this
    took 0.3 ms, docs/ranking-speed.md, "Screening the known requests").  With the optional SIMD
    kernel (:func:`simd_dot`) a float32 or float64 matrix of C-ordered rows is read by its dot
    product (half the time of numpy's loop for 2,022 x 384 float32 rows), else by numpy's own loop.
    Every screen's bound holds for a sum in any order, with or without fused multiply-add, so which
    loop sums does not matter (tests/ranker/test_matvec_kernel.py).
    """
    import numpy as np

    dot = simd_dot()
    if (dot is not None and matrix.ndim == 2 and matrix.shape[0] and matrix.shape[1] and vector.ndim == 1
            and matrix.dtype == vector.dtype and matrix.dtype in _SIMD_DTYPES and matrix.flags.c_contiguous):
        return np.asarray(dot(matrix, vector.reshape(1, -1), out_dtype=matrix.dtype.name)).reshape(-1)
    return np.einsum("ij,j->i", matrix, vector)


_SIMD_DTYPES = ("float32", "float64")
_SIMD_DOT: list = []  # [the kernel's dot, or None], looked up on first use


def simd_dot():
    """``simsimd.dot`` when the optional extra ``skillsift[fast]`` is installed, else None (looked up once:
    the package loads on the first product, not with this module)."""
    if not _SIMD_DOT:
        try:
            import simsimd  # type: ignore[import-not-found, unused-ignore]

            _SIMD_DOT.append(simsimd.dot)
        except ImportError:  # pragma: no cover - depends on the installed extras
            _SIMD_DOT.append(None)
    return _SIMD_DOT[0]


def blas_dots(matrix, rows, query):
    """float64 dot products of ``matrix[rows]`` with the float32 ``query`` (:func:`matvec`), clamped
    (a float64 ``query`` holding float32 values is used as it is).

    Within :func:`fine_margin` of :func:`exact_dots` (both sum exact products in float64,
    in different orders), and several times faster.
    """
    import numpy as np

    q = query if getattr(query, "dtype", None) == np.float64 else np.asarray(query, np.float32).astype(np.float64)
    out = matvec(matrix[np.asarray(rows, dtype=np.intp)].astype(np.float64), q)
    np.clip(out, -1.0, 1.0, out=out)
    return out


def fine_margin(dims: int, row_norm: float, query_norm: float) -> float:
    """Bound of |blas_dots - exact_dots|: two float64 sums of the same exact products."""
    return SAFETY * 2 * gamma(dims, F64_UNIT) * row_norm * query_norm + ABS_SLACK if dims else ABS_SLACK


def max_row_norm(matrix, *, chunk_rows: int | None = None) -> float:
    """An upper bound of the largest row norm of ``matrix`` (0 for no rows), read ``chunk_rows`` rows at a
    time (default :func:`~skillsift.blocks.float64_block_rows`)."""
    import numpy as np

    best = 0.0
    chunk_rows = chunk_rows or float64_block_rows(matrix.shape[1] if matrix.ndim == 2 else 1)
    for start in range(0, matrix.shape[0], chunk_rows):
        block = np.asarray(matrix[start:start + chunk_rows], dtype=np.float64)
        if block.size:
            best = max(best, float(np.einsum("ij,ij->i", block, block).max()))
    return math.sqrt(best) * (1 + 1e-9)


# -- values known within a margin ---------------------------------------------------------------------


class ScreenedScores:
    """Exact scores of ``n`` items, each known beforehand to lie within ``margin`` of ``approx``.

    ``approx``: float64 array; ``margin``: a number or a float64 array (per item);
    ``exact(positions)``: the exact values of those items (float64 array);
    ``tie_rank``: int array, the smaller wins an exact tie (the name order).  Exact values
    are computed on demand and remembered.  ``exact_upto``: :meth:`settled` computes at most this
    many unknown items exactly instead of by ``fine`` (when they are nearly all computed exactly
    later anyway, one exact read costs less than a fine one and then an exact one).  ``keep``
    arguments are boolean masks that restrict a question to some items (None: all).
    ``fine(positions)``, when given, returns values within ``fine_margin`` of the exact ones
    more cheaply (a float64 BLAS product); :meth:`ranks` uses it to settle most comparisons of
    a crowded band.
    """

    def __init__(self, approx, margin, exact, tie_rank, *, fine=None, fine_margin: float = 0.0,
                 exact_upto: int = 0):
        import numpy as np

        self.approx = np.asarray(approx, dtype=np.float64)
        self.margin = margin
        self.lo = self.approx - margin
        self.hi = self.approx + margin
        self._exact_fn = exact
        self._fine_fn = fine  # optional cheaper values within fine_margin of the exact ones
        self.fine_margin = fine_margin
        self.exact_upto = exact_upto  # settled() computes at most this many missing items exactly instead
        self.tie_rank = np.asarray(tie_rank)
        self._known_values = None  # exact values computed so far (NaN: not yet), made on first need
        self._fine = None  # fine values computed so far (NaN: not yet), made on first need
        self.exact_count = 0  # how many items were computed exactly (for tests and benchmarks)

    def __len__(self) -> int:
        return len(self.approx)

    @property
    def _known(self):
        if self._known_values is None:
            import numpy as np

            self._known_values = filled(len(self.approx), np.nan)
        return self._known_values

    def exact(self, positions):
        """Exact values of ``positions`` (int array), computing the unknown ones."""
        import numpy as np

        positions = np.asarray(positions, dtype=np.intp)
        if self.exact_count == len(self._known):
            return self._known[positions]
        if len(self._known) <= EXACT_ALL_AT_ONCE:  # a small catalog: one call for every item
            self._known[:] = self._exact_fn(np.arange(len(self._known)))
            self.exact_count = len(self._known)
            return self._known[positions]
        missing = positions[np.isnan(self._known[positions])]
        if len(missing):
            missing = distinct(missing, len(self._known))
            self._known[missing] = self._exact_fn(missing)
            self.exact_count += len(missing)
        return self._known[positions]

    def _members(self, keep):
        import numpy as np

        return np.arange(len(self.approx)) if keep is None else np.flatnonzero(keep)

    def settled(self, positions):
        """``(value, radius)`` per position: the exact value is within ``radius`` of ``value``.

        The exact value (radius 0) where it is known or no fine values exist, else the fine
        value (radius ``fine_margin``), computed once per item.
        """
        import numpy as np

        positions = np.asarray(positions, dtype=np.intp)
        if self._fine_fn is None:
            return self.exact(positions), np.zeros(len(positions))
        if self._fine is None:
            self._fine = filled(len(self.approx), np.nan)
        fine = self._fine[positions]
        if self.exact_count:  # no fine value for an item known exactly
            known = self._known[positions]
            fine = np.where(np.isnan(known), fine, known)
        missing = np.isnan(fine)
        if missing.any():
            fresh = positions[missing]  # a repeated position is computed twice, to the same value
            if len(fresh) <= self.exact_upto:  # few: their exact values (radius 0, below)
                fine[missing] = self._fine[fresh] = self.exact(fresh)
            else:
                fine[missing] = self._fine[fresh] = self._fine_fn(fresh)
        radius = filled(len(positions), self.fine_margin)
        if self.exact_count:  # exact values where they are known
            known = self._known[positions]
            exact = ~np.isnan(known)
            fine[exact] = known[exact]
            radius[exact] = 0.0
        return fine, radius

    def rounded(self, positions, digits: int, add=None):
        """``round_half_away(value + add, digits)`` of each exact value.

        ``add``: a float64 array per position (NaN: nothing added), or None.  Rounding and
        addition are monotone, so where both ends of a :meth:`settled` interval give the
        same result it is the exact value's; only the others are computed exactly.
        """
        import numpy as np

        positions = np.asarray(positions, dtype=np.intp)
        value, radius = self.settled(positions)
        if len(positions) <= FEW_ITEMS:  # numpy's per-call cost exceeds the arithmetic
            return np.asarray(self._rounded_few(positions, value.tolist(), radius.tolist(),
                                                None if add is None else add.tolist(), digits))
        low = round_half_away_array(plus_where(value - radius, add), digits)
        high = round_half_away_array(plus_where(value + radius, add), digits)
        unsure = low != high
        if unsure.any():
            exact = self.exact(positions[unsure])
            low[unsure] = round_half_away_array(plus_where(exact, None if add is None else add[unsure]), digits)
        return low

    def _rounded_few(self, positions, value, radius, add, digits) -> list[float]:
        """:meth:`rounded` for a few items, in Python floats (the same double arithmetic)."""

        out, unsure = [], []
        for k, (v, r) in enumerate(zip(value, radius, strict=True)):
            extra = None if add is None or add[k] != add[k] else add[k]  # NaN: nothing added
            low = round_half_away(v - r if extra is None else v - r + extra, digits)
            if r and low != round_half_away(v + r if extra is None else v + r + extra, digits):
                unsure.append(k)
            out.append(low)
        if unsure:  # the exact values, in one call
            for k, v in zip(unsure, self.exact(positions[unsure]).tolist(), strict=True):
                extra = None if add is None or add[k] != add[k] else add[k]
                out[k] = round_half_away(v if extra is None else v + extra, digits)
        return out

    def order(self, positions):
        """``positions`` sorted by exact value desc, then tie rank asc.

        Sorted by the centres of their screening intervals first; items whose interval meets
        a neighbour's get the tighter one of :meth:`settled` (intersected with the first, so
        it only shrinks) and the list is sorted again; those that still meet one are computed
        exactly.  In an order by centre, intervals that do not meet their neighbours meet no
        other, so the rest are already in exact order.
        """
        import numpy as np

        positions = np.asarray(positions, dtype=np.intp)
        if len(positions) <= 1:
            return positions
        lo, hi = self.lo[positions], self.hi[positions]
        ties = self.tie_rank[positions]
        for tighten in (self._settled_bounds, self._exact_bounds):
            by = np.lexsort((ties, -(lo + hi)))
            meet = lo[by[:-1]] <= hi[by[1:]]
            if not meet.any():
                return positions[by]
            touch = np.zeros(len(by), dtype=bool)
            touch[:-1] |= meet
            touch[1:] |= meet
            near = by[touch]
            tight_lo, tight_hi = tighten(positions[near])
            lo[near] = np.maximum(lo[near], tight_lo)
            hi[near] = np.minimum(hi[near], tight_hi)
        return positions[np.lexsort((ties, -(lo + hi)))]

    def _settled_bounds(self, positions):
        value, radius = self.settled(positions)
        return value - radius, value + radius

    def _exact_bounds(self, positions):
        value = self.exact(positions)
        return value, value

    def top(self, k: int, keep=None, *, also=None):
        """The first ``k`` kept items in exact order (fewer when fewer are kept).

        At least ``k`` items have an exact value >= L, the k-th largest lower bound, so an
        item whose upper bound is below L ranks after all of them: only items with
        ``hi >= L`` are computed and sorted.  ``also``: positions whose exact values the caller
        reads next; with it, every item that can make the cut and those are computed exactly in
        one call (the order is then read off exact values).
        """
        import numpy as np

        count = len(self.approx) if keep is None else int(np.count_nonzero(keep))
        if k <= 0 or count == 0:
            return np.zeros(0, dtype=np.intp)
        if count <= k:
            near = self._members(keep)
        elif keep is None:  # every item: no gathered copies
            cut = self.lo.max() if k == 1 else np.partition(self.lo, count - k)[count - k]
            near = np.flatnonzero(self.hi >= cut)
        else:
            members = np.flatnonzero(keep)
            lo = self.lo[members]
            cut = lo.max() if k == 1 else np.partition(lo, count - k)[count - k]
            near = members[self.hi[members] >= cut]
        if also is not None:
            self.exact(np.concatenate([near, np.asarray(also, dtype=np.intp)]))
        return self.order(near)[:k]

    def lowest(self, keep=None) -> tuple[int, float]:
        """(position, exact value) of the least kept item (ties: the largest tie rank)."""
        import numpy as np

        members = self._members(keep)
        if len(members) == 0:
            raise ValueError("no item to take the minimum of")
        if keep is None:  # every item: no gathered copies
            members = np.flatnonzero(self.lo <= self.hi.min())
        else:
            members = members[self.lo[members] <= self.hi[members].min()]
        last = self.order(members)[-1]
        return int(last), float(self.exact(np.asarray([last]))[0])

    def at_least(self, threshold: float):
        """Boolean mask of the items whose exact value is >= ``threshold``."""
        import numpy as np

        kept = self.lo >= threshold
        unsure = np.flatnonzero(~kept & (self.hi >= threshold))
        if len(unsure):
            kept[unsure] = self.exact(unsure) >= threshold
        return kept

    def ranks(self, positions, keep=None):
        """1-based positions of ``positions`` (kept items) in the complete exact order of the kept items.

        An item y is certainly ahead of x when its lower bound is above the top of x's
        :meth:`settled` interval, and certainly behind when its upper bound is below the
        bottom of it; one comparison over the bounds counts the first.  The others (the
        band) are compared by their settled values where the intervals are apart, else by
        their exact values.  A search asks for the few hits it returns, so counting per item
        beats sorting every bound.
        """
        import numpy as np

        positions = np.asarray(positions, dtype=np.intp)
        if len(positions) == 0:
            return np.zeros(0, dtype=np.int64)
        if keep is not None and not np.all(keep[positions]):
            raise ValueError("ranks are asked for items that are not kept")
        members = None if keep is None else np.flatnonzero(keep)
        lo, hi = (self.lo, self.hi) if members is None else (self.lo[members], self.hi[members])
        value, radius = self.settled(positions)
        top, bottom = value + radius, value - radius
        out = np.ones(len(positions), dtype=np.int64)
        asked_parts, near_parts = [], []
        step = max(1, RANK_BLOCK // max(1, len(lo)))  # asked items per comparison block
        for start in range(0, len(positions), step):
            ahead = lo > top[start:start + step, None]  # asked items x kept items
            out[start:start + step] += np.add.reduce(ahead, axis=1, dtype=np.int64)
            asked_block, near_block = np.nonzero((hi >= bottom[start:start + step, None]) & ~ahead)
            asked_parts.append(asked_block + start)
            near_parts.append(near_block)
        asked, near = np.concatenate(asked_parts), np.concatenate(near_parts)
        if members is not None:
            near = members[near]
        other = near != positions[asked]
        asked, near = asked[other], near[other]
        if len(asked) == 0:
            return out
        near_value, near_radius = self.settled(near)
        first = near_value - near_radius > top[asked]
        unsure = ~first & (near_value + near_radius >= bottom[asked])
        if unsure.any():
            mine = positions[asked[unsure]]
            theirs = near[unsure]
            mine_exact, theirs_exact = self.exact(mine), self.exact(theirs)
            first[unsure] = (theirs_exact > mine_exact) | (
                (theirs_exact == mine_exact) & (self.tie_rank[theirs] < self.tie_rank[mine]))
        out += np.bincount(asked, weights=first, minlength=len(positions)).astype(np.int64)
        return out


def plus_where(values, add):
    """``values + add`` where ``add`` holds a number (NaN: the value alone, as a sum without the term)."""
    import numpy as np

    if add is None:
        return values
    return np.where(np.isnan(add), values, values + np.nan_to_num(add))


# -- the two screens ----------------------------------------------------------------------------------


def _query_parts(query):
    import numpy as np

    q32 = np.ascontiguousarray(query, dtype=np.float32)
    q64 = q32.astype(np.float64)
    return q32, q64, math.sqrt(float(q64 @ q64)) * (1 + 1e-9)


class PlainScreen:
    """Exact cosines of an index matrix, screened by one float32 product per query."""

    def __init__(self, matrix):
        self.matrix = matrix
        self.row_norm = max_row_norm(matrix)
        self.factor = dot_error_factor(matrix.shape[1]) if matrix.shape[1] else 0.0
        self._gathered: tuple | None = None  # (rows, matrix[rows]) of the last search over few of the rows

    def products(self, rows, query):
        """float32 ``matrix[rows] @ query``: over the whole matrix, or over the rows when few (an index
        holding known requests: the skills' rows are a few of its rows, gathered once per ``rows`` array)."""
        import numpy as np

        q32 = np.ascontiguousarray(query, dtype=np.float32)
        if 4 * len(rows) < self.matrix.shape[0]:
            return matvec(self._rows_of(rows), q32)
        return matvec(self.matrix, q32)[np.asarray(rows, dtype=np.intp)]

    def _rows_of(self, rows):
        """``matrix[rows]``, kept for the last ``rows`` (a search over every skill passes the same array)."""
        import numpy as np

        found = self._gathered
        if found is not None and found[0] is rows:
            return found[1]
        gathered = self.matrix[np.asarray(rows, dtype=np.intp)]
        self._gathered = (rows, gathered)
        return gathered

    def scores(self, rows, query, tie_rank, products=None) -> ScreenedScores:
        """Similarities of ``matrix[rows]`` (positions = positions in ``rows``)."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.intp)
        q32, q64, qnorm = _query_parts(query)
        if products is None:
            products = self.products(rows, q32)
        approx = products.astype(np.float64)
        np.clip(approx, -1.0, 1.0, out=approx)
        margin = SAFETY * self.factor * self.row_norm * qnorm + ABS_SLACK
        matrix = self.matrix
        return ScreenedScores(approx, margin, lambda p: exact_dots(matrix, rows[p], q32), tie_rank,
                              fine=lambda p: blas_dots(matrix, rows[p], q64),
                              fine_margin=fine_margin(matrix.shape[1], self.row_norm, qnorm))

    def max_products(self, rows, queries):
        """float32 products of ``matrix[rows]`` with each of ``queries`` (pieces x rows)."""
        import numpy as np

        q32 = np.ascontiguousarray(queries, dtype=np.float32)
        if 4 * len(rows) < self.matrix.shape[0]:
            return np.stack([matvec(self._rows_of(rows), q) for q in q32])
        return np.stack([matvec(self.matrix, q) for q in q32])[:, np.asarray(rows, dtype=np.intp)]

    def max_scores(self, rows, queries, tie_rank, products=None) -> ScreenedScores:
        """Best-piece similarities of ``matrix[rows]``: per row, the maximum over the rows of ``queries``."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.intp)
        parts = [_query_parts(q) for q in np.asarray(queries, dtype=np.float32)]
        q32s = [p[0] for p in parts]
        qnorm = max(p[2] for p in parts)
        if products is None:
            products = self.max_products(rows, queries)
        approx = np.clip(products.astype(np.float64).max(axis=0), -1.0, 1.0)
        margin = SAFETY * self.factor * self.row_norm * qnorm + ABS_SLACK
        matrix = self.matrix
        return ScreenedScores(approx, margin, lambda p: _max_of(exact_dots, matrix, rows[p], q32s), tie_rank,
                              fine=lambda p: _max_of(blas_dots, matrix, rows[p], q32s),
                              fine_margin=fine_margin(matrix.shape[1], self.row_norm, qnorm))


def _max_of(dots, matrix, rows, queries):
    """Per row, the maximum of ``dots(matrix, rows, q)`` over ``queries`` (float64)."""
    import numpy as np

    out = dots(matrix, rows, queries[0])
    for q in queries[1:]:
        np.maximum(out, dots(matrix, rows, q), out=out)
    return out


class CentredScreen:
    """Exact similarities with a centred matrix, screened from the plain float32 products.

    Per row, once: ``shift`` = ``alpha`` times the mean of the catalog's rows (the centring
    of :mod:`skillsift.ranker.centring`), ``inv`` = 1 / |row - shift| and the residual
    ``r`` = |centred row - (row - shift) * inv| (float64, measured).  Per query the
    screening value is ``(product - shift . q) * inv`` and its proven distance to the exact
    value is at most ``|q| * (inv * row_norm * (g32 + g64 + 16 u64) + r + 2 g64 + 4 u64)``
    (the float32 product's error scaled by ``inv``, the residual's contribution and the
    float64 sums), doubled for safety.  Whatever the centring did, a row that the model
    does not describe just gets a large margin and is computed exactly.
    """

    def __init__(self, matrix, centred, catalog_rows, shrink: float, row_norm: float, *,
                 chunk_rows: int | None = None):
        import numpy as np

        self.centred = centred
        self.centred_norm = max_row_norm(centred)
        n, dims = matrix.shape
        catalog_rows = np.asarray(catalog_rows, dtype=np.intp)
        total = np.zeros(dims, dtype=np.float64)
        for start in range(0, len(catalog_rows), CATALOG_SUM_ROWS):  # (the blocks' order gives the shift's bits)
            total += matrix[catalog_rows[start:start + CATALOG_SUM_ROWS]].astype(np.float64).sum(axis=0)
        chunk_rows = chunk_rows or float64_block_rows(dims)  # each row's bound is its own from here
        count = len(catalog_rows)
        alpha = count / (count + shrink) if count else 0.0
        self.shift = total / count * alpha if count else total
        self.inv = np.zeros(n, dtype=np.float64)
        base = np.full(n, DEGENERATE, dtype=np.float64)
        g = gamma(dims, F32_UNIT) + gamma(dims, F64_UNIT) + 16 * F64_UNIT if dims else 0.0
        g64 = gamma(dims, F64_UNIT) if dims else 0.0
        for start in range(0, n, chunk_rows):
            stop = min(n, start + chunk_rows)
            diff = matrix[start:stop].astype(np.float64) - self.shift
            norms = np.sqrt(np.einsum("ij,ij->i", diff, diff))
            ok = norms >= MIN_CENTRED_NORM
            inv = np.zeros(len(norms))
            inv[ok] = 1.0 / norms[ok]
            diff *= inv[:, None]
            residual = centred[start:stop].astype(np.float64) - diff
            r = np.sqrt(np.einsum("ij,ij->i", residual, residual))
            bound = SAFETY * (inv * row_norm * g + r * (1 + 1e-9) + 2 * g64 + 4 * F64_UNIT)
            self.inv[start:stop] = inv
            base[start:stop] = np.where(ok, bound, DEGENERATE)
        self.base = base
        self._memo: tuple | None = None  # (rows, inv[rows], base[rows]) of the last search

    def scores(self, rows, products, query, tie_rank) -> ScreenedScores:
        """Centred similarities of ``rows`` from their float32 plain ``products`` with ``query``."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.intp)
        q32, q64, qnorm = _query_parts(query)
        shifted = float(self.shift @ q64)
        inv, base = self._of_rows(rows)
        approx = products.astype(np.float64)
        approx -= shifted
        approx *= inv
        np.clip(approx, -1.0, 1.0, out=approx)
        margin = base * qnorm
        margin += ABS_SLACK
        centred = self.centred
        return ScreenedScores(approx, margin, lambda p: exact_dots(centred, rows[p], q32), tie_rank,
                              fine=lambda p: blas_dots(centred, rows[p], q64),
                              fine_margin=fine_margin(centred.shape[1], self.centred_norm, qnorm))

    def _of_rows(self, rows):
        """``(inv[rows], base[rows])``, kept for the last ``rows`` (a search over every skill passes the same array)."""
        memo = self._memo
        if memo is not None and memo[0] is rows:
            return memo[1], memo[2]
        inv, base = self.inv[rows], self.base[rows]
        self._memo = (rows, inv, base)
        return inv, base

    def max_scores(self, rows, products, queries, tie_rank) -> ScreenedScores:
        """Best-piece centred similarities of ``rows`` from the plain ``products`` (pieces x rows)."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.intp)
        parts = [_query_parts(q) for q in np.asarray(queries, dtype=np.float32)]
        q32s = [p[0] for p in parts]
        qnorm = max(p[2] for p in parts)
        shifted = np.asarray([float(self.shift @ p[1]) for p in parts])
        approx = ((products.astype(np.float64) - shifted[:, None]) * self.inv[rows]).max(axis=0)
        np.clip(approx, -1.0, 1.0, out=approx)
        margin = self.base[rows] * qnorm + ABS_SLACK
        centred = self.centred
        return ScreenedScores(approx, margin, lambda p: _max_of(exact_dots, centred, rows[p], q32s), tie_rank,
                              fine=lambda p: _max_of(blas_dots, centred, rows[p], q32s),
                              fine_margin=fine_margin(centred.shape[1], self.centred_norm, qnorm))


class QueryCache:
    """LRU of normalised query vectors keyed by the exact (capped) query string, or by the
    tuple of a long query's pieces (then the value is a pieces x dims matrix)."""

    def __init__(self, size: int = QUERY_CACHE_SIZE):
        self.size = size
        self._data: OrderedDict[str | tuple[str, ...], object] = OrderedDict()

    def get(self, key: str | tuple[str, ...]):
        vec = self._data.get(key)
        if vec is not None:
            self._data.move_to_end(key)
        return vec

    def put(self, key: str | tuple[str, ...], vec) -> None:
        self._data[key] = vec
        self._data.move_to_end(key)
        while len(self._data) > self.size:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)
