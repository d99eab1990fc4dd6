"""BM25F lexical ranking over a skill catalog (README, "How the lexical ranker scores").

Four fields weighted name 3.0, triggers 2.5, keywords 2.0, description 1.0 (list
fields joined with single spaces); the body is never searched.  A document's score is
the float64 sum of its BM25F points (see :mod:`skillsift.ranker.scope`) in query-term
order, rounded to 6 decimals half away from zero; documents without a matching term
are left out; the order is score descending, then name, then catalog position.

The postings and statistics are built once; a query only adds up the precomputed
points of its terms' postings, so it costs time in proportion to those postings (a
limited query over a large catalog only those of the blocks of documents that can
reach its first hits: :mod:`skillsift.ranker.block_max`).
Short postings are summed in pure Python, long ones with numpy; small catalogs are
indexed and searched without importing numpy at all.  Every path, and
:meth:`LexicalIndex.explain`, performs the same float64 operations in the same order
as the reference, so scores agree to the last bit.
"""

from __future__ import annotations

import math
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence

from .block_max import MARGIN, PrunedTop
from .model import bm25f
from .postings import FIELDS, Postings, build_postings, field_text, release_freed_memory
from .result import LexicalExplanation, TermContribution
from .rounding import SCORE_DIGITS, round_half_away
from .scope import Scope
from .tokenize import tokenize

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the search path)
if TYPE_CHECKING:
    from numpy import ndarray

_FIELD_WEIGHT = dict(FIELDS)

# Large catalogs score queries whose terms have at most this many postings in total
# in pure Python (above it numpy's per-call overhead pays off); small catalogs, built
# without numpy, always do.
PYTHON_QUERY_MAX_POSTINGS = 96
# Catalogs up to this size add a query's points up with one bincount.
BINCOUNT_MAX_DOCS = 5_000
_SCOPE_CACHE_SIZE = 8


def _unique(terms: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(terms))


class LexicalIndex:
    """BM25F index of a document list (``Skill`` objects or anything with the four fields).

    ``rank`` returns ``(document index, score)`` pairs; ``explain`` breaks one
    document's score down per term.  Instances are safe to share between threads.
    """

    def __init__(self, docs: Sequence, *, python_max_docs: int | None = None, postings: Postings | None = None):
        """``python_max_docs``: index catalogs up to this size without numpy (default
        :data:`~skillsift.ranker.postings.PYTHON_BUILD_MAX_DOCS`).  A one-shot query over a
        few thousand skills is faster without numpy: its import costs more than it saves.
        ``postings``: the postings of ``docs`` built already (``build_postings`` gives them
        otherwise), e.g. from :mod:`skillsift.ranker.postings_cache`."""
        self._docs = tuple(docs)
        self.names = [d.name for d in self._docs]
        if postings is not None and postings.n_docs != len(self._docs):
            raise ValueError("postings built for another number of documents")
        self._postings = build_postings(self._docs, python_max_docs=python_max_docs) if postings is None else postings
        order = sorted(range(len(self.names)), key=self.names.__getitem__)
        self._name_rank = array("q", bytes(8 * len(order)))  # 8 bytes a skill (a list of ints takes 36)
        for position, d in enumerate(order):
            self._name_rank[d] = position
        self._name_rank_array: ndarray | None = None
        self._full = Scope(self._postings, None)
        if self._postings.csr is not None:
            if not self._full.empty:
                self._full.precompute()
            release_freed_memory()  # the vectorised build's scratch (docs/ranking-speed.md)
        self._scopes: OrderedDict[frozenset[int], Scope] = OrderedDict()
        self._lock = threading.Lock()
        self._acc = None  # numpy scratch: score accumulator and "seen" flags, zero between queries
        self._seen = None

    def __len__(self) -> int:
        return len(self._docs)

    # -- public API ---------------------------------------------------------------------------

    @staticmethod
    def query_terms(query: str) -> list[str]:
        """The query's terms: tokenized and stemmed, duplicates removed (first occurrence kept)."""
        return _unique(tokenize(query))

    def rank(
        self, query: str, subset: Iterable[int] | None = None, *, limit: int | None = None
    ) -> list[tuple[int, float]]:
        """Every matching document as ``(index, score)``, best first.

        ``subset`` restricts the scope, statistics included, to those document indexes
        (pass the same ``frozenset`` again to reuse its cached statistics); ``limit``
        keeps only the first ``limit`` hits of the same order.
        """
        scope = self._scope(subset)
        if scope.empty or (limit is not None and limit <= 0):
            return []
        df = self._postings.df
        plan = self._plan(query)
        if not plan:
            return []
        postings = sum(map(df, plan))
        if self._postings.csr is None or postings <= PYTHON_QUERY_MAX_POSTINGS:
            return self._rank_python(plan, scope, limit)
        blocks = scope.blocks
        if limit is not None and blocks is not None and blocks.worth(len(plan), postings, limit):
            pruned = self._rank_pruned(plan, scope, limit)
            if pruned is not None:
                return pruned.hits
        return self._rank_numpy(plan, scope, limit)

    def pruned_top(self, query: str, limit: int) -> PrunedTop | None:
        """The first ``limit`` hits of the whole catalog's ranking by block-max pruning, with
        the blocks and postings it scored; None when the index has no block maxima (a small
        or pure-Python one), the query matches nothing or the bounds do not prune it.
        :meth:`rank` takes this path for a large enough query (docs/ranking-speed.md); the
        hits are the same either way."""
        plan = self._plan(query)
        if self._full.blocks is None or not plan or limit <= 0:
            return None
        return self._rank_pruned(plan, self._full, limit)

    def scores_of(self, query: str, doc_indexes: Iterable[int],
                  subset: Iterable[int] | None = None) -> dict[int, float]:
        """``{document index: score}`` for those of ``doc_indexes`` that match (the doubles :meth:`rank` gives).

        Looks the documents up in the query terms' postings instead of scoring every
        match: the cost grows with the number of documents asked for, not with the postings.
        """
        import numpy as np

        scope = self._scope(subset)
        wanted = np.unique(np.fromiter(doc_indexes, dtype=np.int64))
        plan = self._plan(query)
        if scope.empty or not plan or not len(wanted):
            return {}
        total = np.zeros(len(wanted), dtype=np.float64)
        found_any = np.zeros(len(wanted), dtype=bool)
        for tid in plan:  # query-term order, the order rank() adds the points in
            docs, points = scope.term_arrays(tid)
            if not len(docs):
                continue
            at = np.minimum(np.searchsorted(docs, wanted), len(docs) - 1)
            found = docs[at] == wanted
            total[found] += points[at[found]]
            found_any |= found
        return dict(zip(wanted[found_any].tolist(), _round_positive(np, total[found_any]).tolist(), strict=True))

    def matches(self, query: str, subset: Iterable[int] | None = None):
        """``(documents, scores)`` of every match as numpy arrays in no particular order, the
        scores rounded as :meth:`rank` rounds them; None when nothing matches."""
        import numpy as np

        scope = self._scope(subset)
        plan = self._plan(query)
        if scope.empty or not plan:
            return None
        found = self._matches(plan, scope, np)
        return None if found is None else (found[0], _round_positive(np, found[1]))

    def first_of(self, matches, limit: int) -> list[tuple[int, float]]:
        """The first ``limit`` of ``matches`` (what :meth:`matches` returned) in rank order, as
        :meth:`rank` gives them: score desc, then name."""
        import numpy as np

        if matches is None or limit <= 0:
            return []
        docs, rounded = matches
        if limit < len(docs):
            kth = np.partition(rounded, len(rounded) - limit)[len(rounded) - limit]
            keep = rounded >= kth
            docs, rounded = docs[keep], rounded[keep]
        order = np.lexsort((self._name_ranks(np)[docs], -rounded))[:limit]
        return list(zip(docs[order].tolist(), rounded[order].tolist(), strict=True))

    def ranks_of(self, query: str, scores: dict[int, float], subset: Iterable[int] | None = None, *,
                 matches=None) -> dict[int, int]:
        """1-based positions in the complete ranking of the matching documents ``scores`` names.

        ``scores`` maps each to its score (from :meth:`scores_of`).  A position is one plus
        the matches that score higher or score the same and come first by name, counted
        over every match without sorting them.  ``matches`` is what :meth:`matches` returned
        for the same query and subset, when the caller has it.
        """
        import numpy as np

        if not scores:
            return {}
        if matches is None:
            matches = self.matches(query, subset)
        if matches is None:
            return {}
        docs, rounded = matches
        asked = list(scores)
        values = np.fromiter(scores.values(), dtype=np.float64, count=len(asked))
        names = self._name_ranks(np)
        mine = names[np.asarray(asked, dtype=np.intp)]
        ahead = np.zeros(len(asked), dtype=np.int64)
        step = max(1, (1 << 20) // max(1, len(docs)))  # asked documents per comparison block
        theirs = names[docs]
        for start in range(0, len(asked), step):
            column = values[start:start + step, None]
            first = (rounded > column) | ((rounded == column) & (theirs < mine[start:start + step, None]))
            ahead[start:start + step] = np.add.reduce(first, axis=1, dtype=np.int64)
        return {d: a + 1 for d, a in zip(asked, ahead.tolist(), strict=True)}

    def _plan(self, query: str) -> list[int]:
        vocab = self._postings.vocab
        return [tid for tid in map(vocab.get, self.query_terms(query)) if tid is not None]

    def _name_ranks(self, np):
        if self._name_rank_array is None:
            self._name_rank_array = np.frombuffer(self._name_rank, dtype=np.int64) if len(self._name_rank) else \
                np.zeros(0, dtype=np.int64)
        return self._name_rank_array

    def explain(self, query: str, doc_index: int, subset: Iterable[int] | None = None) -> LexicalExplanation:
        """Per-term breakdown of one document's score (same arithmetic as :meth:`rank`).

        Lists each query term the document contains with its idf, weighted tf, points
        and raw occurrences per field; ``score`` is the rounded sum of the points, in
        query-term order, so it equals the document's score in :meth:`rank`.
        """
        scope = self._scope(subset)
        if not 0 <= doc_index < len(self._docs):
            raise IndexError(f"document index {doc_index} is out of range (the index has {len(self._docs)})")
        if scope.members is not None and doc_index not in scope.members:
            raise ValueError(f"document {doc_index} ({self.names[doc_index]!r}) is not in the subset")
        length = self._postings.doc_len(doc_index)
        empty = LexicalExplanation(score=0.0, length=length, avg_length=scope.avg, n_docs=scope.n)
        if scope.empty:
            return empty
        doc = self._docs[doc_index]
        counts = [(name, Counter(tokenize(field_text(doc, name)))) for name, _ in FIELDS]
        norm = scope.norm(length)
        total = 0.0
        contributions = []
        for t in self.query_terms(query):
            occurrences = tuple((name, c[t]) for name, c in counts if c[t])
            if not occurrences:
                continue
            tf = math.fsum(count * _FIELD_WEIGHT[name] for name, count in occurrences)  # exact: halves
            idf = scope.idf(scope.df(self._postings.vocab[t]))
            points = bm25f.points(idf, tf, norm)  # the definition, in the order the fast paths compute it
            total += points
            contributions.append(TermContribution(term=t, idf=idf, tf=tf, points=points, fields=occurrences))
        if not contributions:
            return empty
        return LexicalExplanation(
            score=round_half_away(total, SCORE_DIGITS),
            length=length,
            avg_length=scope.avg,
            n_docs=scope.n,
            terms=tuple(contributions),
        )

    # -- scopes ---------------------------------------------------------------------------------

    def _scope(self, subset: Iterable[int] | None) -> Scope:
        if subset is None:
            return self._full
        members = frozenset(subset)
        with self._lock:
            scope = self._scopes.get(members)
            if scope is not None:
                self._scopes.move_to_end(members)
                return scope
        n = len(self._docs)
        bad = [d for d in members if not (isinstance(d, int) and 0 <= d < n)]
        if bad:
            shown = ", ".join(sorted(map(repr, bad))[:5])
            raise ValueError(f"subset holds {shown}, which are not document indexes 0..{n - 1}")
        scope = Scope(self._postings, members)
        with self._lock:
            self._scopes[members] = scope
            while len(self._scopes) > _SCOPE_CACHE_SIZE:
                self._scopes.popitem(last=False)
        return scope

    # -- scoring --------------------------------------------------------------------------------

    def _rank_python(self, plan: list[int], scope: Scope, limit: int | None) -> list[tuple[int, float]]:
        docs, points = scope.term_lists(plan[0])
        if len(plan) == 1:
            items = list(zip(docs, points, strict=True))
        else:
            acc = dict(zip(docs, points, strict=True))  # 0.0 + points == points
            for tid in plan[1:]:
                docs, points = scope.term_lists(tid)
                get = acc.get
                for d, p in zip(docs, points, strict=True):
                    acc[d] = get(d, 0.0) + p
            items = list(acc.items())
        items.sort(key=_second, reverse=True)  # raw scores; rounding keeps this order, up to ties
        if limit is not None and limit < len(items):
            # The first ``limit`` after rounding are among the raw prefix that ends once
            # the rounded score drops below the limit-th one.
            edge, end = _round6(items[limit - 1][1]), limit
            while end < len(items) and _round6(items[end][1]) == edge:
                end += 1
            del items[end:]
        hits = [(d, _round6(s)) for d, s in items]
        if any(map(_same_score, hits, hits[1:])):
            name_rank = self._name_rank
            hits.sort(key=lambda h: (-h[1], name_rank[h[0]]))
        return hits if limit is None else hits[:limit]

    def _matches(self, plan: list[int], scope: Scope, np):
        """(documents, raw scores) of every match, numpy arrays in no particular order; None if none."""
        parts = [scope.term_arrays(tid) for tid in plan]
        parts = [p for p in parts if len(p[0])]
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0]
        return self._accumulate(parts, np)

    def _rank_numpy(self, plan: list[int], scope: Scope, limit: int | None) -> list[tuple[int, float]]:
        import numpy as np

        matches = self._matches(plan, scope, np)
        if matches is None:
            return []
        docs, scores = matches
        return self._first_hits(np, docs, scores, limit)

    def _rank_pruned(self, plan: list[int], scope: Scope, limit: int) -> PrunedTop | None:
        import numpy as np

        assert scope.blocks is not None  # the caller checked
        return scope.blocks.top(plan, limit, lambda docs, scores, k: self._first_hits(np, docs, scores, k))

    def _first_hits(self, np, docs, scores, limit: int | None) -> list[tuple[int, float]]:
        """The hits of the matches ``docs`` with raw ``scores``, best first, the first ``limit`` when given."""
        if limit is not None and limit < len(docs):
            # Rounding moves a score by at most half a unit of the 6th decimal, so every
            # document that can reach the top ``limit`` after rounding scores within 1e-6
            # of the limit-th best raw score; keep those (a superset), then order exactly.
            kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]
            keep = scores >= kth - MARGIN
            docs, scores = docs[keep], scores[keep]
        rounded = _round_positive(np, scores)
        order = np.lexsort((self._name_ranks(np)[docs], -rounded))
        if limit is not None:
            order = order[:limit]
        return list(zip(docs[order].tolist(), rounded[order].tolist(), strict=True))

    def _accumulate(self, parts, np):
        """Each document's points summed in query-term order; returns (documents, sums).

        Adds into scratch arrays kept zero between queries (fresh ones per query would
        cost a page fault per 4 KiB on large catalogs).  The matching documents are
        collected term by term, or, when the postings cover a good part of the catalog,
        read off the "seen" flags in one pass.
        """
        n = len(self._docs)
        if n <= BINCOUNT_MAX_DOCS:
            # bincount adds each document's points in the order they come, so term by term
            # from 0.0, as below; a fresh array this small costs less than the bookkeeping.
            acc = np.bincount(np.concatenate([d for d, _ in parts]), np.concatenate([p for _, p in parts]),
                              minlength=n)
            union = np.flatnonzero(acc)  # points are positive: a match scores above 0
            return union, acc[union]
        dense = 8 * sum(len(d) for d, _ in parts) >= n
        with self._lock:
            if self._acc is None:
                self._acc = np.zeros(n, dtype=np.float64)
                self._seen = np.zeros(n, dtype=bool)
            acc, seen = self._acc, self._seen
            docs, points = parts[0]
            acc[docs] = points  # 0.0 + points == points
            seen[docs] = True
            fresh = [docs]
            for docs, points in parts[1:]:
                acc[docs] += points  # a term lists each document once: no index repeats
                if dense:
                    seen[docs] = True
                else:
                    new = docs[~seen[docs]]
                    seen[new] = True
                    fresh.append(new)
            union = np.flatnonzero(seen) if dense else np.concatenate(fresh)
            scores = acc[union]
            acc[union] = 0.0
            seen[union] = False
        return union, scores


def _second(item):
    return item[1]


def _same_score(a, b) -> bool:
    return a[1] == b[1]


def _round6(score: float) -> float:
    """``round_half_away(score, 6)`` for a positive score."""
    scaled = score * 1e6
    whole = math.floor(scaled)
    return (whole + 1 if scaled - whole >= 0.5 else whole) / 1e6


def _round_positive(np, scores):
    """:func:`round_half_away_array` to 6 decimals for positive scores (fewer passes)."""
    scaled = scores * 1e6
    whole = np.floor(scaled)
    whole += (scaled - whole) >= 0.5  # the difference is exact
    whole /= 1e6
    return whole
