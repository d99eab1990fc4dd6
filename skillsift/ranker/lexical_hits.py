"""The lexical ranking as :class:`~skillsift.ranker.result.Hit` rows, built only as far as they are read."""

from __future__ import annotations

from collections.abc import Sequence

from .postings import FIELD_NAMES
from .result import Hit
from .tokenize import tokenize

#: Catalogs up to this size answer ``LexicalList.top_scored``, ``scores_of`` and ``ranks_of``
#: from every match's score, summed once per query.
DENSE_MAX_SKILLS = 5_000


class LexicalHits:
    """Hits of ``lexical`` (a :class:`~skillsift.ranker.lexical.LexicalIndex`) over ``skills``."""

    def __init__(self, lexical, skills: Sequence):
        self.lexical = lexical
        self.skills = skills
        self._rows: list[tuple[str, str, str, str]] | None = None
        self._terms: dict[int, frozenset[str]] = {}  # skill index -> the terms of its ranked fields

    def terms(self, i: int) -> frozenset[str]:
        """The terms of skill ``i``'s ranked fields (name, triggers, keywords, description), made once."""
        found = self._terms.get(i)
        if found is None:
            skill = self.skills[i]
            words: set[str] = set()
            for field in FIELD_NAMES:
                value = getattr(skill, field, "") or ""
                words.update(tokenize(value if isinstance(value, str) else " ".join(value)))
            found = self._terms[i] = frozenset(words)
        return found

    def of(self, ranked, query: str, subset, explain: bool) -> list[Hit]:
        """Hits for ``ranked`` (``(skill index, score)``, best first)."""
        skills, lexical = self.skills, self.lexical
        if explain:
            hits = []
            for rank, (i, score) in enumerate(ranked, start=1):
                skill = skills[i]
                hits.append(Hit(skill.name, score, skill.description, skill.domain, skill.digest, rank,
                                explanation=lexical.explain(query, i, subset)))
            return hits
        # One tuple per skill holds what a hit copies (fewer memory reads than a skill's
        # attributes), passed positionally (half the cost of keywords).
        rows = self._rows
        if rows is None:
            rows = self._rows = [(s.name, s.description, s.domain, s.digest) for s in skills]
        out: list = []
        append = out.append
        for rank, (i, score) in enumerate(ranked, start=1):
            name, description, domain, digest = rows[i]
            append(Hit(name, score, description, domain, digest, rank))
        return out

    def rank(self, query: str, subset=None, *, explain: bool = False, limit: int | None = None) -> list[Hit]:
        """The lexical ranking as hits (the first ``limit`` of it when given)."""
        return self.of(self.lexical.rank(query, subset, limit=limit), query, subset, explain)


class LexicalList:
    """The lexical ranking a non-lexical search reads, computed only as far as it is read.

    ``all()`` is every hit (what a degraded search returns); ``top(k)`` the first ``k``
    (what RRF and weighted fusion keep), without building hits for the rest;
    ``top_scored(k)`` the same as ``(skill index, score)`` pairs, no hits (what blend reads);
    ``scores_of``/``scores_array`` and ``ranks_of`` answer for given skills (what blend
    needs past the cut) without ranking every match.
    """

    def __init__(self, hits: LexicalHits, query: str, subset, explain: bool):
        self.hits, self.query, self.subset, self.explain = hits, query, subset, explain
        self._all: list[Hit] | None = None
        self._top: list[Hit] = []
        self._top_k = 0
        self._ranked: list[tuple[int, float]] = []  # (skill index, score) of the hits built so far
        self._scored: list[tuple[int, float]] = []  # (skill index, score) of the first _scored_k, no hits
        self._scored_k = 0
        self._found: tuple | None = None  # (every match with its score, or None), once read
        self._dense = None  # each skill's score, -1 without a match (small catalogs)

    def all(self) -> list[Hit]:
        if self._all is None:
            self._ranked = self.hits.lexical.rank(self.query, self.subset)
            self._all = self.hits.of(self._ranked, self.query, self.subset, self.explain)
        return self._all

    def top(self, k: int) -> list[Hit]:
        if self._all is not None:
            return self._all[:k]
        if k > self._top_k:
            self._ranked = self.hits.lexical.rank(self.query, self.subset, limit=k)
            self._top = self.hits.of(self._ranked, self.query, self.subset, self.explain)
            self._top_k = k
        return self._top[:k]

    def top_scored(self, k: int) -> list[tuple[int, float]]:
        """``(skill index, score)`` of the first ``k`` hits, without building the hits (what blend reads)."""
        if self._all is not None or k <= self._top_k:
            return self._ranked[:k]
        if k > self._scored_k:
            if len(self.hits.skills) <= DENSE_MAX_SKILLS:  # every match is summed once and read thrice
                self._scored = self.hits.lexical.first_of(self._matches(), k)
            else:
                self._scored = self.hits.lexical.rank(self.query, self.subset, limit=k)
            self._scored_k = k
        return self._scored[:k]

    def empty(self) -> bool:
        return not self.top(1)

    def coverage(self) -> float:
        """The share of the query's terms that its first lexical hit's ranked fields hold (0.0 without
        a hit or a term): how much the lexical list can be trusted for this query (the zscore fusion)."""
        first = self.top_scored(1)
        terms = self.hits.lexical.query_terms(self.query)
        if not first or not terms:
            return 0.0
        held = self.hits.terms(first[0][0])
        return sum(1 for t in terms if t in held) / len(terms)

    def term_count(self) -> int:
        """The number of the query's distinct terms (the zscore fusion's lexical weight grows with it)."""
        return len(self.hits.lexical.query_terms(self.query))

    def scores_of(self, skill_indexes) -> dict[int, float]:
        """``{skill index: lexical score}`` for those of ``skill_indexes`` that match the query."""
        import numpy as np

        wanted = np.unique(np.fromiter(skill_indexes, dtype=np.int64))
        scores = self.scores_array(wanted)
        hit = scores >= 0
        return dict(zip(wanted[hit].tolist(), scores[hit].tolist(), strict=True))

    def scores_array(self, skill_indexes):
        """Each of ``skill_indexes`` (numpy ints) its lexical score, -1.0 where it does not match.

        A catalog of at most :data:`DENSE_MAX_SKILLS` skills reads them off every match's
        score, computed once per query (one sum over the postings); a larger one looks the
        skills up in the query terms' postings (docs/ranking-speed.md).
        """
        import numpy as np

        if len(self.hits.skills) > DENSE_MAX_SKILLS:
            found = self.hits.lexical.scores_of(self.query, skill_indexes.tolist(), self.subset)
            return np.fromiter((found.get(i, -1.0) for i in skill_indexes.tolist()), dtype=np.float64,
                               count=len(skill_indexes))
        if self._dense is None:
            self._dense = np.full(len(self.hits.skills), -1.0)  # -1: no match
            found = self._matches()
            if found is not None:
                self._dense[found[0]] = found[1]
        return self._dense[skill_indexes]

    def ranks_of(self, scores: dict[int, float]) -> dict[int, int]:
        """``{skill index: 1-based lexical rank}`` for matching skills with their ``scores``."""
        if not scores:
            return {}
        return self.hits.lexical.ranks_of(self.query, scores, self.subset, matches=self._matches())

    def _matches(self):
        """Every match of the query with its score (numpy arrays), computed once."""
        if self._found is None:
            self._found = (self.hits.lexical.matches(self.query, self.subset),)
        return self._found[0]
