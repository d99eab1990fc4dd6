"""One side of a comparison: the per-case outcomes of an evaluation in its primary mode.

A side comes either from an evaluation run here (:func:`side_from_result`) or from a
result saved with ``skillsift eval --output`` (:func:`side_from_document`).  A saved result
holds, per case, the rank, the hit and the top k names, which is enough to recompute
top1, recall@k, hit@k and MRR exactly; nDCG needs the grades, so a saved side has none.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .metrics import round4

METRICS = ("top1", "recall_at_k", "hit_at_k", "mrr", "ndcg_at_k")


@dataclass(frozen=True)
class Outcome:
    """One positive case: where its first relevant skill ranked, and its per-case metric values."""

    id: str
    query: str
    expected: tuple[str, ...]
    rank: int | None
    hit: bool
    first: str = ""  # the skill that ranked first ("" when nothing did)
    values: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Side:
    """The outcomes of one run (base or head) in one mode at one k."""

    label: str
    mode: str
    k: int
    cases: tuple[Outcome, ...]
    n_negative: int = 0

    def metric_keys(self) -> list[str]:
        """The metrics every case of this side has a value for, in report order."""
        if not self.cases:
            return []
        return [m for m in METRICS if all(m in c.values for c in self.cases)]

    def metrics(self) -> dict[str, float]:
        """Mean of each metric over the cases, rounded to 4 decimals."""
        n = len(self.cases)
        return {m: round4(math.fsum(c.values[m] for c in self.cases) / n) for m in self.metric_keys()}

    def series(self, ids: Sequence[str] | None = None) -> dict[str, list[float]]:
        """Per-case values of each metric (all cases, or ``ids`` in that order)."""
        by_id = {c.id: c for c in self.cases}
        chosen = self.cases if ids is None else [by_id[i] for i in ids]
        return {m: [c.values[m] for c in chosen] for m in self.metric_keys()}


def _values(rank: int | None, hit: bool, recall: float, ndcg: float | None = None) -> dict[str, float]:
    out = {
        "top1": 1.0 if rank == 1 else 0.0,
        "recall_at_k": recall,
        "hit_at_k": 1.0 if hit else 0.0,
        "mrr": 0.0 if rank is None else 1.0 / rank,
    }
    if ndcg is not None:
        out["ndcg_at_k"] = ndcg
    return out


def side_from_result(result, label: str) -> Side:
    """The primary mode of an :class:`~skillsift.evaluate.run.EvalResult`."""
    primary = result.primary
    graded = any(c.graded for c in primary.cases)
    cases = tuple(
        Outcome(id=c.id, query=c.query, expected=tuple(c.expected), rank=c.rank, hit=c.hit,
                first=c.got[0] if c.got else "",
                values=_values(c.rank, c.hit, c.recall, c.ndcg if graded else None))
        for c in primary.cases
    )
    return Side(label=label, mode=result.mode, k=result.k, cases=cases, n_negative=len(primary.negatives))


def side_from_document(doc: Mapping, label: str) -> Side:
    """A saved ``search-eval.v1`` result (already checked by ``gates.check_baseline``)."""
    k = int(doc.get("k", 0) or 0)
    cases = []
    for item in doc.get("cases") or []:
        expected = tuple(str(e) for e in item.get("expected") or ())
        got = [str(g) for g in item.get("got") or ()]
        rank = item.get("rank")
        rank = rank if isinstance(rank, int) and not isinstance(rank, bool) and rank > 0 else None
        hit = bool(item.get("hit", False))
        want = set(expected)
        recall = len(want.intersection(got[:k])) / len(want) if want else 0.0
        cases.append(Outcome(id=str(item.get("id", "")), query=str(item.get("query", "")), expected=expected,
                             rank=rank, hit=hit, first=got[0] if got else "", values=_values(rank, hit, recall)))
    negatives = doc.get("negatives") or []
    return Side(label=label, mode=str(doc.get("mode") or "lexical"), k=k, cases=tuple(cases),
                n_negative=len(negatives) if isinstance(negatives, list) else 0)
