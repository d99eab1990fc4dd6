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
pass over its terms' postings, not a loop over requests.  The build turns each distinct word into its
term once (:func:`document_terms`) and counts the (term, skill) pairs with numpy: at 20,000 requests,
what a one-shot search with known requests pays on its first query.  Evaluation leaves a case's own requests out
(:meth:`~skillsift.ranker.examples.ExampleRows.masked`, the rule of the request vectors): their terms
leave their skill's document, the statistics stay as built.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Sequence
from itertools import chain, count

from .model.fusion import request_words, request_words_weight
from .tokenize import term, tokenize

K1 = 1.2
B = 0.75


# ASCII letters lowercased, ASCII digits kept, every other ASCII byte a space; the bytes of other
# characters (0x80 and up in UTF-8) as they are
_ASCII_WORDS = bytes.maketrans(
    bytes(range(128)), bytes(b if chr(b).isalnum() else 32 for b in range(128)).lower())


def document_terms(documents: Sequence[str]):
    """``(term_ids, counts, vocab)``: the terms of each document in turn, as :func:`tokenize` gives them, as ids
    (intp, one array for all, document after document), how many each document holds, and the ids (term ->
    id, numbered in order of first occurrence).

    The text is cut where :func:`tokenize`'s words always end, at ASCII characters other than letters and
    digits, in UTF-8 bytes (one C pass per document); each distinct piece is turned into terms once: an ASCII
    piece is one word, lowercased already, so one :func:`term`; a piece holding other characters goes through
    :func:`tokenize` whole (its words never cross the cut).  Then each piece of the text is given its terms
    by array indexing, so the words of 20,000 requests are not looked up one by one in Python."""
    import numpy as np

    cut = [d.encode("utf-8", "surrogatepass").translate(_ASCII_WORDS).split() for d in documents]
    place: defaultdict[bytes, int] = defaultdict(count().__next__)  # distinct piece -> its number, as first met
    each = np.fromiter(map(place.__getitem__, chain.from_iterable(cut)), dtype=np.intp)
    vocab: dict[str, int] = {}
    first: list[int] = []  # per distinct piece: where its terms start in ``flat``
    flat: list[int] = []
    for piece in place:
        first.append(len(flat))
        if piece.isascii():
            found = term(piece.decode("ascii"))
            if found:
                flat.append(vocab.setdefault(found, len(vocab)))
        else:
            flat.extend(vocab.setdefault(t, len(vocab)) for t in tokenize(piece.decode("utf-8", "surrogatepass")))
    first.append(len(flat))
    bounds = np.asarray(first, dtype=np.intp)
    start, many = bounds[each], np.diff(bounds)[each]  # per piece of the text: its first term and how many
    total = np.cumsum(many)
    at = np.arange(int(total[-1]) if len(total) else 0, dtype=np.intp) + np.repeat(start - (total - many), many)
    ends = np.cumsum(np.fromiter(map(len, cut), dtype=np.intp, count=len(cut)))  # each document's last piece, + 1
    return np.asarray(flat, dtype=np.intp)[at], np.diff(np.r_[0, total][np.r_[0, ends]]), vocab


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
        held = sorted(self.requests_of)  # a skill's document: its requests' terms (a text per line)
        term_ids, pieces, self.vocab = document_terms(["\n".join(self.texts[r] for r in self.requests_of[o])
                                                       for o in held])
        skills = np.repeat(np.asarray(held, dtype=np.intp), pieces)
        self.length = np.bincount(skills, minlength=n_skills).astype(np.float64)
        # postings: (term, skill) pairs sorted by term then skill, each with its count
        pairs, counts = np.unique(term_ids * max(n_skills, 1) + skills, return_counts=True)
        post_term, self.post_skill = np.divmod(pairs, max(n_skills, 1))
        self.post_tf = counts.astype(np.float64)
        self.starts = np.searchsorted(post_term, np.arange(len(self.vocab) + 1))
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
    if lexical.coverage() >= 1.0:  # the skills' own top match holds every term: no excess, and no index to build
        return {}
    terms = lexical.hits.lexical.query_terms(query)
    first, covered = request_channel(ex.lexicon(len(search.skills)), terms, ex.masked(query, search.own_evidence),
                                     lexical.subset, search._name_ranks(), s.candidates)
    return request_words(first, request_words_weight(covered, lexical.coverage(), s.request_lexical_weight))
