"""The blend fusion over a small scope, every similarity computed exactly.

Up to :data:`SMALL_ROWS` usable skills, computing every plain and centred similarity
exactly costs less than screening them (:mod:`skillsift.ranker.screens`): the rows of both
matrices are kept stacked and transposed in float64 (dims x 2n), so one product with the
query and one sum over the first axis give every similarity, each row's exact products
added left to right (numpy sums over an outer axis element by element, in order: the same
doubles as :func:`~skillsift.ranker.screens.exact_dots`, tests/ranker/test_blend_exact.py).
The fusion then runs over the complete lists in Python floats, with the arithmetic of
:func:`~skillsift.ranker.model.fusion.blend` (docs/ranking-speed.md, "Blend fusion").
"""

from __future__ import annotations

from collections.abc import Sequence

from .model.fusion import BlendRequest, FusedItem, mnz_extra, with_lexical_bonus, zscore_scores
from .rounding import FUSED_DIGITS, SCORE_DIGITS, round_half_away

#: Scopes of at most this many usable skills are ranked by :func:`blend_exact`.
SMALL_ROWS = 96


class ExactRows:
    """The plain and centred rows of a scope's usable skills, for exact similarities with a query."""

    def __init__(self, matrix, centred, rows, *, skills: Sequence[int], ties: Sequence[int]):
        import numpy as np

        rows = np.asarray(rows, dtype=np.intp)
        stacked = np.concatenate([matrix[rows], centred[rows]]).astype(np.float64)
        self._columns = np.ascontiguousarray(stacked.T)  # dims x 2n: a row's products down a column
        self.count = len(rows)
        self.skills = list(skills)  # per row: the skill index
        self.ties = list(ties)  # per row: the skill's name rank

    def similarities(self, query) -> tuple[list[float], list[float]]:
        """(plain, centred) similarities of the rows with the float32 ``query``, exact and clamped."""
        import numpy as np

        q = np.asarray(query, dtype=np.float32).astype(np.float64)
        products = self._columns * q[:, None]  # float32 x float32 in float64: exact
        sums = np.add.reduce(products, axis=0)  # outer axis: added row after row, left to right
        np.clip(sums, -1.0, 1.0, out=sums)
        values = sums.tolist()
        return values[:self.count], values[self.count:]


def blend_exact(request: BlendRequest, plain: Sequence[float], centred: Sequence[float],
                keep: Sequence[bool] | None, ties: Sequence[int], skills: Sequence[int], lexical,
                names: Sequence[str]) -> list[FusedItem]:
    """The blend fusion's first ``request.limit`` items in result order (all when it is None or < 1).

    Positions ``p`` are the scope's usable skills: ``skills[p]`` the skill index,
    ``plain[p]``/``centred[p]`` its exact similarities, ``ties[p]`` its name rank, ``keep[p]``
    whether the threshold keeps it (None: all).  ``lexical`` is the query's
    :class:`~skillsift.ranker.lexical_hits.LexicalList`, ``names`` every skill's name.
    """
    query, candidates, bonus, limit = request.query, request.candidates, request.bonus, request.limit
    kept = range(len(skills)) if keep is None else [p for p, k in enumerate(keep) if k]
    order = sorted(kept, key=lambda p: (-centred[p], ties[p]))  # the complete vector list
    vector_rank = {skills[p]: (rank, p) for rank, p in enumerate(order, start=1)}
    floor = centred[order[-1]] if order else 0.0
    matches = lexical.top_scored(len(names))  # the complete lexical list: (skill index, score)
    top = matches[0][1] if matches else 0.0
    chosen = dict.fromkeys(skills[p] for p in order[:candidates])
    chosen.update(dict.fromkeys(i for i, _ in matches[:candidates]))
    lex = {i: (rank, score) for rank, (i, score) in enumerate(matches, start=1)}
    pinned = request.pin(query, chosen)
    if request.fusion == "zscore":
        sims = [floor if vector_rank.get(i) is None else centred[vector_rank[i][1]] for i in chosen]
        members = [lex[i][1] if i in lex and lex[i][0] <= candidates else None for i in chosen]
        fused = zscore_scores(sims, members, request.lexical_weight, _mnz_extras(request, chosen, order, skills, lex))
    else:
        fused = [with_lexical_bonus(floor if vector_rank.get(i) is None else centred[vector_rank[i][1]], bonus,
                                    lex.get(i, (0, 0.0))[1], top) for i in chosen]
    scored = [(i != pinned, -round_half_away(score, FUSED_DIGITS), names[i], i)
              for i, score in zip(chosen, fused, strict=True)]
    scored.sort()
    if limit is not None and limit > 0:
        del scored[limit:]
    out = []
    for _, negative, name, i in scored:
        at = vector_rank.get(i)
        out.append(FusedItem(id=name, score=-negative, lexical_rank=lex.get(i, (0,))[0],
                             vector_rank=0 if at is None else at[0],
                             vector_sim=None if at is None else round_half_away(plain[at[1]], SCORE_DIGITS)))
    return out


def _mnz_extras(request: BlendRequest, chosen, order, skills, lex) -> list[float] | None:
    """zscore-mnz: each of the ``chosen`` candidates' addition (:func:`~skillsift.ranker.model.fusion.mnz_extra`;
    ``order``: the complete vector list's positions, ``lex``: skill -> (lexical rank, score)); None for zscore."""
    if request.request_words is None:
        return None
    depth = min(request.mnz_depth, request.candidates)
    first = {skills[p] for p in order[:depth]}
    return [mnz_extra(request, i, i in first and i in lex and lex[i][0] <= depth) for i in chosen]
