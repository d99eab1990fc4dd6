"""The first hits of the blend fusion, computed from screened similarities.

:func:`~skillsift.ranker.fusion.blend` defines the fusion over complete ranked lists: the
candidates are the first ``candidates`` of the centred vector list and of the lexical list;
a candidate scores its centred similarity (the least similarity of the vector list when it
has none) plus ``bonus * bm25 / top_bm25``, rounded to 9 decimals; its ranks are its
positions in the complete lists.  A search keeps the first ``limit`` hits, and
:func:`blend_first` computes exactly only what decides those (docs/ranking-speed.md, "The
blend fusion"):

1. the vector candidates as a set (:meth:`~skillsift.ranker.vector.ScreenedScores.top_set`:
   exact values only for the rows near the cut);
2. every candidate's fused score as an interval, from its similarity's bounds and its
   lexical bonus (a vector candidate past the lexical cut scores at most the cut's BM25F);
   rounding and addition are monotone, so the rounded fused score lies in the rounded
   interval;
3. the exact fused score of the pinned candidate and of every candidate whose upper bound
   reaches the ``limit``-th largest lower bound; they are sorted (score desc, then name);
4. ranks, cosines and lexical scores for the hits kept only.

The result equals fusing the complete lists and cutting (tests/ranker/test_blend_top.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .fusion import FusedItem
from .rounding import FUSED_DIGITS, SCORE_DIGITS, round_half_away_array
from .vector import plus_where

ROUNDING_SLACK = 1e-9  # >= half a unit of the fused score's 9th decimal plus float64 error


def blend_first(query: str, centred, plain, keep, lexical, usable, where, names: Sequence[str], *,
                candidates: int, bonus: float, limit: int | None,
                pin: Callable[[str, list[str]], str | None]) -> list[FusedItem]:
    """The blend fusion's first ``limit`` items in result order (all of them when ``limit`` is None or < 1).

    ``centred`` and ``plain`` are the :class:`~skillsift.ranker.vector.ScreenedScores` of the
    centred and plain similarities over the ``usable`` skills (positions; ``usable[p]`` is a
    skill index, ``where[i]`` the position of skill ``i`` or -1), ``keep`` the mask of the
    positions the threshold keeps (None: all), ``lexical`` the query's
    :class:`~skillsift.ranker.lexical_hits.LexicalList`, ``names`` every skill's name,
    ``bonus`` the lexical bonus of the top lexical match and ``pin(query, ids)`` the exact-id
    pin over the candidate ids.
    """
    import numpy as np

    if candidates < 1:
        raise ValueError(f"candidates must be at least 1, got {candidates}")
    vec = centred.top(candidates, keep)  # positions of the vector candidates, in exact order
    lex = lexical.top_scored(candidates)  # (skill index, score), best first
    top = lex[0][1] if lex else 0.0
    more = len(lex) == candidates  # the lexical list may go on past the cut
    n_lex = len(lex)
    lex_skill = np.fromiter((i for i, _ in lex), dtype=np.intp, count=n_lex)
    lex_pos = where[lex_skill] if n_lex else np.zeros(0, dtype=np.intp)
    if keep is not None and n_lex:
        lex_pos = np.where((lex_pos >= 0) & keep[np.maximum(lex_pos, 0)], lex_pos, -1)
    in_vec = np.zeros(len(centred), dtype=bool)
    in_vec[vec] = True
    taken = lex_pos[lex_pos >= 0]
    in_lex = np.zeros(len(centred), dtype=bool)
    in_lex[taken] = True
    vec_only = vec[~in_lex[vec]]
    # the candidates: the lexical ones in lexical order, then the other vector ones
    pos = np.concatenate([lex_pos, vec_only])
    skill = np.concatenate([lex_skill, usable[vec_only]])
    lex_score = np.concatenate([np.fromiter((s for _, s in lex), dtype=np.float64, count=n_lex),
                                np.zeros(len(vec_only))])
    matched = np.zeros(len(pos), dtype=bool)  # a lexical match: in the lexical list, so it has a rank
    matched[:n_lex] = True
    if more and len(vec_only):  # vector candidates further down the lexical list
        found = lexical.scores_of(skill[n_lex:].tolist())
        for j, i in enumerate(skill[n_lex:].tolist(), start=n_lex):
            score = found.get(i)
            if score is not None:
                lex_score[j] = score
                matched[j] = True
    has = pos >= 0
    floor = _floor(centred, keep) if not has.all() else 0.0
    value = np.full(len(pos), floor)
    radius = np.zeros(len(pos))
    value[has], radius[has] = centred.settled(pos[has])
    bonus_of = np.full(len(pos), np.nan)  # the lexical bonus added (NaN: none, the score is the similarity)
    if top > 0:
        scored = lex_score > 0
        bonus_of[scored] = bonus * (lex_score[scored] / top)
    ids = [names[i] for i in skill.tolist()]
    pinned = pin(query, ids)
    pinned_at = ids.index(pinned) if pinned is not None else -1
    total = len(pos)
    want = total if limit is None or limit < 1 else min(limit, total)
    others = np.flatnonzero(np.arange(total) != pinned_at) if pinned_at >= 0 else np.arange(total)
    rest = want - (pinned_at >= 0)
    if 0 < rest < len(others):
        # bounds of the rounded fused scores: rounding to 9 decimals moves a score by at most
        # 0.5e-9, and these float64 sums are within 1e-15 of the exact ones
        shift = np.nan_to_num(bonus_of[others])
        f_lo = value[others] - radius[others] + shift - ROUNDING_SLACK
        f_hi = value[others] + radius[others] + shift + ROUNDING_SLACK
        cut = np.partition(f_lo, len(others) - rest)[len(others) - rest]
        contenders = others[f_hi >= cut]
    else:
        contenders = others if rest > 0 else others[:0]
    need = np.asarray(contenders.tolist() + ([pinned_at] if pinned_at >= 0 else []), dtype=np.intp)
    # the exact fused scores of what competes for the places (blend's arithmetic)
    fused = round_half_away_array(plus_where(value[need], bonus_of[need]), FUSED_DIGITS)  # right for floor items
    with_vec = need[has[need]]
    if len(with_vec):
        fused[has[need]] = centred.rounded(pos[with_vec], FUSED_DIGITS, bonus_of[with_vec])
    scores = dict(zip(need.tolist(), fused.tolist(), strict=True))
    kept = sorted(contenders.tolist(), key=lambda j: (-scores[j], ids[j]))[:rest] if rest > 0 else []
    chosen = ([pinned_at] if pinned_at >= 0 else []) + kept
    return _items(chosen, ids, scores, pos, skill, lex_score, matched, n_lex, in_vec, vec, centred, plain, keep,
                  lexical)


def _floor(centred, keep) -> float:
    """The least kept centred similarity (0 when nothing is kept): the score of a candidate without one."""
    members = len(centred) if keep is None else int(keep.sum())
    return centred.lowest(keep)[1] if members else 0.0


def _items(chosen, ids, scores, pos, skill, lex_score, matched, n_lex, in_vec, vec, centred, plain, keep,
           lexical) -> list[FusedItem]:
    """The fused items of ``chosen`` (candidate numbers, in result order) with their complete-list ranks."""
    vec_rank: dict[int, int] = {}
    inside = [j for j in chosen if pos[j] >= 0 and in_vec[pos[j]]]
    outside = [j for j in chosen if pos[j] >= 0 and not in_vec[pos[j]]]
    if inside:  # the vector candidates are in order: a position is a rank
        rank_of = {p: r for r, p in enumerate(vec.tolist(), start=1)}
        vec_rank.update((j, rank_of[int(pos[j])]) for j in inside)
    if outside:
        vec_rank.update(zip(outside, centred.ranks(pos[outside], keep).tolist(), strict=True))
    cosines: dict[int, float] = {}
    with_vec = inside + outside
    if with_vec:
        cosines = dict(zip(with_vec, plain.rounded(pos[with_vec], SCORE_DIGITS).tolist(), strict=True))
    lex_rank = {j: j + 1 for j in chosen if j < n_lex}
    past = {int(skill[j]): float(lex_score[j]) for j in chosen if j >= n_lex and matched[j]}
    if past:
        ranks = lexical.ranks_of(past)
        lex_rank.update((j, ranks[int(skill[j])]) for j in chosen if j >= n_lex and matched[j])
    return [FusedItem(id=ids[j], score=scores[j], lexical_rank=lex_rank.get(j, 0), vector_rank=vec_rank.get(j, 0),
                      vector_sim=cosines.get(j))
            for j in chosen]
