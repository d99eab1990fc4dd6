"""The :class:`Ranker`: one object that answers queries over a catalog in any mode.

A small facade.  Lexical ranking (:mod:`skillsift.ranker.lexical`) is the default and the
fallback of every other mode; the corpus statistics are built once per ranker, so a query
costs time proportional to its matching postings.  A vector or hybrid search embeds the
query (:mod:`skillsift.ranker.query_embedding`: the provider, the time limit, the cache)
and ranks it over the index (:mod:`skillsift.ranker.vector_ranking`); when it cannot, it
ranks lexically and says why (:mod:`skillsift.ranker.degraded`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..catalog.load import select
from ..config import MODE_WORDS, MODES, Config
from ..records import replace
from .degraded import NO_INDEX, Degraded
from .lexical import LexicalIndex
from .lexical_hits import LexicalHits, LexicalList
from .result import Hit, SearchResult

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the search path)
if TYPE_CHECKING:
    from .query_embedding import QueryEmbedder
    from .setup import Refresh
    from .vector_ranking import VectorSearch

# A ranker that answers one query (the CLI) indexes catalogs up to this size in pure Python.
ONE_SHOT_PYTHON_MAX_DOCS = 10_000

__all__ = ["MODES", "NO_INDEX", "Ranker"]


class Ranker:
    """Rank the skills of ``catalog`` for free-text queries.

    ``index`` and ``provider`` are optional seams: a vector index
    (``skillsift.index``) and an embedding provider (or the EmbedError why none could be
    made).  When a non-lexical mode is requested without them the search falls back to
    lexical with a ``degraded`` reason, never an error.  ``query_timeout_ms`` (default
    ``[search] query_timeout_ms``; 0 = none) bounds embedding one query.
    """

    def __init__(self, catalog, config: Config | None = None, *, index=None, provider=None,
                 query_timeout_ms: int | None = None, index_problem: str = "", one_shot: bool = False):
        self.catalog = catalog
        self.config = config or Config(root=getattr(catalog, "root", "."))
        self.skills: Sequence = tuple(catalog.skills)
        postings = None
        if one_shot:  # one query, then exit: the postings of an unchanged catalog come from the user cache
            from .postings_cache import cached_postings

            postings = cached_postings(self.config.root, self.skills, python_max_docs=ONE_SHOT_PYTHON_MAX_DOCS)
        self.lexical = LexicalIndex(self.skills, python_max_docs=ONE_SHOT_PYTHON_MAX_DOCS if one_shot else None,
                                    postings=postings)
        self.index = index if index is not None and len(index) > 0 else None
        self.index_problem = index_problem  # why no index is attached (for messages), "" if none
        self.index_refused: tuple = ()  # rows the loader refused (RefusedRow): not used, said by the doors
        timeout = self.config.search.query_timeout_ms if query_timeout_ms is None else query_timeout_ms
        self._provider, self._timeout_ms = provider, timeout
        self._embedder: QueryEmbedder | None = None  # made on first use: lexical mode never imports it
        self._hits = LexicalHits(self.lexical, self.skills)
        self._vectors: VectorSearch | None = None
        self.refresh: Refresh | None = None  # what Ranker.open(embed_stale=True) did with stale or missing vectors
        self._known: tuple[tuple[str, str], ...] = ()  # known requests (skill, text) the vectors rank with
        self._request_rows: dict = {}  # (skill, text digest) -> row of a known request embedded in memory
        self.examples_problem = ""  # why the known requests could not be read ("" when they could)
        self.rows_refused_now: tuple = ()  # rows refused by re-embedding at search time (checked_search)
        self.rows_refused_note = ""  # the warning of the rows the last checked_search refused

    @classmethod
    def open(cls, catalog, config: Config, *, mode: str | None = None, query_timeout_ms: int | None = None,
             provider=None, one_shot: bool = False, embed_stale: bool = False):
        """A ranker with the configured index and provider attached when ``mode`` needs them.

        Nothing is loaded for lexical mode.  An index that does not load, or that was built
        for another provider/model/fields, is not attached (``index_problem`` says why), so
        a vector search degrades with ``no_index``.  A provider that cannot be made is kept
        as its error, so a vector search degrades with that error's reason.  ``embed_stale``:
        skills whose vector is stale or missing are embedded in memory for this ranker when the
        provider runs in this process (:func:`skillsift.ranker.setup.refresh_stale`; ``refresh``
        says what was done, for the door to print).
        """
        mode = mode or config.search.mode
        if mode == "lexical":
            return cls(catalog, config, query_timeout_ms=query_timeout_ms, one_shot=one_shot)
        from . import setup  # the index, the providers, numpy: not for a lexical search

        index, problem, provider = setup.attach(config, provider=provider)
        refused = setup.refused_rows(config) if index is not None else ()
        refresh = (setup.refresh_stale(index, catalog.skills, config, provider) if embed_stale and index is not None
                   else None)
        if refresh is not None:
            index = refresh.index
        ranker = cls(catalog, config, index=index, provider=provider, query_timeout_ms=query_timeout_ms,
                     index_problem=problem, one_shot=one_shot)
        ranker.refresh = refresh
        ranker.index_refused = refused
        if ranker.index is not None and (ranker.index.example_items() or refresh is not None):
            ranker.examples_problem, pairs = setup.known_pairs(catalog, config)
            if refresh is not None and pairs:  # requests added since the index was built: as stale skills
                ranker.refresh = setup.refresh_requests(refresh, pairs, config, provider)
            if pairs:
                ranker.use_examples(pairs)
        return ranker

    def use_examples(self, requests) -> int:
        """Rank vector and hybrid searches with these known requests (``(skill, text)`` pairs).

        Only requests with a current row in the index count; returns how many do (0 without
        an index).  ``()`` turns them off (evaluation's folds set a subset per fold).
        """
        self._known = tuple(requests)
        vectors = self.vectors
        extra = {**(self.refresh.request_rows if self.refresh is not None else {}), **self._request_rows}
        return vectors.use_examples(self._known, extra=extra) if vectors is not None else 0

    def with_requests(self, requests, rows) -> Ranker:
        """A ranker like this one whose vector searches rank with the known ``requests`` instead.

        ``rows`` (``(skill, text digest) -> row``) holds the vectors of requests the index lacks,
        embedded in memory (:func:`skillsift.ranker.setup.request_rows`).  The catalog, the
        lexical index, the index, the provider and the query cache are shared, so a ranker per
        proposal to check costs no indexing.  A case's own text stays no evidence for it when
        this ranker's says so.
        """
        import copy

        other = copy.copy(self)
        other._request_rows = {**self._request_rows, **rows}
        if self._vectors is not None:
            other._vectors = copy.copy(self._vectors)  # its caches do not depend on the known requests
        other.use_examples(requests)
        return other

    # -- what is attached ----------------------------------------------------
    @property
    def provider(self):
        """The embedding provider, the EmbedError why none could be made, or None."""
        return self._provider

    @property
    def embedder(self) -> QueryEmbedder:
        """The query embedder (provider, time limit, query cache)."""
        if self._embedder is None:
            from .query_embedding import QueryEmbedder

            s = self.config.search
            self._embedder = QueryEmbedder(self._provider, self._timeout_ms, long_query=s.long_query,
                                           piece_words=s.long_query_words)
        return self._embedder

    @property
    def query_cache(self):
        return self.embedder.cache

    @query_cache.setter
    def query_cache(self, cache) -> None:
        self.embedder.cache = cache

    @property
    def vectors(self) -> VectorSearch | None:
        """The vector search over the attached index (None without one)."""
        if self._vectors is None and self.index is not None:
            from .vector_ranking import VectorSearch

            s = self.config.search
            self._vectors = VectorSearch(self.skills, self.index, fields=s.fields, index_body=s.index_body,
                                         body_chars=s.body_chars)
        return self._vectors

    def index_info(self) -> dict | None:
        """Model, dims, dtype, rows and stale/missing counts of the attached index; None without one."""
        vectors = self.vectors
        return vectors.info() if vectors is not None else None

    def prepare(self) -> Degraded | None:
        """Get a vector search ready now (load the local model): a server does it at start.

        Returns why a vector search would degrade (reason and notes), or None.  Without an
        index nothing is loaded.
        """
        if self.vectors is None:
            return Degraded(NO_INDEX)
        return self.embedder.load()

    # -- scope ---------------------------------------------------------------
    def scope(self, *, role=None, domain=None, tags: Iterable[str] = (), allow: Iterable[str] = (),
              deny: Iterable[str] = ()) -> list[int] | None:
        """Indexes of the admitted skills, or None when no filter applies (every skill)."""
        tags, allow, deny = tuple(tags or ()), tuple(allow or ()), tuple(deny or ())
        if not (role or domain or tags or allow or deny):
            return None

        return select(self.catalog, roles=self.config.roles, role=role, domain=domain, tags=tags,
                      allow=allow, deny=deny)

    # -- search --------------------------------------------------------------
    def search(self, query: str, limit: int | None = 5, mode: str | None = None, *, role=None, domain=None,
               tags: Iterable[str] = (), allow: Iterable[str] = (), deny: Iterable[str] = (),
               explain: bool = False) -> SearchResult:
        """Rank ``query``; ``limit=None`` returns the full ranking (what evaluation scores)."""
        mode = mode or self.config.search.mode
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} must be {MODE_WORDS}")
        subset = self.scope(role=role, domain=domain, tags=tags, allow=allow, deny=deny)
        if mode == "lexical":
            hits = self.lexical_hits(query, subset, explain=explain, limit=limit)  # a prefix of the full ranking
            stopword_only = not hits and not self.lexical.query_terms(query)
            result = SearchResult.lexical(query, tuple(hits), stopword_only)
        else:
            lexical = LexicalList(self._hits, query, subset, explain)
            result = self._search_vectors(query, mode, subset, lexical, explain, limit)
            if not result.hits and lexical.empty() and not self.lexical.query_terms(query):
                result = replace(result, stopword_only=True)
        if limit is not None and len(result.hits) > limit:
            result = replace(result, hits=result.hits[:limit])
        return result

    def checked_search(self, query: str, limit: int | None = 5, *, shown=None, **options) -> SearchResult:
        """:meth:`search`, the rows of the hits handed out re-embedded once per machine and refused when
        they are not their text's (:mod:`skillsift.ranker.row_check`): what ``search`` and the MCP server call."""
        result = self.search(query, limit=limit, **options)
        if result.ranking not in ("hybrid", "vector") or result.degraded:
            # no row of the index ranked: nothing to check, and the checker's numpy stays unloaded
            self.rows_refused_note = ""
            return result
        from .row_check import checked_search

        return checked_search(self, query, limit=limit, shown=shown, first=result, **options)

    def lexical_hits(self, query: str, subset=None, *, explain: bool = False, limit: int | None = None) -> list[Hit]:
        """The lexical ranking as hits (the first ``limit`` of it when given)."""
        return self._hits.rank(query, subset, explain=explain, limit=limit)

    def _search_vectors(self, query: str, mode: str, subset, lexical: LexicalList, explain: bool,
                        limit: int | None = None) -> SearchResult:
        from ..embed.base import EmbedError

        vectors = self.vectors
        stale = vectors.stale_names(subset) if vectors is not None else frozenset()
        if vectors is None:
            return _degraded(query, lexical, stale, Degraded(NO_INDEX))
        problem = self.embedder.unavailable()
        if problem is not None:
            return _degraded(query, lexical, stale, problem)
        usable = vectors.usable(subset)
        if len(usable) == 0:
            return _degraded(query, lexical, stale, Degraded(NO_INDEX))
        problem = self.embedder.load()  # outside the query's time limit
        if problem is not None:
            return _degraded(query, lexical, stale, problem)
        try:
            q = self.embedder.embed(query, vectors.dims)
        except EmbedError as exc:
            return _degraded(query, lexical, stale, Degraded.of(exc))
        return vectors.rank(query, q.vector, mode, subset, usable, lexical, self.config.search, stale=stale,
                            explain=explain, embedded=q.embedded, tokens=q.tokens, ms=q.ms, limit=limit)

    def warm_queries(self, queries: Iterable[str]) -> int:
        """Embed the uncached ``queries`` in batches and cache them; returns how many were embedded.

        Evaluation calls this once so that N cases cost N/batch provider calls.  Any
        provider error is left for the per-query search to report as a degraded reason.
        """
        if self.index is None:
            return 0
        step = getattr(self._provider, "max_batch", None) or self.config.search.batch_size or 64
        return self.embedder.warm(queries, self.index.dims, step)


def _degraded(query: str, lexical: LexicalList, stale: frozenset, why: Degraded) -> SearchResult:
    """The lexical ranking, reported as a search that could not use vectors, and why."""
    hits = tuple(replace(h, stale_vector=True) if h.name in stale else h for h in lexical.all())
    return SearchResult(query=query, ranking="lexical", hits=hits, degraded=why.reason, notes=why.notes)
