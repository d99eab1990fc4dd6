"""The first hits of the blend fusion, computed from screened similarities.

The blend fusion is defined over complete ranked lists (:func:`~skillsift.ranker.model.fusion.blend`): the
candidates are the first ``candidates`` of the centred vector list and of the lexical list;
a candidate scores its centred similarity (the least similarity of the vector list when it
has none) plus ``bonus * bm25 / top_bm25``, rounded to 9 decimals; its ranks are its
positions in the complete lists.  A search keeps the first ``limit`` hits, and
:func:`blend_first` computes exactly only what decides those (docs/ranking-speed.md,
"Blend fusion"):

1. the vector candidates in order (:meth:`~skillsift.ranker.screens.ScreenedScores.top`:
   float64 products for the rows that can make the cut, exact sums only where two of them
   are too close to order);
2. the lexical candidates, and the lexical scores of the vector candidates past the lexical
   cut (read off the query's matches);
3. every candidate's fused score as an interval, from its similarity's screening bounds and
   its lexical bonus; only the pinned candidate and those whose upper bound reaches the
   ``limit``-th largest lower bound get their exact fused score (from the settled
   similarity when both ends of its interval round alike) and are sorted (score desc, then
   name);
4. ranks and cosines for the hits kept only.

The result equals fusing the complete lists and cutting (tests/ranker/test_fusion_differential.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from .model.fusion import BlendRequest, FusedItem, mnz_extra, zscore_scores
from .rounding import FUSED_DIGITS, SCORE_DIGITS, round_half_away_array, round_half_away_list
from .screens import filled, plus_where

ROUNDING_SLACK = 1e-9  # >= half a unit of the fused score's 9th decimal plus float64 error


def blend_first(request: BlendRequest, centred, plain, keep, lexical, usable, where,
                names: Sequence[str]) -> list[FusedItem]:
    """The blend fusion's first ``request.limit`` items in result order (all of them when it is None or < 1).

    ``centred`` and ``plain`` are the :class:`~skillsift.ranker.screens.ScreenedScores` of the
    centred and plain similarities over the ``usable`` skills (positions; ``usable[p]`` is a
    skill index, ``where[i]`` the position of skill ``i`` or -1), ``keep`` the mask of the
    positions the threshold keeps (None: all), ``lexical`` the query's
    :class:`~skillsift.ranker.lexical_hits.LexicalList` and ``names`` every skill's name;
    ``request`` holds the query, the candidate count, the bonus of the top lexical match, the
    limit and the exact-id pin (:class:`~skillsift.ranker.model.fusion.BlendRequest`).
    """
    import numpy as np

    query, candidates, bonus, limit = request.query, request.candidates, request.bonus, request.limit
    lex = lexical.top_scored(candidates)  # (skill index, score), best first
    n_lex = len(lex)
    top = lex[0][1] if lex else 0.0
    lex_skills, lex_scores = zip(*lex, strict=True) if lex else ((), ())  # no generator per item
    lex_skill, lex_pos = _lexical_positions(np.array(lex_skills, dtype=np.intp), where, keep)
    # positions of the vector candidates, in exact order; zscore reads every candidate's exact similarity,
    # so the lexical ones are computed in the same call as the vector ones (one pass over the rows, not two)
    vec = centred.top(candidates, keep, also=lex_pos[lex_pos >= 0] if request.fusion == "zscore" else None)
    in_lex = np.zeros(len(centred), dtype=bool)
    in_lex[lex_pos[lex_pos >= 0]] = True
    vec_only = vec[~in_lex[vec]]
    # the candidates: the lexical ones in lexical order, then the other vector ones
    pos = np.concatenate([lex_pos, vec_only])
    skill = np.concatenate([lex_skill, usable[vec_only]])
    lex_score = np.concatenate([np.array(lex_scores, dtype=np.float64),
                                filled(len(vec_only), -1.0)])  # -1: not a lexical match
    if n_lex == candidates and len(vec_only):  # vector candidates further down the lexical list
        lex_score[n_lex:] = lexical.scores_array(skill[n_lex:])
    has = pos >= 0
    bonus_of = filled(len(pos), np.nan)  # the lexical bonus added to each candidate (NaN: none)
    if top > 0:
        scored = lex_score > 0
        bonus_of[scored] = bonus * (lex_score[scored] / top)
    skill_list = skill.tolist()
    at = {i: j for j, i in enumerate(skill_list)}
    pinned = request.pin(query, at)  # the skill whose id the query names
    pinned_at = -1 if pinned is None else at[pinned]
    total = len(pos)
    want = total if limit is None or limit < 1 else min(limit, total)
    rest = want - (pinned_at >= 0)
    others = np.arange(total)
    if pinned_at >= 0:
        others = others[others != pinned_at]
    floor = _floor(centred, keep) if not has.all() else 0.0
    if request.fusion == "zscore":  # every candidate's score depends on all of them: all are exact
        sims = filled(total, floor)
        sims[has] = centred.exact(pos[has])
        extra = _mnz_extras(request, vec, pos, skill, n_lex)
        scores, contenders = _zscore_contenders(request, sims, lex_score, n_lex, others, rest, extra)
        ids = {j: names[skill_list[j]] for j in (contenders if pinned_at < 0 else [pinned_at, *contenders])}
        kept = sorted(contenders, key=lambda j: (-scores[j], ids[j]))[:rest] if rest > 0 else []
        chosen = ([pinned_at] if pinned_at >= 0 else []) + kept
        return _items(chosen, ids, scores, pos, skill, lex_score, n_lex, vec, centred, plain, keep, lexical)
    contenders = _contenders(others, rest, pos, has, bonus_of, floor, centred)
    need = contenders + ([pinned_at] if pinned_at >= 0 else [])
    scores = _fused_scores(need, pos, has, bonus_of, floor, centred)
    ids = {j: names[skill_list[j]] for j in need}
    kept = sorted(contenders, key=lambda j: (-scores[j], ids[j]))[:rest] if rest > 0 else []
    chosen = ([pinned_at] if pinned_at >= 0 else []) + kept
    return _items(chosen, ids, scores, pos, skill, lex_score, n_lex, vec, centred, plain, keep, lexical)


def _mnz_extras(request: BlendRequest, vec, pos, skill, n_lex: int) -> list[float] | None:
    """zscore-mnz: each candidate's addition (:func:`~skillsift.ranker.model.fusion.mnz_extra`), by candidate
    number; None for plain zscore.  The lexical candidates are numbered first, in lexical order, so one is in
    the lexical list's first ``depth`` when its number is below ``depth``; ``vec`` holds the vector candidates'
    positions in order."""
    if request.request_words is None:
        return None
    depth = min(request.mnz_depth, request.candidates)
    first = set(vec[:depth].tolist())
    both = min(depth, n_lex)
    positions = pos.tolist()
    return [mnz_extra(request, i, j < both and positions[j] in first) for j, i in enumerate(skill.tolist())]


def _zscore_contenders(request: BlendRequest, sims, lex_score, n_lex: int, others, rest: int, extra=None):
    """``(scores, contenders)``: every candidate's rounded zscore score (by candidate number) and those of ``others``
    that can be among the ``rest`` best (a score at or above the ``rest``-th best; none when ``rest`` < 1)."""
    members: list = lex_score[:n_lex].tolist() + [None] * (len(lex_score) - n_lex)  # Python floats, then None
    rounded = round_half_away_list(zscore_scores(sims.tolist(), members, request.lexical_weight, extra),
                                   FUSED_DIGITS)
    contenders = others.tolist() if rest > 0 else []
    if 0 < rest < len(contenders):
        least = sorted([rounded[j] for j in contenders], reverse=True)[rest - 1]
        contenders = [j for j in contenders if rounded[j] >= least]
    return dict(enumerate(rounded)), contenders


def _lexical_positions(lex_skill, where, keep):
    """``(skill indexes, positions)`` of the lexical candidates; position -1 for one not usable or not kept."""
    import numpy as np

    lex_pos = where[lex_skill]
    if keep is not None and len(lex_skill):
        lex_pos = np.where((lex_pos >= 0) & keep[np.maximum(lex_pos, 0)], lex_pos, -1)
    return lex_skill, lex_pos


def _contenders(others, rest: int, pos, has, bonus_of, floor: float, centred) -> list[int]:
    """The candidates (of ``others``) that may be among the ``rest`` best: all of them when every one is kept,
    else those whose fused score's upper bound reaches the ``rest``-th best lower bound."""
    import numpy as np

    if not 0 < rest < len(others):
        return others.tolist() if rest > 0 else []
    # bounds of the rounded fused scores from the similarities' screening bounds: rounding
    # to 9 decimals moves a score by at most 0.5e-9, the float64 sums are within 1e-15
    total = len(pos)
    low, high = filled(total, floor), filled(total, floor)
    low[has], high[has] = centred.lo[pos[has]], centred.hi[pos[has]]
    shift = np.nan_to_num(bonus_of[others])
    low = low[others] + shift - ROUNDING_SLACK
    high = high[others] + shift + ROUNDING_SLACK
    cut = np.partition(low, len(others) - rest)[len(others) - rest]
    return others[high >= cut].tolist()


def _fused_scores(need, pos, has, bonus_of, floor, centred) -> dict[int, float]:
    """The exact fused scores of the candidates ``need``, computed as the reference blend computes them:
    the similarity (``floor`` without one) plus the bonus where there is one, rounded to 9 decimals."""
    import numpy as np

    need = np.asarray(need, dtype=np.intp)
    with_vec = has[need]
    if with_vec.all():
        fused = centred.rounded(pos[need], FUSED_DIGITS, bonus_of[need])
    else:
        fused = round_half_away_array(plus_where(filled(len(need), floor), bonus_of[need]), FUSED_DIGITS)
        if with_vec.any():
            fused[with_vec] = centred.rounded(pos[need[with_vec]], FUSED_DIGITS, bonus_of[need[with_vec]])
    return dict(zip(need.tolist(), fused.tolist(), strict=True))


def _floor(centred, keep) -> float:
    """The least kept centred similarity (0 when nothing is kept): the score of a candidate without one."""
    members = len(centred) if keep is None else int(keep.sum())
    return centred.lowest(keep)[1] if members else 0.0


def _items(chosen, ids, scores, pos, skill, lex_score, n_lex, vec, centred, plain, keep,
           lexical) -> list[FusedItem]:
    """The fused items of ``chosen`` (candidate numbers, in result order) with their complete-list ranks."""
    import numpy as np

    rank_of = {p: r for r, p in enumerate(vec.tolist(), start=1)}  # the vector candidates are in order
    vec_rank: dict[int, int] = {}
    outside = []
    for j in chosen:
        p = int(pos[j])
        if p in rank_of:
            vec_rank[j] = rank_of[p]
        elif p >= 0:
            outside.append(j)
    if outside:  # kept skills past the vector cut: their positions in the complete list
        vec_rank.update(zip(outside, centred.ranks(pos[outside], keep).tolist(), strict=True))
    with_vec = [j for j in chosen if j in vec_rank]
    cosines = dict(zip(with_vec, plain.rounded(np.asarray(pos[with_vec], dtype=np.intp), SCORE_DIGITS).tolist(),
                       strict=True)) if with_vec else {}
    lex_rank = {j: j + 1 for j in chosen if j < n_lex}
    past = {int(skill[j]): float(lex_score[j]) for j in chosen if j >= n_lex and lex_score[j] >= 0}
    if past:
        ranks = lexical.ranks_of(past)
        lex_rank.update((j, ranks[int(skill[j])]) for j in chosen if j >= n_lex and lex_score[j] >= 0)
    return [FusedItem(id=ids[j], score=scores[j], lexical_rank=lex_rank.get(j, 0), vector_rank=vec_rank.get(j, 0),
                      vector_sim=cosines.get(j)) for j in chosen]
