"""Vector and hybrid ranking when the index holds known requests (example rows).

Kept apart from the screened paths of :mod:`skillsift.ranker.vector_search`: a catalog
without known requests never comes here, so its rankings stay byte-identical and as fast as
before.  With them the ranking is plain and vectorised (docs/ranking-quality.md, "Known
requests"):

1. one float64 matrix product gives every usable skill's own cosine (plain, and centred for
   the blend fusion), one more the query's cosine to every known request;
2. ``np.maximum.reduceat`` over the requests (sorted by skill) gives each skill ``e``, the
   mean of its two best request cosines (:mod:`skillsift.ranker.examples`);
3. each skill's vector score is ``c + w * max(0, e - c)``, for the plain cosine (reported
   as ``vector_sim``, compared with ``vector_min_sim``) and for the centred one (what the
   blend ranks);
4. the complete lists are fused by :mod:`skillsift.ranker.fusion`, ties by name.
"""

from __future__ import annotations

from .examples import combine
from .fusion import (
    FusedItem,
    blend_bonus_scale,
    rrf,
    similarity_spread,
    sort_fused,
    vector_only,
    weighted,
    with_lexical_bonus,
    zscore_scores,
)
from .rounding import FUSED_DIGITS, SCORE_DIGITS, round_half_away, round_half_away_list


def ranked(scores, names, ties, usable, keep=None, limit: int | None = None):
    """``[(name, score)]`` of the ``usable`` skills by score descending, then name (the kept ones
    only; the first ``limit`` when given)."""
    import numpy as np

    order = np.lexsort((ties, -scores))
    if keep is not None:
        order = order[keep[order]]
    if limit is not None:
        order = order[:limit]
    return [(names[i], float(scores[j])) for j, i in zip(order.tolist(), usable[order].tolist(), strict=True)]


def rank_with_examples(search, examples, query: str, qvec, mode: str, usable, rows, ties, lexical, s, covered: bool,
                       *, cos=None, request=None):
    """``(fused items in result order, ranking, top_sim, dropped)`` with known requests as evidence.

    ``search`` is the :class:`~skillsift.ranker.vector_search.VectorSearch`; ``examples``
    its :class:`~skillsift.ranker.examples.ExampleRows`; ``usable``/``rows``/``ties`` the
    usable skills of the scope, their matrix rows and name ranks; ``cos`` the query's cosine to
    every known request when the caller has it (:meth:`~skillsift.ranker.examples.ExampleRows.cosines`);
    ``request`` the :class:`~skillsift.ranker.fusion.BlendRequest` of a blend or zscore fusion.
    """
    import numpy as np

    if cos is None:
        cos = examples.cosines(query, np.asarray(qvec, dtype=np.float64), own_evidence=search.own_evidence)
    scored = mode == "hybrid" and s.fusion in ("blend", "zscore")
    plain, centred, keep = _similarities(search, examples, qvec, usable, rows, s, cos, scored)
    names = search._all_names()
    dropped = 0 if keep is None else len(usable) - int(np.count_nonzero(keep))
    top_sim = round_half_away(float(plain.max()), SCORE_DIGITS) if len(plain) else 0.0
    cand = s.candidates
    pinned = None
    if scored:
        fused = _blend(search, centred, plain, keep, usable, ties, lexical, s, request)
        pinned = search.pin(query, [f.id for f in fused])
        return sort_fused(fused, pinned), "hybrid", top_sim, dropped
    vector_list = ranked(plain, names, ties, usable, keep, cand)
    if mode == "vector" or (s.fusion == "auto" and covered):
        fused = vector_only(vector_list, candidates=cand)
        if mode == "hybrid":
            pinned = search.pin(query, [f.id for f in fused])
        return sort_fused(fused, pinned), "vector", top_sim, dropped
    lexical_list = [(h.name, h.score) for h in lexical.top(cand)]
    if s.fusion == "weighted":
        fused = weighted(lexical_list, vector_list, s.weight_lexical, s.weight_vector, candidates=cand)
    else:
        fused = rrf(lexical_list, vector_list, s.rrf_k, s.weight_lexical, s.weight_vector, candidates=cand)
    pinned = search.pin(query, [f.id for f in fused])
    return sort_fused(fused, pinned), "hybrid", top_sim, dropped


def _similarities(search, examples, qvec, usable, rows, s, cos, centred: bool):
    """``(plain, centred, keep)`` of the ``usable`` skills with their known requests: the plain and
    (with ``centred``, else None) the centred similarity lifted by the requests (``cos``, the
    query's cosine to each), and the mask of those ``vector_min_sim`` keeps (None: all)."""
    import numpy as np

    q = np.asarray(qvec, dtype=np.float64)

    def cosines(m):
        return (q @ m.T).max(axis=0) if q.ndim == 2 else m @ q

    best, has = examples.best(cos, len(search.skills))
    best, has = best[usable], has[usable]
    w = s.example_weight
    plain = combine(cosines(_wide(search, "_examples_plain", lambda: search.index.matrix, rows)), best, has, w)
    keep = plain >= s.vector_min_sim if s.vector_min_sim > 0 else None
    lifted = None
    if centred:
        lifted = combine(cosines(_wide(search, "_examples_centred", search._centred, rows)), best, has, w)
    return plain, lifted, keep


def zscore_spread(search, examples, qvec, usable, rows, ties, lexical, s, cos) -> float:
    """The sd the zscore fusion standardised the candidates' similarities by, with known requests
    (:func:`~skillsift.ranker.fusion.similarity_spread`): the candidates of :func:`_blend`, for
    ``--explain``'s requests share."""

    _plain, centred, keep = _similarities(search, examples, qvec, usable, rows, s, cos, True)
    chosen, at, own, floor = _candidates(search, centred, keep, usable, ties, lexical, s.candidates)[:4]
    return similarity_spread([floor if p < 0 else c for p, c in zip(at.tolist(), own, strict=True)])


def _candidates(search, centred, keep, usable, ties, lexical, cand: int):
    """The candidates of :func:`_blend`: ``(chosen, at, own, floor, lex_top, lex, vec_rank, sims_at)``:
    the chosen skill indexes (the first ``cand`` of the vector list, then of the lexical list),
    their positions in usable (-1: no vector), their centred similarities, the least kept one,
    the lexical cut, their BM25F scores, their vector ranks and their positions for the plain
    similarity (``inside``)."""
    import numpy as np

    kept = np.arange(len(centred)) if keep is None else np.flatnonzero(keep)  # positions in usable
    values = centred[kept]
    if np.isnan(values).any():  # never with unit vectors; the sort the counting below stands for
        head, floor, ranks = _full_order(centred, ties, kept, cand)
    else:
        head, floor, ranks = _first_and_ranks(values, ties[kept], kept, cand)
    n_skills = len(search.skills)
    position = np.full(n_skills, -1, dtype=np.intp)  # skill index -> position in usable, kept ones
    position[usable[kept]] = kept
    lex_top = lexical.top_scored(cand)
    chosen = list(dict.fromkeys([*usable[head].tolist(), *(i for i, _ in lex_top)]))
    picked = np.asarray(chosen, dtype=np.intp)
    lex = lexical.scores_array(picked) if len(picked) else np.zeros(0)
    at = position[picked]  # the chosen skills' positions in usable (-1: not in the vector list)
    inside = np.maximum(at, 0)
    vec_rank = np.where(at >= 0, ranks(inside), 0)
    some = len(centred) > 0  # else every chosen skill is a lexical one without a vector
    own = (centred[inside] if some else np.zeros(len(at))).tolist()
    return chosen, at, own, floor, lex_top, lex, vec_rank, (inside if some else None)


def _blend(search, centred, plain, keep, usable, ties, lexical, s, request=None):
    """The blend of the complete lists (the oracle ``blend`` of tests/ranker/reference.py), computed
    for its candidates only.

    The candidates are the first ``candidates`` of the vector list (``centred``, the kept
    skills) and of the lexical list; each scores its centred similarity (the least of the
    vector list without one) plus ``bonus * bm25 / top_bm25``; ranks are positions in the
    complete lists; ``vector_sim`` is the plain similarity.  A zscore ``request`` scores the same
    candidates by :func:`~skillsift.ranker.fusion.zscore_scores`.
    """
    import numpy as np

    bonus = blend_bonus_scale(s.weight_lexical, s.weight_vector)
    chosen, at, own, floor, lex_top, lex, vec_rank, inside = _candidates(search, centred, keep, usable, ties,
                                                                         lexical, s.candidates)
    top = lex_top[0][1] if lex_top else 0.0
    lex_rank = {i: r for r, (i, _score) in enumerate(lex_top, start=1)}
    past = {i: float(v) for i, v in zip(chosen, lex.tolist(), strict=True) if v >= 0 and i not in lex_rank}
    lex_rank.update(lexical.ranks_of(past))
    names = search._all_names()
    sims = round_half_away_list(plain[inside] if inside is not None else np.zeros(len(at)), SCORE_DIGITS)
    if request is not None and request.fusion == "zscore":
        cut = {i for i, _ in lex_top}
        scores = zscore_scores([floor if p < 0 else c for p, c in zip(at.tolist(), own, strict=True)],
                               [v if i in cut else None for i, v in zip(chosen, lex.tolist(), strict=True)],
                               request.lexical_weight)
    else:
        scores = [with_lexical_bonus(floor if p < 0 else c, bonus, lexical_score, top)
                  for lexical_score, p, c in zip(lex.tolist(), at.tolist(), own, strict=True)]
    return [FusedItem(id=names[i], score=f, lexical_rank=lex_rank.get(i, 0), vector_rank=r,
                      vector_sim=None if p < 0 else v)
            for i, f, p, v, r in zip(chosen, round_half_away_list(scores, FUSED_DIGITS), at.tolist(), sims,
                                     vec_rank.tolist(), strict=True)]


def _first_and_ranks(values, value_ties, kept, cand: int):
    """The vector list's first ``cand`` entries, its least score and its ranks, without sorting it.

    The list is the ``kept`` skills (positions in usable) by ``values`` descending, then name
    rank (``value_ties``, distinct).  Returns ``(head, floor, ranks)``: ``head`` the positions of
    the first ``cand`` (in list order), ``floor`` the least value (0.0 for an empty list), and
    ``ranks(positions)`` the 1-based rank of kept positions: the entries of higher value plus
    those of equal value and lower name rank, plus one.  The same as sorting the whole list
    (``np.lexsort``), for values without NaN.
    """
    import numpy as np

    n = len(values)
    if n == 0:
        return kept[:0], 0.0, lambda positions: np.zeros(len(positions), dtype=np.intp)
    if n > cand > 0:
        kth = np.partition(values, n - cand)[n - cand]  # the cand-th largest value
        near = np.flatnonzero(values >= kth)  # at least cand entries; the first cand are among them
    else:
        near = np.arange(n)
    head = kept[near[np.lexsort((value_ties[near], -values[near]))][:max(cand, 0)]]
    ascending = np.sort(values)
    where = np.full(int(kept[-1]) + 1, -1, dtype=np.intp)  # position in usable -> index in values
    where[kept] = np.arange(n)

    def ranks(positions):
        j = where[positions]
        v = values[j]
        above = n - np.searchsorted(ascending, v, "right")
        equal = np.searchsorted(ascending, v, "right") - np.searchsorted(ascending, v, "left")
        out = above + 1
        for k in np.flatnonzero(equal > 1).tolist():  # equal values: ordered by name rank
            out[k] += int(np.count_nonzero((values == v[k]) & (value_ties < value_ties[j[k]])))
        return out

    return head, float(ascending[0]), ranks


def _full_order(centred, ties, kept, cand: int):
    """:func:`_first_and_ranks` by sorting the whole list (any values)."""
    import numpy as np

    order = np.lexsort((ties, -centred))
    if len(kept) != len(centred):
        keep = np.zeros(len(centred), bool)
        keep[kept] = True
        order = order[keep[order]]
    rank = np.zeros(len(centred), dtype=np.intp)
    rank[order] = np.arange(1, len(order) + 1)
    floor = float(centred[order].min()) if len(order) else 0.0
    return order[:cand], floor, lambda positions: rank[positions]


def _wide(search, kept: str, matrix, rows):
    """``matrix()[rows]`` in float64, kept on ``search`` for the whole catalog's rows (made once)."""
    import numpy as np

    found = getattr(search, kept, None)
    if found is not None and found[0] is rows:
        return found[1]
    wide = np.asarray(matrix()[rows], dtype=np.float64)
    setattr(search, kept, (rows, wide))
    return wide
