"""BM25 over the known requests' text: one document per skill, its known requests, with its own statistics.

The ``zscore-mnz`` fusion (:mod:`skillsift.ranker.model.fusion`, docs/ranking-quality.md, "Fusion
channels") reads the query's words in the requests a skill is known to answer, apart from the skills'
own fields: a request that shares the query's words where the skill's description does not counts,
and the requests' words never enter the skills' BM25F statistics (as a BM25F field they did, and
real skills lost).  Per skill document ``d`` and query term ``t`` (the lexical ranker's terms,
:meth:`~skillsift.ranker.lexical.LexicalIndex.query_terms`)::

    score(d) = sum over t in d:  idf(t) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(d) / avg))
    idf(t)   = log(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

with ``N`` the skills with some request text, ``avg`` their mean length in terms (``K1`` 1.2,
``B`` 0.75).  Built once per set of known requests (:class:`~skillsift.ranker.examples.ExampleRows`
keeps it), as postings: per term, the skills holding it and their counts, so a query costs one numpy
pass over its terms' postings, not a loop over requests.  Evaluation leaves a case's own requests out
(:meth:`~skillsift.ranker.examples.ExampleRows.masked`, the rule of the request vectors): their terms
leave their skill's document, the statistics stay as built.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence

from .model.fusion import request_words, request_words_weight
from .tokenize import tokenize

K1 = 1.2
B = 0.75


class RequestLexicon:
    """BM25 postings of the known requests: ``owner[r]`` is request ``r``'s skill (catalog position),
    ``texts[r]`` its text; ``n_skills`` the catalog's size."""

    def __init__(self, owner: Sequence[int], texts: Sequence[str], n_skills: int):
        import numpy as np

        self.n_skills = n_skills
        self.owner = [int(o) for o in owner]
        self.texts = list(texts)
        self.requests_of: dict[int, list[int]] = {}  # per skill with requests, theirs
        self._words: dict[int, frozenset[str]] = {}  # per skill asked for, its requests' terms (at most one per skill)
        for r, o in enumerate(self.owner):
            self.requests_of.setdefault(o, []).append(r)
        vocab: dict[str, int] = {}
        term_ids, skills, counts = [], [], []
        self.length = np.zeros(n_skills)
        for o in sorted(self.requests_of):  # a skill's document: its requests' terms (a text per line)
            held = Counter(tokenize("\n".join(self.texts[r] for r in self.requests_of[o])))
            self.length[o] = sum(held.values())
            for t, c in held.items():
                term_ids.append(vocab.setdefault(t, len(vocab)))
                skills.append(o)
                counts.append(c)
        self.vocab = vocab
        # postings: (term, skill) pairs sorted by term then skill, each with its count
        order = np.lexsort((np.asarray(skills, dtype=np.intp), np.asarray(term_ids, dtype=np.intp)))
        self.post_skill = np.asarray(skills, dtype=np.intp)[order]
        self.post_tf = np.asarray(counts, dtype=np.float64)[order]
        self.starts = np.searchsorted(np.asarray(term_ids, dtype=np.intp)[order], np.arange(len(vocab) + 1))
        self.df = np.diff(self.starts)
        held_any = self.length > 0
        self.documents = int(np.count_nonzero(held_any))
        self.average = float(self.length[held_any].mean()) if self.documents else 1.0
        self.norm = K1 * ((1 - B) + B * self.length / self.average)  # per skill: K1 (1 - B + B len / avg)

    def idf(self, term_id: int) -> float:
        df = int(self.df[term_id])
        return math.log(1 + (self.documents - df + 0.5) / (df + 0.5))

    def scores(self, terms: Sequence[str], masked: Collection[int] = ()):
        """Every skill's BM25 score for the query ``terms`` (distinct, in query order; float64, 0.0 for a
        skill without a match) with the requests ``masked`` left out of their skills' documents."""
        import numpy as np

        out = np.zeros(self.n_skills)
        ids = [self.vocab[t] for t in terms if t in self.vocab]
        for j in ids:
            a, b = int(self.starts[j]), int(self.starts[j + 1])
            skills, tf = self.post_skill[a:b], self.post_tf[a:b]
            out[skills] += self.idf(j) * tf * (K1 + 1) / (tf + self.norm[skills])
        for skill, kept in self._kept(masked).items():
            out[skill] = self._score_one(kept, terms)
        return out

    def _kept(self, masked: Collection[int]) -> dict[int, list[str]]:
        """Per skill some of whose requests are ``masked``, the terms of its other requests."""
        gone = set(masked)
        return {o: [t for r in self.requests_of[o] if r not in gone for t in tokenize(self.texts[r])]
                for o in sorted({self.owner[r] for r in gone})}

    def _score_one(self, kept: list[str], terms: Sequence[str]) -> float:
        """One skill's score from the terms of its kept requests, the statistics as built."""
        if not kept:
            return 0.0
        counts: dict[str, int] = {}
        for t in kept:
            counts[t] = counts.get(t, 0) + 1
        norm = K1 * ((1 - B) + B * len(kept) / self.average)
        total = 0.0
        for t in terms:
            tf = counts.get(t)
            if tf and t in self.vocab:
                total += self.idf(self.vocab[t]) * tf * (K1 + 1) / (tf + norm)
        return total

    def words(self, skill: int, masked: Collection[int] = ()) -> frozenset[str] | set[str]:
        """The terms of ``skill``'s requests, the ``masked`` ones left out."""
        if not masked:  # a live search's question, asked for the first match of each query: kept per skill
            found = self._words.get(skill)
            if found is None:
                found = self._words[skill] = frozenset(t for r in self.requests_of.get(skill, ())
                                                       for t in tokenize(self.texts[r]))
            return found
        gone = set(masked)
        return {t for r in self.requests_of.get(skill, ()) if r not in gone for t in tokenize(self.texts[r])}


def request_channel(lexicon: RequestLexicon, terms: Sequence[str], masked: Collection[int], scope, name_rank,
                    depth: int):
    """``(first, coverage)``: the first ``depth`` skills by BM25 over their requests (score > 0, best first, ties
    by name; only skills of ``scope`` when it is not None), each with its score, and the share of ``terms`` its
    first skill's requests hold (0.0 without a match)."""
    import numpy as np

    if not terms or depth < 1:
        return [], 0.0
    scores = lexicon.scores(terms, masked)
    if scope is not None:
        inside = np.zeros(len(scores), dtype=bool)
        inside[np.asarray(list(scope), dtype=np.intp)] = True
        scores = np.where(inside, scores, 0.0)
    matched = np.flatnonzero(scores > 0)
    if not len(matched):
        return [], 0.0
    order = matched[np.lexsort((name_rank[matched], -scores[matched]))][:depth]
    first = list(zip(order.tolist(), scores[order].tolist(), strict=True))
    words = lexicon.words(first[0][0], masked)
    return first, sum(1 for t in terms if t in words) / len(terms)


def request_shares(search, query: str, s, lexical) -> dict[int, float]:
    """zscore-mnz: what the known requests' lexical channel adds per skill index for ``query`` ({} without known
    requests ranking): ``s.request_lexical_weight`` times the excess of the query's terms the requests' top
    match holds over the skills' own (:func:`~skillsift.ranker.model.fusion.request_words_weight`), times the
    z-score of BM25 over the requests among their first ``s.candidates`` matches in scope.  ``search`` is the
    :class:`~skillsift.ranker.vector_ranking.VectorSearch` ranking, ``lexical`` the query's
    :class:`~skillsift.ranker.lexical_hits.LexicalList`.  A case's own requests are left out as they are for
    the request vectors (``own_evidence``)."""
    ex = search.examples
    if ex is None or s.example_weight <= 0 or s.request_lexical_weight <= 0:
        return {}
    terms = lexical.hits.lexical.query_terms(query)
    first, covered = request_channel(ex.lexicon(len(search.skills)), terms, ex.masked(query, search.own_evidence),
                                     lexical.subset, search._name_ranks(), s.candidates)
    return request_words(first, request_words_weight(covered, lexical.coverage(), s.request_lexical_weight))
