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


def ranked(scores, names, ties, usable, keep=None):
    """``[(name, score)]`` of the ``usable`` skills by score descending, then name (the kept ones only)."""
    import numpy as np

    order = np.lexsort((ties, -scores))
    if keep is not None:
        order = order[keep[order]]
    return [(names[i], float(scores[j])) for j, i in zip(order.tolist(), usable[order].tolist(), strict=True)]


def rank_with_examples(search, examples, query: str, qvec, mode: str, usable, rows, ties, lexical, s, covered: bool):
    """``(fused items in result order, ranking, top_sim, dropped)`` with known requests as evidence.

    ``search`` is the :class:`~skillsift.ranker.vector_search.VectorSearch`; ``examples``
    its :class:`~skillsift.ranker.examples.ExampleRows`; ``usable``/``rows``/``ties`` the
    usable skills of the scope, their matrix rows and name ranks.
    """
    import numpy as np

    from .fusion import blend, rrf, sort_fused, vector_only, weighted
    from .rounding import SCORE_DIGITS, round_half_away

    q = np.asarray(qvec, dtype=np.float64)
    matrix = np.asarray(search.index.matrix, dtype=np.float64)[rows]

    def cosines(m):
        return (q @ m.T).max(axis=0) if q.ndim == 2 else m @ q

    cos = examples.cosines(query, q, leave_out_own=search.leave_out_own)
    best, has = examples.best(cos, len(search.skills))
    best, has = best[usable], has[usable]
    w = s.example_weight
    plain = combine(cosines(matrix), best, has, w)
    names = search._all_names()
    keep, dropped = None, 0
    if s.vector_min_sim > 0:
        keep = plain >= s.vector_min_sim
        dropped = len(usable) - int(np.count_nonzero(keep))
    top_sim = round_half_away(float(plain.max()), SCORE_DIGITS) if len(plain) else 0.0
    cand = s.candidates
    pinned = None
    if mode == "hybrid" and s.fusion == "blend":
        centred = combine(cosines(np.asarray(search._centred(), dtype=np.float64)[rows]), best, has, w)
        vector_list = ranked(centred, names, ties, usable, keep)
        shown = dict(ranked(plain, names, ties, usable, keep))
        lexical_list = [(h.name, h.score) for h in lexical.all()]
        fused = blend(lexical_list, vector_list, s.weight_lexical, s.weight_vector, candidates=cand, cosines=shown)
        pinned = search.pin(query, [f.id for f in fused])
        return sort_fused(fused, pinned), "hybrid", top_sim, dropped
    vector_list = ranked(plain, names, ties, usable, keep)
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
