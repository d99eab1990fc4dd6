"""Scoring: one case against a ranking, and the aggregate metrics of many cases.

Everything here is pure.  A ranking is the full list of skill names the ranker
returned, best first (not cut at k): the rank of a relevant skill counts wherever it is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..ranker.rounding import round_half_away  # noqa: F401  (re-exported for the evaluation modules)
from .cases import Case


def round4(value: float) -> float:
    return round_half_away(value, 4)


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one positive case.  ``rank`` is 1-based, None when not retrieved."""

    id: str
    query: str
    expected: tuple[str, ...]
    got: tuple[str, ...]  # the top k names
    rank: int | None
    hit: bool
    top1: float = 0.0
    recall: float = 0.0
    ndcg: float = 0.0
    graded: bool = False
    has_avoid: bool = False
    avoid_violated: bool = False
    role: str = ""
    tags: tuple[str, ...] = ()
    degraded: str = ""
    top_sim: float = 0.0

    @property
    def reciprocal(self) -> float:
        return 0.0 if self.rank is None else 1.0 / self.rank

    def to_dict(self) -> dict:
        out: dict = {"id": self.id}
        if self.query:
            out["query"] = self.query
        if self.role:
            out["role"] = self.role
        out["expected"] = list(self.expected)
        out["got"] = list(self.got)
        out["rank"] = self.rank
        out["hit"] = self.hit
        if self.avoid_violated:
            out["avoid_violated"] = True
        if self.degraded:
            out["degraded"] = self.degraded
        if self.tags:
            out["tags"] = list(self.tags)
        if self.top_sim:
            out["top_sim"] = self.top_sim
        return out


@dataclass(frozen=True)
class NegativeResult:
    """A case with nothing relevant: what ranked first, with the ranker's own score."""

    id: str
    top: str = ""
    top_score: float = 0.0
    avoid: tuple[str, ...] = ()
    avoid_violated: bool = False
    degraded: str = ""
    tags: tuple[str, ...] = ()
    top_sim: float = 0.0
    abstained: bool = False
    query: str = ""

    @property
    def has_avoid(self) -> bool:
        return bool(self.avoid)

    def to_dict(self) -> dict:
        out: dict = {"id": self.id}
        if self.top:
            out["top"] = self.top
        out["top_score"] = self.top_score
        if self.avoid:
            out["avoid"] = list(self.avoid)
        if self.avoid_violated:
            out["avoid_violated"] = True
        if self.degraded:
            out["degraded"] = self.degraded
        if self.tags:
            out["tags"] = list(self.tags)
        if self.top_sim:
            out["top_sim"] = self.top_sim
        if self.abstained:
            out["abstained"] = True
        return out


@dataclass(frozen=True)
class Metrics:
    """Aggregate scores of a set of positive cases, rounded to 4 decimals."""

    n: int = 0
    top1: float = 0.0
    recall_at_k: float = 0.0
    hit_at_k: float = 0.0
    mrr: float = 0.0
    ndcg_at_k: float | None = None  # only when a case is graded
    avoid_top1: float | None = None  # only when a case has an avoid list; lower is better
    abstain_rate: float | None = None  # non-lexical modes with negative cases

    def gated(self) -> dict[str, float]:
        """Values by gate name (hit, mrr, ndcg, recall, top1); ndcg only when present."""
        out = {"top1": self.top1, "recall": self.recall_at_k, "hit": self.hit_at_k, "mrr": self.mrr}
        if self.ndcg_at_k is not None:
            out["ndcg"] = self.ndcg_at_k
        return out

    def to_dict(self) -> dict:
        out: dict = {"n": self.n, "top1": self.top1, "recall_at_k": self.recall_at_k,
                     "hit_at_k": self.hit_at_k, "mrr": self.mrr}
        if self.ndcg_at_k is not None:
            out["ndcg_at_k"] = self.ndcg_at_k
        if self.avoid_top1 is not None:
            out["avoid_top1"] = self.avoid_top1
        if self.abstain_rate is not None:
            out["abstain_rate"] = self.abstain_rate
        return out


def ndcg(dcg: float, grades: Sequence[int], k: int) -> float:
    """``dcg`` normalised by the ideal order of ``grades`` (first k); 0 when the ideal is 0."""
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(grades, reverse=True)[:k]))
    return dcg / ideal if ideal else 0.0


def score_case(case: Case, ranked: Sequence[str], k: int, *, degraded: str = "",
               top_sim: float = 0.0) -> CaseResult:
    """Score a positive case against the full ranking ``ranked`` at cut-off ``k``."""
    want = {e.id: e.grade for e in case.expect}
    found = 0
    dcg = 0.0
    rank = None
    for pos, name in enumerate(ranked):
        grade = want.get(name)
        if grade is not None:
            if pos < k:
                found += 1
                dcg += grade / math.log2(pos + 2)
            if rank is None:
                rank = pos + 1
        elif rank is not None and pos >= k:
            break
    return CaseResult(
        id=case.id, query=case.query, role=case.role, expected=case.expect_ids, got=tuple(ranked[:k]),
        rank=rank, hit=rank is not None and rank <= k, top1=1.0 if rank == 1 else 0.0,
        recall=found / len(want) if want else 0.0, ndcg=ndcg(dcg, [e.grade for e in case.expect], k),
        graded=case.graded, has_avoid=bool(case.avoid),
        avoid_violated=bool(ranked) and ranked[0] in case.avoid, tags=case.tags, degraded=degraded,
        top_sim=top_sim,
    )


def score_negative(case: Case, ranked: Sequence[str], top_score: float = 0.0, *, degraded: str = "",
                   top_sim: float = 0.0, abstained: bool = False) -> NegativeResult:
    """What ranked first for a negative case; ``top_score`` is the first hit's score."""
    top = ranked[0] if ranked else ""
    return NegativeResult(
        id=case.id, query=case.query, top=top, top_score=top_score if ranked else 0.0, avoid=case.avoid,
        avoid_violated=bool(ranked) and top in case.avoid, degraded=degraded, tags=case.tags,
        top_sim=top_sim, abstained=abstained,
    )


def aggregate(cases: Sequence[CaseResult], negatives: Sequence[NegativeResult] = ()) -> Metrics:
    """Mean metrics over the positive cases; avoid_top1 over every case with an avoid list."""
    avoid_n = sum(1 for c in cases if c.has_avoid) + sum(1 for n in negatives if n.has_avoid)
    avoid_hit = sum(1 for c in cases if c.has_avoid and c.avoid_violated) + sum(
        1 for n in negatives if n.has_avoid and n.avoid_violated)
    avoid_top1 = round4(avoid_hit / avoid_n) if avoid_n else None
    n = len(cases)
    if not n:
        return Metrics(n=0, avoid_top1=avoid_top1)
    graded = any(c.graded for c in cases)
    return Metrics(
        n=n,
        top1=round4(math.fsum(c.top1 for c in cases) / n),
        recall_at_k=round4(math.fsum(c.recall for c in cases) / n),
        hit_at_k=round4(sum(1 for c in cases if c.hit) / n),
        mrr=round4(math.fsum(c.reciprocal for c in cases) / n),
        ndcg_at_k=round4(math.fsum(c.ndcg for c in cases) / n) if graded else None,
        avoid_top1=avoid_top1,
    )


def tag_metrics(cases: Sequence[CaseResult]) -> dict[str, Metrics]:
    """Metrics per tag over the positive cases carrying it; {} when no case has a tag."""
    by: dict[str, list[CaseResult]] = {}
    for case in cases:
        for tag in dict.fromkeys(case.tags):
            by.setdefault(tag, []).append(case)
    return {tag: aggregate(by[tag]) for tag in sorted(by)}


def abstain_rate(negatives: Sequence[NegativeResult]) -> float | None:
    """Share of negative cases answered with nothing (and not degraded); None without negatives."""
    if not negatives:
        return None
    return round4(sum(1 for n in negatives if not n.top and not n.degraded) / len(negatives))


def misses(cases: Sequence[CaseResult]) -> list[CaseResult]:
    return [c for c in cases if not c.hit]


def series(cases: Sequence[CaseResult]) -> dict[str, list[float]]:
    """top1, recall_at_k, mrr (and ndcg_at_k when a case is graded) per case."""
    out = {
        "top1": [c.top1 for c in cases],
        "recall_at_k": [c.recall for c in cases],
        "mrr": [c.reciprocal for c in cases],
    }
    if any(c.graded for c in cases):
        out["ndcg_at_k"] = [c.ndcg for c in cases]
    return out
