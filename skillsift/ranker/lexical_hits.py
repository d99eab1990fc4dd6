"""The lexical ranking as :class:`~skillsift.ranker.result.Hit` rows, built only as far as they are read."""

from __future__ import annotations

from collections.abc import Sequence

from .result import Hit


class LexicalHits:
    """Hits of ``lexical`` (a :class:`~skillsift.ranker.lexical.LexicalIndex`) over ``skills``."""

    def __init__(self, lexical, skills: Sequence):
        self.lexical = lexical
        self.skills = skills

    def of(self, ranked, query: str, subset, explain: bool) -> list[Hit]:
        """Hits for ``ranked`` (``(skill index, score)``, best first)."""
        hits = []
        skills, lexical = self.skills, self.lexical
        for rank, (i, score) in enumerate(ranked, start=1):
            skill = skills[i]
            expl = lexical.explain(query, i, subset) if explain else None
            hits.append(Hit(name=skill.name, score=score, description=skill.description, domain=skill.domain,
                            digest=skill.digest, lexical_rank=rank, explanation=expl))
        return hits

    def rank(self, query: str, subset=None, *, explain: bool = False, limit: int | None = None) -> list[Hit]:
        """The lexical ranking as hits (the first ``limit`` of it when given)."""
        return self.of(self.lexical.rank(query, subset, limit=limit), query, subset, explain)


class LexicalList:
    """The lexical ranking a non-lexical search reads, computed only as far as it is read.

    ``all()`` is every hit (what a degraded search returns); ``top(k)`` the first ``k``
    (what RRF and weighted fusion keep), without building hits for the rest.
    """

    def __init__(self, hits: LexicalHits, query: str, subset, explain: bool):
        self.hits, self.query, self.subset, self.explain = hits, query, subset, explain
        self._all: list[Hit] | None = None
        self._top: list[Hit] = []
        self._top_k = 0
        self._ranking: list[tuple[int, float]] | None = None

    def all(self) -> list[Hit]:
        if self._all is None:
            self._all = self.hits.rank(self.query, self.subset, explain=self.explain)
        return self._all

    def top(self, k: int) -> list[Hit]:
        if self._all is not None:
            return self._all[:k]
        if k > self._top_k:
            if self._ranking is not None:
                ranked = self._ranking[:k]
            else:
                ranked = self.hits.lexical.rank(self.query, self.subset, limit=k)
            self._top = self.hits.of(ranked, self.query, self.subset, self.explain)
            self._top_k = k
        return self._top[:k]

    def empty(self) -> bool:
        return not self.top(1)

    def ranking(self) -> list[tuple[int, float]]:
        """The complete ranking as ``(skill index, score)``, best first."""
        ranking = self._ranking
        if ranking is None:
            ranking = self._ranking = self.hits.lexical.rank(self.query, self.subset)
        return ranking

    def positions_of(self, skill_indexes, *, after: int = 0) -> dict[int, tuple[int, float]]:
        """``{skill index: (1-based lexical rank, score)}`` for those ranked past position ``after``."""
        wanted = set(skill_indexes)
        if not wanted:
            return {}
        ranking = self.ranking()
        return {i: (rank, score) for rank, (i, score) in enumerate(ranking[after:], start=after + 1)
                if i in wanted}
