"""Each channel's share of a hybrid hit's score, for ``search --explain`` and ``eval --why``.

A blend hit's score is its centred similarity (lifted by its known requests) plus the lexical
bonus; a zscore hit's is the z-score of its similarity plus the weighted z-score of its BM25F
score (:mod:`skillsift.ranker.fusion`).  :func:`with_channels` splits each returned hit's score
into those parts (:func:`~skillsift.ranker.fusion.channel_shares`): description, requests and
lexical for blend and zscore (vector and lexical without known requests).
Computed for the returned hits only, after the ranking: the ranking itself never reads them.
"""

from __future__ import annotations

from dataclasses import replace

from .examples import combine
from .fusion import channel_shares
from .result import SearchResult

SCORED = ("blend", "zscore")  # the fusions whose scores split into channels


def with_channels(search, result: SearchResult, query: str, qvec, lexical, s, cos=None,
                  spread: float | None = None) -> SearchResult:
    """``result`` with each hit's share per channel, for the blend and zscore fusions in hybrid mode.

    ``search`` is the :class:`~skillsift.ranker.vector_search.VectorSearch` that ranked, ``lexical``
    the query's :class:`~skillsift.ranker.lexical_hits.LexicalList`, ``s`` the ``[search]``
    settings; ``cos``, the query's cosine to every known request when they ranked: a blend hit's
    requests share is then what they lifted its centred similarity by
    (:func:`~skillsift.ranker.examples.combine`); a zscore hit's is that lift over ``spread``, the sd
    its similarities were standardised by (:func:`~skillsift.ranker.example_search.zscore_spread`).
    """
    if result.ranking != "hybrid" or s.fusion not in SCORED:
        return result
    request = search._blend_request(query, s, None, lexical)
    cut = [score for _, score in lexical.top_scored(s.candidates)]
    lifts: dict[str, float] | None = None
    if cos is not None and search.examples is not None and getattr(qvec, "ndim", 1) == 1 and (
            s.fusion == "blend" or spread is not None):
        lifts = _lifts(search, result, qvec, cos, s.example_weight)
    hits = []
    for h in result.hits:
        i = search.position(h.name)
        points = lexical.scores_of([i]).get(i)
        in_cut = 0 < h.lexical_rank <= s.candidates
        hits.append(replace(h, channels=channel_shares(request, h.score, points, in_cut, cut,
                                                       None if lifts is None else lifts.get(h.name, 0.0),
                                                       spread if s.fusion == "zscore" else None)))
    return replace(result, hits=tuple(hits))


def _lifts(search, result: SearchResult, qvec, cos, weight: float) -> dict[str, float]:
    """What known requests added to each hit's centred similarity (the blend's requests channel)."""
    import numpy as np

    best, has = search.examples.best(cos, len(search.skills))
    q = np.asarray(qvec, dtype=np.float64)
    centred = search._centred()
    rows = search.rows()
    out = {}
    for h in result.hits:
        i = search.position(h.name)
        if rows[i] < 0 or not has[i]:
            continue
        own = float(np.asarray(centred[rows[i]], dtype=np.float64) @ q)
        out[h.name] = float(combine(own, best[i], True, weight)) - own
    return out
