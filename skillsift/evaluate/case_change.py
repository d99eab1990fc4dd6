"""Whether an edit made one case better or worse: the rule every proposal of ``eval --why`` is held to.

Pure functions over two scorings of the same case (:class:`~skillsift.evaluate.metrics.CaseResult`
or :class:`~skillsift.evaluate.metrics.NegativeResult`), before and after an edit.
"""

from __future__ import annotations

from .metrics import CaseResult, NegativeResult

_EPS = 1e-12


def rank_value(rank: int | None) -> float:
    return float("inf") if rank is None else float(rank)


def worse(before, after, skill: str, k: int) -> bool:
    """Whether a proposal for ``skill`` made this case worse.

    A positive case is worse when it was a hit and is not, when its first relevant skill
    ranked within the top ``k`` and now ranks lower, when its recall@k or nDCG@k drops, or
    when an avoided skill now ranks first.  (A first relevant rank past ``k`` that moves
    further down changes no per-case metric but the reciprocal rank; the proposals bound
    those moves by the mean reciprocal rank.)  A negative case (nothing expected)
    is worse when an avoided skill now ranks first, or when ``skill`` now ranks first and
    did not before (the edit makes it answer a query nothing should answer).
    """
    if isinstance(before, NegativeResult):
        return ((after.avoid_violated and not before.avoid_violated)
                or (after.top == skill and before.top != skill))
    return ((before.hit and not after.hit)
            or (before.rank is not None and before.rank <= k and rank_value(after.rank) > before.rank)
            or after.recall < before.recall - _EPS
            or after.ndcg < before.ndcg - _EPS
            or (after.avoid_violated and not before.avoid_violated))


def better(before: CaseResult, after: CaseResult) -> bool:
    return (rank_value(after.rank) < rank_value(before.rank) or after.recall > before.recall + _EPS
            or after.ndcg > before.ndcg + _EPS)
