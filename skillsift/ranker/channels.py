"""Each channel's share of a hybrid hit's score, for ``search --explain`` and ``eval --why``.

A blend hit's score is its centred similarity (lifted by its known requests) plus the lexical
bonus; a zscore hit's is the z-score of its similarity plus the weighted z-score of its BM25F
score (:mod:`skillsift.ranker.model.fusion`).  :func:`with_channels` splits each returned hit's score
into those parts (:func:`~skillsift.ranker.model.fusion.channel_shares`): description, requests and
lexical for blend and zscore (vector and lexical without known requests); zscore-mnz adds agreement (the
bonus of a hit in both lists' first ``mnz_depth``) and request words (BM25 over the known requests).
Computed for the returned hits only, after the ranking: the ranking itself never reads them.
"""

from __future__ import annotations

from dataclasses import replace

from .model.fusion import ZSCORE_FUSIONS, channel_shares
from .model.lift import combine
from .result import SearchResult
from .screens import exact_dots

SCORED = ("blend", *ZSCORE_FUSIONS)  # the fusions whose scores split into channels


def with_channels(search, result: SearchResult, query: str, qvec, lexical, s, cos=None,
                  spread: float | None = None) -> SearchResult:
    """``result`` with each hit's share per channel, for the blend and zscore fusions in hybrid mode.

    ``search`` is the :class:`~skillsift.ranker.vector_ranking.VectorSearch` that ranked, ``lexical``
    the query's :class:`~skillsift.ranker.lexical_hits.LexicalList`, ``s`` the ``[search]``
    settings; ``cos``, the query's cosine to every known request when they ranked: a blend hit's
    requests share is then what they lifted its centred similarity by
    (:func:`~skillsift.ranker.model.lift.combine`); a zscore hit's is that lift over ``spread``, the sd
    its similarities were standardised by (:func:`~skillsift.ranker.request_screen.zscore_spread`).
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
    depth = min(request.mnz_depth, s.candidates)
    for h in result.hits:
        i = search.position(h.name)
        points = lexical.scores_of([i]).get(i)
        in_cut = 0 < h.lexical_rank <= s.candidates
        extra = None
        if request.request_words is not None:  # zscore-mnz: in both lists' first depth, the requests' words
            extra = (request.mnz if 0 < h.lexical_rank <= depth and 0 < h.vector_rank <= depth else 0.0,
                     request.request_words.get(i, 0.0))
        hits.append(replace(h, channels=channel_shares(request, h.score, points, in_cut, cut,
                                                       None if lifts is None else lifts.get(h.name, 0.0),
                                                       spread if s.fusion in ZSCORE_FUSIONS else None, extra)))
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
        own = float(exact_dots(centred, [rows[i]], q)[0])  # the definition's, as the ranking's
        out[h.name] = float(combine(own, best[i], True, weight)) - own
    return out
