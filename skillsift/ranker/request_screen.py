"""The known requests' part of a ranking, screened: every request read once in few bytes, exactly only where it decides.

The definition (:mod:`skillsift.ranker.model.lift`): a request's cosine with the query is the
exact similarity (:func:`~skillsift.ranker.screens.exact_dots`: float32 components multiplied in
float64, summed left to right); a skill's evidence ``e`` is the mean of its two best request
cosines; its lifted similarity ``c + w * max(0, e - c)``.  Here every request gets an interval
that holds its exact cosine (docs/ranking-speed.md, "Screening the known requests"):

- **int8 rows** (with the optional SIMD kernel, :data:`KERNEL`; made at a ranker's second query,
  so a command that asks one pays nothing for them): each stored row ``x`` is kept
  as ``s * x8 + d`` (``x8`` int8, ``s`` its scale, ``d`` the rounding residual) and the query
  the same way, ``q = t * q8 + f``.  Then ``q.x = s t (q8.x8) + s (f.x8) + q.d``, the integer
  product is exact, and Cauchy-Schwarz bounds the rest by ``|f| s |x8| + |q| |d|``: a quarter of
  the float32 bytes read per query;
- **float32 rows** without the kernel: the float32 product, within the proven margin of
  :func:`~skillsift.ranker.screens.dot_error_factor`, as the skills' own screen.

The mean of a group's two largest values never decreases when one of them grows and moves by
``M`` when every value moves by ``M``, nor does the lift decrease in ``c`` or ``e``: so one
reduction of the screened values, widened by the largest margin of each skill's requests
(:class:`RequestBounds`), bounds every skill's ``e`` and its lifted similarity;
:class:`LiftedScreen` serves them as a :class:`~skillsift.ranker.screens.ScreenedScores`, whose
questions (the first ``k``, the least, a threshold, ranks, rounded values) compute exactly only
the skills whose interval reaches the decision.  A skill computed exactly reads its own requests'
rows exactly, so its value is the definition's, bit for bit (tests/ranker/test_fusion_differential.py).

Longer than 450 lines because the screen's bounds (:class:`RequestScreen`, :class:`RequestBounds`)
and the evidence and lifted intervals built on them (:class:`LiftedScreen`) are one proof
(docs/ranking-speed.md, "Screening the known requests"): kept together, a change to a margin is
read next to every place it is relied on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..blocks import float64_block_rows
from .channels import with_channels
from .examples import mean_of_two_best_row
from .model.fusion import ZSCORE_FUSIONS, similarity_spread
from .model.lift import combine
from .screens import ABS_SLACK, SAFETY, ScreenedScores, distinct, dot_error_factor, exact_dots, filled, gamma, matvec

#: The int8 product kernel (the ``simsimd`` package, an optional extra), or None: the float32 read.
KERNEL = None
try:  # pragma: no cover - depends on the installed extras
    import simsimd as _simsimd  # type: ignore[import-not-found, unused-ignore]

    KERNEL = _simsimd
except ImportError:  # pragma: no cover
    pass

SCALE_STEPS = 127  # int8 levels on each side of zero
# The int8 codes are kept as unsigned bytes, code + CODE_OFFSET (1 to 255): the kernel's product of
# unsigned bytes reads 20,000 x 384 of them in 0.24 ms against 0.29 ms for signed ones, and the signed
# product follows exactly from it and the rows' code sums (_int8_approx).
CODE_OFFSET = 128
# The kernel sums a row's products of unsigned bytes in 32-bit integers: at most 255 * 255 per component.
MAX_INT8_DIMS = (2**31 - 1) // (255 * 255)
LIFT_SLACK = 1e-12  # covers the float64 rounding of the bounds' own arithmetic (each step within 1e-15)
# Fine values asked for at most this many skills are computed exactly instead: the few skills near the first
# decisions (the order of the first candidates) are nearly all read exactly later anyway (the zscore
# fusion's spread, rounded scores), and one exact read of their requests costs less than a float32 read
# and then an exact one.  A crowded band of ranks (hundreds of skills, random rows) keeps the float32 read.
FINE_AS_EXACT = 128
E_SLACK = 1e-12  # covers the float64 rounding of a mean of two cosines (within 3e-16 of the real mean)


class RequestScreen:
    """The rows of :class:`~skillsift.ranker.examples.ExampleRows`, ready to screen a query with.

    ``kernel``: the int8 kernel (:data:`KERNEL`: an object whose ``cdist(a, b, metric="dot")`` gives
    the integer products of unsigned byte rows), or None: the float32 rows are read.
    """

    def __init__(self, examples, *, kernel):
        import numpy as np

        self.examples = examples
        matrix = np.ascontiguousarray(examples.matrix, dtype=np.float32)
        self.matrix = matrix
        n, self.dims = matrix.shape
        self.kernel = kernel
        self.starts, self.sizes, self.skills = examples.layout()
        self.int8 = None  # (codes + CODE_OFFSET as uint8, scale, |x8| s, |d|, CODE_OFFSET sum(x8)), at query 2
        self._screened = 0  # queries screened so far
        norms = np.zeros(n)
        step = float64_block_rows(self.dims)  # (float64 work in blocks: no float64 copy)
        for start in range(0, n, step):
            wide = matrix[start:start + step].astype(np.float64)
            norms[start:start + len(wide)] = np.sqrt(np.einsum("ij,ij->i", wide, wide))
        self.row_norm = float(norms.max()) * (1 + 1e-9) if n else 0.0
        self._exact_query = None  # (query bytes, exact cosines so far: NaN = not yet)
        self._group_of = None  # per catalog skill, its group (group_of)
        self._group_factors = None  # (the int8 rows they were made of, per group: max |x8| s, max |d|)

    def __len__(self) -> int:
        return len(self.matrix)

    def group_of(self, n_skills: int):
        """Per catalog skill, its group of requests (-1: none), made once."""
        import numpy as np

        if self._group_of is None or len(self._group_of) != n_skills:
            group = np.full(n_skills, -1, dtype=np.intp)
            group[self.skills] = np.arange(len(self.skills))
            self._group_of = group
        return self._group_of

    def _quantise(self) -> None:
        """The int8 rows (as unsigned bytes, code + :data:`CODE_OFFSET`), the offset's part of each row's
        product (``CODE_OFFSET`` times its code sum) and the factors of their bounds (float64 work in blocks:
        no float64 copy)."""
        import numpy as np

        n = len(self.matrix)
        codes8 = np.empty((n, self.dims), dtype=np.uint8)
        scale, code_norm, residual_norm, offset = np.ones(n), np.zeros(n), np.zeros(n), np.zeros(n)
        step = float64_block_rows(self.dims)
        for start in range(0, n, step):
            part = slice(start, min(n, start + step))
            wide = self.matrix[part].astype(np.float64)
            s = np.abs(wide).max(axis=1) / SCALE_STEPS
            s[s == 0] = 1.0
            codes = np.rint(wide / s[:, None])
            residual = wide - codes * s[:, None]
            codes8[part] = codes + CODE_OFFSET  # 1 to 255
            offset[part] = CODE_OFFSET * codes.sum(axis=1)  # integers below 2**31: exact
            scale[part] = s
            code_norm[part] = np.sqrt(np.einsum("ij,ij->i", codes, codes)) * s
            residual_norm[part] = np.sqrt(np.einsum("ij,ij->i", residual, residual))
        # the bounds' factors, rounded up: |x8| s and |d| (their float64 errors are far below 1e-9 relative)
        self.int8 = (codes8, scale, code_norm * (1 + 1e-9), residual_norm * (1 + 1e-9) + 1e-300, offset)

    # -- intervals of every request ------------------------------------------------------------------
    def screen(self, queries) -> RequestBounds:
        """Every request's exact cosine with the best of ``queries`` (pieces x dims float32; one row for
        a plain query) known within a margin: :class:`RequestBounds`."""
        import numpy as np

        self._screened += 1
        if (self.int8 is None and self.kernel is not None and len(self.matrix) and self._screened > 1
                and self.dims <= MAX_INT8_DIMS):
            self._quantise()  # not for one query (a command line's): reading float32 once costs less
        approx = None
        terms = []
        for q in queries:
            a, term = self._int8_approx(q) if self.int8 is not None else self._float_approx(q)
            approx = a if approx is None else np.maximum(approx, a, out=approx)
            terms.append(term)
        return RequestBounds(self, approx, terms)

    def bounds(self, queries):
        """``(lo, hi)``: float64 arrays per request holding its exact cosine with the best of ``queries``."""
        import numpy as np

        found = self.screen(queries)
        margin = found.margins(np.arange(len(self.matrix)))
        return found.approx - margin, found.approx + margin

    def _int8_approx(self, q32):
        """``(approx, (a, b, c))``: the int8 products, each within ``(|x8| s a + |d| b)(1 + 1e-9) + c``
        of the exact cosine (docs/ranking-speed.md, "Screening the known requests")."""
        import numpy as np

        codes, scale, offset = self.int8[0], self.int8[1], self.int8[4]
        q = q32.astype(np.float64)
        top = float(np.abs(q).max())
        t = top / SCALE_STEPS if top > 0 else 1.0
        q8 = np.rint(q / t)
        f = q - q8 * t
        f_norm = math.sqrt(float(f @ f)) * (1 + 1e-9) + 1e-300
        q_norm = math.sqrt(float(q @ q)) * (1 + 1e-9)
        unsigned = (q8 + CODE_OFFSET).astype(np.uint8)[None, :]
        approx = np.asarray(self.kernel.cdist(unsigned, codes, metric="dot"),
                            dtype=np.float64).reshape(-1)  # integers below 2**31: exact
        # (x8 + o).(q8 + o) = x8.q8 + o sum(x8) + o sum(q8) + o^2 d: integers, exact in float64, so this is x8.q8
        approx -= offset
        approx -= CODE_OFFSET * float(q8.sum()) + CODE_OFFSET * CODE_OFFSET * self.dims
        approx *= scale
        approx *= t
        # the definition's sum is within gamma(d, u64) |q| |x| of q.x, the products above within 4 u64
        return approx, (f_norm, q_norm,
                        (gamma(self.dims, 2.0**-53) + 4 * 2.0**-53) * q_norm * self.row_norm + ABS_SLACK)

    def _float_approx(self, q32):
        """``(approx, (0, 0, c))``: the float32 products, each within ``c`` of the exact cosine."""
        import numpy as np

        q_norm = math.sqrt(float(q32.astype(np.float64) @ q32.astype(np.float64))) * (1 + 1e-9)
        approx = matvec(self.matrix, q32).astype(np.float64)
        return approx, (0.0, 0.0, SAFETY * dot_error_factor(self.dims) * self.row_norm * q_norm + ABS_SLACK)

    def group_factors(self):
        """Per group of requests (a skill's), the largest ``|x8| s`` and ``|d|`` of its rows (zeros before
        the int8 rows exist), made once per set of int8 rows."""
        import numpy as np

        if self.int8 is None:
            zeros = np.zeros(len(self.starts))
            return zeros, zeros
        if self._group_factors is None or self._group_factors[0] is not self.int8:
            code_norm, residual_norm = self.int8[2], self.int8[3]
            self._group_factors = (self.int8, np.maximum.reduceat(code_norm, self.starts),
                                   np.maximum.reduceat(residual_norm, self.starts))
        return self._group_factors[1], self._group_factors[2]

    # -- cosines where they decide -----------------------------------------------------------------
    def fine(self, requests, queries):
        """float32 products of ``requests`` with the best of ``queries`` (float64): within
        :meth:`fine_margin` of the exact cosines, and cheaper (half the bytes, no float64 copy)."""
        import numpy as np

        rows = self.matrix[np.asarray(requests, dtype=np.intp)]
        out = matvec(rows, queries[0]).astype(np.float64)
        for q in queries[1:]:
            np.maximum(out, matvec(rows, q).astype(np.float64), out=out)
        np.clip(out, -1.0, 1.0, out=out)
        return out

    def fine_margin(self, queries) -> float:
        """Bound of the distance between :meth:`fine` and :meth:`exact` cosines (the float32 product's,
        as the skills' own screen: clamping moves both by at most their distance)."""
        import numpy as np

        q_norm = max(math.sqrt(float(q.astype(np.float64) @ q.astype(np.float64))) for q in queries) * (1 + 1e-9)
        return SAFETY * dot_error_factor(self.dims) * self.row_norm * q_norm + ABS_SLACK

    def exact(self, requests, queries):
        """The exact cosines of ``requests`` (indexes) with the best of ``queries``, remembered per query."""
        import numpy as np

        key = queries.tobytes()
        if self._exact_query is None or self._exact_query[0] != key:
            self._exact_query = (key, filled(len(self.matrix), np.nan))
        known = self._exact_query[1]
        requests = np.asarray(requests, dtype=np.intp)
        missing = distinct(requests[np.isnan(known[requests])], len(known))
        if len(missing):
            values = exact_dots(self.matrix, missing, queries[0])
            for q in queries[1:]:
                np.maximum(values, exact_dots(self.matrix, missing, q), out=values)
            known[missing] = values
        return known[requests]


class RequestBounds:
    """One query's screen of every request: ``approx`` (float64 per request, ``-inf`` once masked) and
    margins that hold the exact cosines, per request (:meth:`margins`) and per group of a skill's
    requests (:meth:`group_margins`: the largest of its requests', so one reduction of ``approx``
    bounds every skill's ``e`` from both sides).

    ``terms``: per piece of the query ``(a, b, c)``; a request's margin for that piece is
    ``(|x8| s a + |d| b)(1 + 1e-9) + c`` (``a = b = 0`` for the float32 read).  The best piece's
    exact cosine lies within the largest of the pieces' margins of the largest piece's ``approx``
    (``|max_k x_k - max_k y_k| <= max_k |x_k - y_k|``).
    """

    def __init__(self, screen: RequestScreen, approx, terms):
        self.screen, self.approx, self.terms = screen, approx, terms

    def margins(self, requests):
        """The margins of ``requests`` (indexes), float64."""
        import numpy as np

        requests = np.asarray(requests, dtype=np.intp)
        int8 = self.screen.int8
        return self._margin(lambda: (int8[2][requests], int8[3][requests]), len(requests))

    def group_margins(self):
        """Per group of requests (``screen.starts``), the largest margin of its requests."""
        return self._margin(self.screen.group_factors, len(self.screen.starts))

    def _margin(self, factors, n):
        import numpy as np

        out = None
        for a, b, c in self.terms:
            if a or b:
                code_norm, residual_norm = factors()
                m = code_norm * a
                m += residual_norm * b
                m *= 1 + 1e-9
                m += c
            else:
                m = filled(n, c)
            out = m if out is None else np.maximum(out, m, out=out)
        return out


def second_best_row(values, starts, sizes):
    """Per group of ``values``, its second largest value (the largest again when it occurs twice;
    ``-inf`` for a group of fewer than two)."""
    import numpy as np

    first = np.maximum.reduceat(values, starts)
    at_max = values == np.repeat(first, sizes)
    second = np.maximum.reduceat(np.where(at_max, -np.inf, values), starts)
    twice = np.add.reduceat(at_max, starts, dtype=np.intp) > 1
    return np.where(twice, first, second)


class LiftedScreen:
    """One query's known-request evidence: per skill, bounds of ``e`` and, on demand, its exact value.

    ``screen``: the :class:`RequestScreen`; ``queries``: pieces x dims float32; ``masked``: request
    indexes that are no evidence for this query (evaluation's own requests: ``-inf``).
    """

    def __init__(self, screen: RequestScreen, queries, n_skills: int, masked=()):
        import numpy as np

        self.screen, self.queries = screen, queries
        found = screen.screen(queries)
        self.masked = np.asarray(sorted(masked), dtype=np.intp)
        if len(self.masked):
            found.approx[self.masked] = -np.inf
        self.found = found
        starts, sizes, skills = screen.starts, screen.sizes, screen.skills
        # every request's exact cosine is within its group's largest margin of approx: the mean of the
        # two best moves by that margin (plus the float64 rounding of the means, E_SLACK)
        best = mean_of_two_best_row(found.approx, starts, sizes)
        spread = found.group_margins()
        spread += E_SLACK
        ok = np.isfinite(best)
        best = np.where(ok, best, 0.0)
        self.has = np.zeros(n_skills, bool)
        self.has[skills] = ok
        self.e_lo = np.zeros(n_skills)
        self.e_hi = np.zeros(n_skills)
        self.e_lo[skills] = np.where(ok, best - spread, 0.0)
        self.e_hi[skills] = np.where(ok, best + spread, 0.0)
        self.group = screen.group_of(n_skills)  # skill -> its group of requests
        self._exact_e = filled(n_skills, np.nan)
        self._fine_e = filled(n_skills, np.nan)
        self._fine_margin = screen.fine_margin(queries)
        self._of_usable: tuple | None = None  # (usable, has, e_lo, e_hi of usable): both lifted lists read them

    def exact_e(self, skills):
        """The exact ``e`` of ``skills`` (0 where a skill has none), remembered."""
        return self._e(skills, self._exact_e, self.screen.exact)

    def fine_e(self, skills):
        """``e`` of ``skills`` from :meth:`RequestScreen.fine` cosines: within its margin of the exact one
        (the mean of the two largest values moves no more than the values do)."""
        return self._e(skills, self._fine_e, self.screen.fine)

    def _e(self, skills, memo, cosines):
        import numpy as np

        skills = np.asarray(skills, dtype=np.intp)
        todo = distinct(skills[np.isnan(memo[skills]) & self.has[skills]], len(memo))
        if len(todo):
            groups = self.group[todo]
            starts, sizes = self.screen.starts[groups], self.screen.sizes[groups]
            local = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
            requests = np.repeat(starts - local, sizes) + np.arange(int(sizes.sum()))  # each group's rows
            # only a request whose upper bound reaches its group's second largest lower bound can be one
            # of the group's two best: the others are read as -inf (the mean of the two best is unchanged)
            margin = self.found.margins(requests)
            lo = self.found.approx[requests] - margin
            hi = self.found.approx[requests] + margin
            cut = np.repeat(second_best_row(lo, local, sizes), sizes)
            maybe = hi >= cut
            cos = filled(len(requests), -np.inf)
            cos[maybe] = cosines(requests[maybe], self.queries)
            if len(self.masked):
                cos[np.isin(requests, self.masked)] = -np.inf
            memo[todo] = mean_of_two_best_row(cos, local, sizes)
        return np.where(self.has[skills], memo[skills], 0.0)

    def cosines(self, skills):
        """A cosine per request: exact for the requests of ``skills``, ``-inf`` for the others and the masked
        (what :meth:`~skillsift.ranker.examples.ExampleRows.best` and ``closest`` read for those skills)."""
        import numpy as np

        out = filled(len(self.screen), -np.inf)
        groups = self.group[np.asarray(skills, dtype=np.intp)]
        groups = groups[groups >= 0]
        if len(groups):
            requests = np.concatenate([np.arange(a, a + n) for a, n in zip(self.screen.starts[groups].tolist(),
                                                                             self.screen.sizes[groups].tolist(),
                                                                             strict=True)])
            out[requests] = self.screen.exact(requests, self.queries)
        if len(self.masked):
            out[self.masked] = -np.inf
        return out

    def lifted(self, own: ScreenedScores, usable, weight: float) -> ScreenedScores:
        """The lifted similarities of the ``usable`` skills (positions as in ``own``) as screened scores."""
        import numpy as np

        if self._of_usable is None or self._of_usable[0] is not usable:
            self._of_usable = (usable, self.has[usable], self.e_lo[usable], self.e_hi[usable])
        _, has, e_lo, e_hi = self._of_usable
        low = combine(own.lo, e_lo, has, weight)
        high = combine(own.hi, e_hi, has, weight)
        approx = (low + high) * 0.5
        margin = (high - low) * 0.5
        margin += LIFT_SLACK

        def exact(positions):
            positions = np.asarray(positions, dtype=np.intp)
            return combine(own.exact(positions), self.exact_e(usable[positions]), has[positions], weight)

        def fine(positions):  # within own.fine_margin + the requests' of the exact value (L moves less)
            positions = np.asarray(positions, dtype=np.intp)
            return combine(own.settled(positions)[0], self.fine_e(usable[positions]), has[positions], weight)

        return ScreenedScores(approx, margin, exact, own.tie_rank, fine=fine,
                              fine_margin=own.fine_margin + self._fine_margin + LIFT_SLACK,
                              exact_upto=FINE_AS_EXACT)


@dataclass(frozen=True)
class VectorQuery:
    """One query as :meth:`~skillsift.ranker.vector_ranking.VectorSearch.rank` received it: the text,
    its vector (or a long query's piece vectors), the mode, the scope and its usable skills, the
    lexical list, the ``[search]`` settings, the stale names, what to report (``explain``, the
    embedding's cost) and the hits kept."""

    query: str
    qvec: Any
    mode: str
    subset: Any
    usable: Any
    lexical: Any
    settings: Any
    stale: frozenset
    explain: bool
    embedded: bool
    tokens: int
    ms: float
    limit: int | None


def rank_with_requests(search, v: VectorQuery, covered: bool):
    """:meth:`~skillsift.ranker.vector_ranking.VectorSearch.rank` of ``search`` with the known
    requests as evidence: each skill's own similarities (screened) lifted by its requests
    (:class:`LiftedScreen`), then the same fusions as without requests."""
    import numpy as np

    s = v.settings
    rows, ties = search._rows_and_ties(v.usable, v.subset)
    queries = np.asarray(v.qvec, dtype=np.float32).reshape(-1, search.dims)
    ex = search.examples
    assert ex is not None  # called only when ranking with known requests
    evidence = LiftedScreen(search._request_screen(), queries, len(search.skills),
                            masked=ex.masked(v.query, search.own_evidence))
    own, products = search._similarities(rows, v.qvec, ties)
    w = s.example_weight
    plain = evidence.lifted(own, v.usable, w)
    made: list = []

    def centred():
        if not made:
            made.append(evidence.lifted(search._centred_similarities(rows, products, v.qvec, ties), v.usable, w))
        return made[0]

    fused, ranking, top_sim, dropped = search._screened(
        v.query, v.qvec, v.mode, v.subset, v.usable, v.lexical, s, covered, v.limit, lists=(plain, centred))
    result = search._result(v.query, v.mode, ranking, fused, top_sim, dropped, v.lexical, s, v.stale, covered,
                            explain=v.explain, embedded=v.embedded, tokens=v.tokens, ms=v.ms, limit=v.limit)
    if not v.explain:
        return result
    cos = evidence.cosines([search.position(h.name) for h in result.hits])
    spread = None
    if ranking == "hybrid" and s.fusion in ZSCORE_FUSIONS and queries.shape[0] == 1:
        keep = plain.at_least(s.vector_min_sim) if s.vector_min_sim > 0 else None
        spread = zscore_spread(centred(), keep, v.usable, search._positions_in(v.usable, v.subset), v.lexical,
                               s.candidates)
    return with_channels(search, search._with_known(result, cos), v.query, v.qvec, v.lexical, s, cos, spread)


def zscore_spread(centred: ScreenedScores, keep, usable, where, lexical, candidates: int) -> float:
    """The sd the zscore fusion standardised its candidates' similarities by
    (:func:`~skillsift.ranker.model.fusion.similarity_spread`), for ``--explain``'s requests share:
    the candidates are the first ``candidates`` of the kept lifted centred list and of the lexical
    list, each with its exact similarity (the least kept one without a kept vector)."""
    import numpy as np

    head = centred.top(candidates, keep)
    members = len(centred) if keep is None else int(np.count_nonzero(keep))
    floor = centred.lowest(keep)[1] if members else 0.0
    chosen = dict.fromkeys(usable[head].tolist())
    chosen.update(dict.fromkeys(i for i, _ in lexical.top_scored(candidates)))
    at = where[np.asarray(list(chosen), dtype=np.intp)]
    if keep is not None:
        at = np.where((at >= 0) & keep[np.maximum(at, 0)], at, -1)
    sims = filled(len(at), floor)
    if (at >= 0).any():
        sims[at >= 0] = centred.exact(at[at >= 0])
    return similarity_spread(sims.tolist())
