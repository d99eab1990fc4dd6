"""The :class:`Ranker`: one object that answers queries over a catalog in any mode.

Lexical ranking is the default and the fallback of every other mode.  The corpus
statistics are built once per ranker (and once per distinct scope), so a query costs
time proportional to its matching postings.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from ..config import Config
from .lexical import LexicalIndex
from .result import Hit, SearchResult
from .vector import QueryCache

MODES = ("lexical", "hybrid", "vector")
# A ranker that answers one query (the CLI) indexes catalogs up to this size in pure Python.
ONE_SHOT_PYTHON_MAX_DOCS = 10_000
NO_INDEX = "no_index"


class Ranker:
    """Rank the skills of ``catalog`` for free-text queries.

    ``index`` and ``provider`` are optional seams: a vector index
    (``skillsift.index``) and an embedding provider.  When a non-lexical mode is
    requested without them the search falls back to lexical with a ``degraded``
    reason, never an error.
    """

    def __init__(self, catalog, config: Config | None = None, *, index=None, provider=None,
                 query_timeout_ms: int | None = None, index_problem: str = "", one_shot: bool = False):
        self.catalog = catalog
        self.config = config or Config(root=getattr(catalog, "root", "."))
        self.skills: Sequence = tuple(catalog.skills)
        self.lexical = LexicalIndex(self.skills, python_max_docs=ONE_SHOT_PYTHON_MAX_DOCS if one_shot else None)
        self.index = index if index is not None and len(index) > 0 else None
        self.index_problem = index_problem  # why no index is attached (for messages), "" if none
        self.provider = provider  # a Provider, an EmbedError (why none could be made), or None
        timeout = self.config.search.query_timeout_ms if query_timeout_ms is None else query_timeout_ms
        self.query_timeout_s = timeout / 1000.0 if timeout else None
        self.query_cache = QueryCache()
        self._prepared = None
        self._rows = None  # numpy view of _prepare(): each skill's row, STALE or MISSING
        self._usable_all = None  # skill indexes with a usable vector (no scope filter)
        self._usable_where = None  # skill index -> position in _usable_all, -1 without a vector
        self._stale_all = None  # names of the stale skills (no scope filter)
        self._by_skill = None  # name -> skill
        self._screen = None  # PlainScreen of the index matrix
        self._centred_matrix = None  # blend: the index matrix centred on the catalog mean
        self._centred_screen = None  # blend: CentredScreen over it
        self._name_order = None  # each skill's position in name order (ties)
        self._pool = None  # the worker thread that embeds queries under the timeout
        self._pool_lock = threading.Lock()

    @classmethod
    def open(cls, catalog, config: Config, *, mode: str | None = None, query_timeout_ms: int | None = None,
             provider=None, one_shot: bool = False):
        """A ranker with the configured index and provider attached when ``mode`` needs them.

        Nothing is loaded for lexical mode.  An index that does not load, or that was built
        for another provider/model/fields, is not attached (``index_problem`` says why), so
        a vector search degrades with ``no_index``.  A provider that cannot be made is kept
        as its error, so a vector search degrades with that error's reason.
        """
        mode = mode or config.search.mode
        if mode == "lexical":
            return cls(catalog, config, query_timeout_ms=query_timeout_ms, one_shot=one_shot)
        from .setup import attach

        index, problem, provider = attach(config, provider=provider)
        return cls(catalog, config, index=index, provider=provider, query_timeout_ms=query_timeout_ms,
                   index_problem=problem, one_shot=one_shot)

    # -- scope ---------------------------------------------------------------
    def scope(self, *, role=None, domain=None, tags: Iterable[str] = (), allow: Iterable[str] = (),
              deny: Iterable[str] = ()) -> list[int] | None:
        """Indexes of the admitted skills, or None when no filter applies (every skill)."""
        tags, allow, deny = tuple(tags or ()), tuple(allow or ()), tuple(deny or ())
        if not (role or domain or tags or allow or deny):
            return None
        from ..catalog import select

        return select(self.catalog, roles=self.config.roles, role=role, domain=domain, tags=tags,
                      allow=allow, deny=deny)

    # -- search --------------------------------------------------------------
    def search(self, query: str, limit: int | None = 5, mode: str | None = None, *, role=None, domain=None,
               tags: Iterable[str] = (), allow: Iterable[str] = (), deny: Iterable[str] = (),
               explain: bool = False) -> SearchResult:
        """Rank ``query``; ``limit=None`` returns the full ranking (what evaluation scores)."""
        mode = mode or self.config.search.mode
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} must be lexical, hybrid or vector")
        subset = self.scope(role=role, domain=domain, tags=tags, allow=allow, deny=deny)
        if mode == "lexical":
            hits = self.lexical_hits(query, subset, explain=explain, limit=limit)  # a prefix of the full ranking
            stopword_only = not hits and not self.lexical.query_terms(query)
            result = SearchResult(query=query, ranking="lexical", hits=tuple(hits), stopword_only=stopword_only)
        else:
            lexical = LexicalList(self, query, subset, explain)
            result = self._search_vectors(query, mode, subset, lexical, explain=explain)
            if not result.hits and lexical.empty() and not self.lexical.query_terms(query):
                result = _replace(result, stopword_only=True)
        if limit is not None and len(result.hits) > limit:
            result = _replace(result, hits=result.hits[:limit])
        return result

    def lexical_hits(self, query: str, subset=None, *, explain: bool = False, limit: int | None = None) -> list[Hit]:
        """The lexical ranking as hits (the first ``limit`` of it when given)."""
        return self._lexical_hits_of(self.lexical.rank(query, subset, limit=limit), query, subset, explain)

    def _lexical_hits_of(self, ranked, query: str, subset, explain: bool) -> list[Hit]:
        hits = []
        for rank, (i, score) in enumerate(ranked, start=1):
            skill = self.skills[i]
            expl = self.lexical.explain(query, i, subset) if explain else None
            hits.append(Hit(name=skill.name, score=score, description=skill.description, domain=skill.domain,
                            digest=skill.digest, lexical_rank=rank, explanation=expl))
        return hits

    def index_info(self) -> dict | None:
        """Model, dims, dtype, rows and stale/missing counts of the attached index; None without one."""
        if self.index is None:
            return None
        prep = self._prepare()
        info = dict(self.index.info())
        info["stale_items"] = sum(1 for p in prep if p == STALE)
        info["missing_items"] = sum(1 for p in prep if p == MISSING)
        return info

    # -- vectors -------------------------------------------------------------
    def _prepare(self) -> list[int]:
        """Per skill: its usable matrix row, or STALE / MISSING (once per ranker)."""
        if self._prepared is None:
            from ..embedtext import embedded_text, text_digest

            s = self.config.search
            prepared = []
            for skill in self.skills:
                row = self.index.row(skill.domain, skill.name)
                if row < 0:
                    prepared.append(MISSING)
                    continue
                digest = text_digest(embedded_text(skill, s.fields, s.index_body, s.body_chars))
                prepared.append(row if self.index.items[row].text_digest == digest else STALE)
            self._prepared = prepared
        return self._prepared

    def _centred(self):
        """The index matrix centred on the catalog's mean document vector (once per ranker)."""
        if self._centred_matrix is None:
            from .centring import centre

            rows = sorted({row for row in self._prepare() if row >= 0})
            self._centred_matrix = centre(self.index.matrix, rows)
        return self._centred_matrix

    def _rows_array(self):
        if self._rows is None:
            import numpy as np

            self._rows = np.asarray(self._prepare(), dtype=np.intp)
        return self._rows

    def _usable(self, subset):
        """Skill indexes in scope with a usable vector (numpy, scope order)."""
        import numpy as np

        rows = self._rows_array()
        if subset is None:
            if self._usable_all is None:
                self._usable_all = np.flatnonzero(rows >= 0)
            return self._usable_all
        scope = np.asarray(list(subset), dtype=np.intp)
        return scope[rows[scope] >= 0]

    def _positions_in(self, usable, subset):
        """Skill index -> position in ``usable`` (-1 when absent), as an array."""
        import numpy as np

        if subset is None and self._usable_where is not None:
            return self._usable_where
        where = np.full(len(self.skills), -1, dtype=np.intp)
        where[usable] = np.arange(len(usable))
        if subset is None:
            self._usable_where = where
        return where

    def _stale_names(self, subset) -> frozenset:
        import numpy as np

        rows = self._rows_array()
        if subset is None:
            if self._stale_all is None:
                self._stale_all = frozenset(self.skills[i].name for i in np.flatnonzero(rows == STALE))
            return self._stale_all
        scope = np.asarray(list(subset), dtype=np.intp)
        return frozenset(self.skills[i].name for i in scope[rows[scope] == STALE])

    def _name_ranks(self):
        """Each skill's position in name order: the tie-break of every vector ranking."""
        if self._name_order is None:
            import numpy as np

            order = sorted(range(len(self.skills)), key=lambda i: self.skills[i].name)
            ranks = np.empty(len(order), dtype=np.int64)
            ranks[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
            self._name_order = ranks
        return self._name_order

    def _plain(self):
        if self._screen is None:
            from .vector import PlainScreen

            self._screen = PlainScreen(self.index.matrix)
        return self._screen

    def _centred_plain(self):
        """The CentredScreen of the blend fusion (once per ranker)."""
        if self._centred_screen is None:
            from .centring import CENTRE_SHRINK
            from .vector import CentredScreen

            rows = sorted({row for row in self._prepare() if row >= 0})
            self._centred_screen = CentredScreen(self.index.matrix, self._centred(), rows, CENTRE_SHRINK,
                                                 self._plain().row_norm)
        return self._centred_screen

    def _names(self, skill_indexes) -> list[str]:
        skills = self.skills
        return [skills[i].name for i in skill_indexes.tolist()]

    def warm_queries(self, queries: Iterable[str]) -> int:
        """Embed the uncached ``queries`` in batches and cache them; returns how many were embedded.

        Evaluation calls this once so that N cases cost N/batch provider calls.  Any
        provider error is left for the per-query search to report as a degraded reason.
        """
        import numpy as np

        from ..embed.base import EmbedError
        from .vector import cap_query, normalise_query

        if self.index is None or self.provider is None or isinstance(self.provider, BaseException):
            return 0
        from ..embed.order import length_order

        todo = list(dict.fromkeys(k for k in map(cap_query, queries) if self.query_cache.get(k) is None))
        todo = [todo[i] for i in length_order(self.provider, todo)]  # each distinct query once, shortest first
        # Hold every warmed query: the per-mode passes that follow must not re-embed them.
        self.query_cache.size = max(self.query_cache.size, len(self.query_cache) + len(todo))
        step = getattr(self.provider, "max_batch", None) or self.config.search.batch_size or 64
        done = 0
        for start in range(0, len(todo), step):
            batch = todo[start:start + step]
            try:
                vecs = np.asarray(self.provider.embed(batch))
            except EmbedError:
                return done
            if vecs.ndim != 2 or vecs.shape[0] != len(batch) or vecs.shape[1] != self.index.dims:
                return done
            for key, vec in zip(batch, vecs, strict=True):
                if np.all(np.isfinite(vec)):
                    self.query_cache.put(key, normalise_query(vec))
                    done += 1
        return done

    def _embed_call(self, text: str):
        """Embed one query within the timeout; returns (vectors, elapsed ms); raises EmbedError.

        The call runs on one worker thread kept for the ranker's life: starting a thread
        per query cost about a millisecond, a fifth of the hybrid latency budget.  A call
        that times out is abandoned with its thread, and the next query gets a new one.
        """
        import concurrent.futures as cf
        import time

        from ..embed.base import EmbedTimeout

        start = time.perf_counter()
        if not self.query_timeout_s:
            vecs = self.provider.embed([text])
            return vecs, (time.perf_counter() - start) * 1000.0
        with self._pool_lock:
            if self._pool is None:
                self._pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="skillsift-query")
            pool = self._pool
        future = pool.submit(self.provider.embed, [text])
        try:
            vecs = future.result(timeout=self.query_timeout_s)
        except cf.TimeoutError:
            with self._pool_lock:
                if self._pool is pool:
                    self._pool = None
            pool.shutdown(wait=False)
            raise EmbedTimeout(f"the query embedding did not finish in {self.query_timeout_s * 1000:.0f} ms") from None
        return vecs, (time.perf_counter() - start) * 1000.0

    def _embed(self, query: str):
        """The normalised query vector and call facts; raises EmbedError."""
        import numpy as np

        from ..embed.base import ProviderUnavailable
        from .vector import cap_query, normalise_query

        key = cap_query(query)
        cached = self.query_cache.get(key)
        if cached is not None:
            return cached, False, 0, 0.0
        vecs, ms = self._embed_call(key)
        vecs = np.asarray(vecs)
        if vecs.ndim != 2 or vecs.shape[0] != 1:
            raise ProviderUnavailable("the provider returned the wrong number of vectors for the query")
        vec = vecs[0]
        if not np.all(np.isfinite(vec)):
            raise ProviderUnavailable("the query vector holds NaN or infinite values")
        if vec.shape[0] != self.index.dims:
            raise ProviderUnavailable(f"the query vector has {vec.shape[0]} dimensions, the index {self.index.dims}")
        vec = normalise_query(vec)
        self.query_cache.put(key, vec)
        return vec, True, (len(key.encode("utf-8")) + 2) // 3, ms

    def _search_vectors(self, query, mode, subset, lexical, *, explain=False) -> SearchResult:
        import numpy as np

        from ..embed.base import EmbedError
        from .fusion import rrf, sort_fused, vector_only, weighted
        from .pin import exact_pin
        from .rounding import SCORE_DIGITS, round_half_away

        s = self.config.search
        stale = self._stale_names(subset) if self.index is not None else frozenset()

        def fallback(reason, top_sim=0.0, problem=None):
            hits = tuple(_with_stale(h, stale) for h in lexical.all())
            notes = ()
            if problem is not None:  # say what failed and how to fix it, once, with the reason
                notes = (getattr(problem, "message", str(problem)),)
                if getattr(problem, "hint", ""):
                    notes += (f"hint: {problem.hint}",)
            return SearchResult(query=query, ranking="lexical", hits=hits, degraded=reason, top_sim=top_sim,
                                notes=notes)

        if self.index is None:
            return fallback(NO_INDEX)
        if self.provider is None or isinstance(self.provider, BaseException):
            return fallback(getattr(self.provider, "reason", "provider_unavailable"),
                            problem=self.provider if isinstance(self.provider, BaseException) else None)
        usable = self._usable(subset)
        if len(usable) == 0:
            return fallback(NO_INDEX)
        try:
            qvec, embedded, tokens, ms = self._embed(query)
        except EmbedError as exc:
            return fallback(exc.reason, problem=exc)
        # Exact similarities (reference §3.3), screened: see skillsift.ranker.vector.
        rows = self._rows_array()[usable]
        ties = self._name_ranks()[usable]
        screen = self._plain()
        products = screen.products(rows, qvec)
        plain = screen.scores(rows, qvec, ties, products)
        n_scope = len(subset) if subset is not None else len(self.skills)
        covered = len(usable) == n_scope
        min_sim = s.vector_min_sim
        keep, dropped = None, 0
        if min_sim > 0:
            keep = plain.at_least(min_sim)
            dropped = len(usable) - int(np.count_nonzero(keep))
        cand = s.candidates
        pinned = None
        top = None if mode == "hybrid" and s.fusion == "blend" else plain.top(cand, keep)
        # the best similarity before the threshold: the first kept item when one is kept
        best = plain.exact(top[:1])[0] if top is not None and len(top) else plain.highest()[1]
        top_sim = round_half_away(float(best), SCORE_DIGITS)
        if top is None:
            fused = self._blend(plain, products, usable, subset, rows, ties, qvec, keep, lexical)
            ranking = "hybrid"
            pinned = exact_pin(query, [f.id for f in fused])
        else:
            vector_ranked = list(zip(self._names(usable[top]), plain.exact(top).tolist(), strict=True))
            if mode == "vector" or (s.fusion == "auto" and covered):
                fused = vector_only(vector_ranked, candidates=cand)
                ranking = "vector"
                if mode == "hybrid":
                    pinned = exact_pin(query, [f.id for f in fused])
            elif s.fusion == "weighted":
                lexical_ranked = [(h.name, h.score) for h in lexical.top(cand)]  # what the cut keeps
                fused = weighted(lexical_ranked, vector_ranked, s.weight_lexical, s.weight_vector, candidates=cand)
                ranking = "hybrid"
                pinned = exact_pin(query, [f.id for f in fused])
            else:
                lexical_ranked = [(h.name, h.score) for h in lexical.top(cand)]
                fused = rrf(lexical_ranked, vector_ranked, s.rrf_k, s.weight_lexical, s.weight_vector,
                            candidates=cand)
                ranking = "hybrid"
                pinned = exact_pin(query, [f.id for f in fused])
        fused = sort_fused(fused, pinned)
        if self._by_skill is None:
            self._by_skill = {skill.name: skill for skill in self.skills}
        by_skill = self._by_skill
        by_name = {h.name: h for h in lexical.all()} if explain else {}
        hits = []
        for f in fused:
            skill = by_skill[f.id]
            lex = by_name.get(f.id)
            hits.append(Hit(name=f.id, score=f.score, description=skill.description, domain=skill.domain,
                            digest=skill.digest, lexical_rank=f.lexical_rank, vector_rank=f.vector_rank,
                            vector_sim=f.vector_sim, stale_vector=f.id in stale,
                            explanation=lex.explanation if (explain and lex is not None) else None))
        abstained = min_sim > 0 and dropped > 0 and not hits
        if mode == "vector" and not abstained and not covered:  # covered: no skill in scope lacks a vector
            prep = self._prepare()
            present = {h.name for h in hits}
            for h in lexical.all():
                i = self.catalog_position(h.name)
                if h.name not in present and prep[i] < 0:
                    hits.append(Hit(name=h.name, score=0.0, description=h.description, domain=h.domain,
                                    digest=h.digest, lexical_rank=h.lexical_rank, stale_vector=h.name in stale,
                                    explanation=h.explanation))
        return SearchResult(query=query, ranking=ranking, hits=tuple(hits), abstained=abstained, top_sim=top_sim,
                            embedded=embedded, embed_tokens=tokens, embed_ms=ms)

    def _blend(self, plain, products, usable, subset, rows, ties, qvec, keep, lexical):
        """The blend fusion over centred similarities, from the exact values it needs.

        :func:`~skillsift.ranker.fusion.blend` reads complete ranked lists; it gets the
        first ``candidates`` of each list, then the items of the other list's candidates
        further down (with their scores), and the least similar vector item (its
        similarity is the floor of items without one).  The ranks it reports for the
        items past the cut are then set to their positions in the complete lists.
        """
        from dataclasses import replace

        import numpy as np

        from .fusion import blend

        s = self.config.search
        cand = s.candidates
        centred = self._centred_plain().scores(rows, products, qvec, ties)
        top = centred.top(cand, keep)
        lexical.ranking()  # one lexical scoring: the candidates and the ranks past the cut come from it
        lex_top = lexical.top(cand)
        survivors = len(usable) if keep is None else int(np.count_nonzero(keep))
        chosen = top.tolist()
        extras: list[int] = []  # lexical candidates past the vector cut
        if survivors > len(chosen):  # the complete vector list goes on past the cut
            where = self._positions_in(usable, subset)
            seen = set(chosen)
            for h in lex_top:
                p = int(where[self.catalog_position(h.name)])
                if p >= 0 and (keep is None or keep[p]) and p not in seen:
                    extras.append(p)
                    seen.add(p)
            floor = centred.lowest(keep)[0]
            chosen += extras + ([floor] if floor not in seen else [])
        positions = np.asarray(chosen, dtype=np.intp)
        names = self._names(usable[positions])
        vector = list(zip(names, centred.exact(positions).tolist(), strict=True))
        cosines = dict(zip(names, plain.exact(positions).tolist(), strict=True))
        lexical_ranked = [(h.name, h.score) for h in lex_top]
        lex_ranks = {}
        if len(lex_top) == cand:  # the lexical list may go on past the cut: the vector candidates there
            lex_ranks = lexical.positions_of(usable[top].tolist(), after=cand)
            lexical_ranked += [(self.skills[i].name, score) for i, (_rank, score) in lex_ranks.items()]
        fused = blend(lexical_ranked, vector, s.weight_lexical, s.weight_vector, candidates=cand, cosines=cosines)
        vec_ranks = {}
        if extras:
            vec_ranks = dict(zip(self._names(usable[extras]), centred.ranks(extras, keep).tolist(), strict=True))
        lex_ranks = {self.skills[i].name: rank for i, (rank, _score) in lex_ranks.items()}
        if vec_ranks or lex_ranks:
            fused = [replace(f, vector_rank=vec_ranks.get(f.id, f.vector_rank),
                             lexical_rank=lex_ranks.get(f.id, f.lexical_rank))
                     if f.id in vec_ranks or f.id in lex_ranks else f for f in fused]
        return fused

    def catalog_position(self, name: str) -> int:
        if not hasattr(self, "_positions"):
            positions: dict[str, int] = {}
            for i, skill in enumerate(self.skills):
                positions.setdefault(skill.name, i)
            self._positions = positions
        return self._positions[name]


STALE = -1
MISSING = -2


def _with_stale(hit: Hit, stale: set) -> Hit:
    if hit.name in stale:
        from dataclasses import replace

        return replace(hit, stale_vector=True)
    return hit


def _replace(result: SearchResult, **changes) -> SearchResult:
    from dataclasses import replace

    return replace(result, **changes)


class LexicalList:
    """The lexical ranking a non-lexical search reads, computed only as far as it is read.

    ``all()`` is every hit (what a degraded search returns); ``top(k)`` the first ``k``
    (what RRF and weighted fusion keep), without building hits for the rest.
    """

    def __init__(self, ranker: Ranker, query: str, subset, explain: bool):
        self.ranker, self.query, self.subset, self.explain = ranker, query, subset, explain
        self._all: list[Hit] | None = None
        self._top: list[Hit] = []
        self._top_k = 0
        self._ranking = None

    def all(self) -> list[Hit]:
        if self._all is None:
            self._all = self.ranker.lexical_hits(self.query, self.subset, explain=self.explain)
        return self._all

    def top(self, k: int) -> list[Hit]:
        if self._all is not None:
            return self._all[:k]
        if k > self._top_k:
            if self._ranking is not None:
                ranked = self._ranking[:k]
            else:
                ranked = self.ranker.lexical.rank(self.query, self.subset, limit=k)
            self._top = self.ranker._lexical_hits_of(ranked, self.query, self.subset, self.explain)
            self._top_k = k
        return self._top[:k]

    def empty(self) -> bool:
        return not self.top(1)

    def ranking(self) -> list[tuple[int, float]]:
        """The complete ranking as ``(skill index, score)``, best first."""
        if self._ranking is None:
            self._ranking = self.ranker.lexical.rank(self.query, self.subset)
        return self._ranking

    def positions_of(self, skill_indexes, *, after: int = 0) -> dict[int, tuple[int, float]]:
        """``{skill index: (1-based lexical rank, score)}`` for those ranked past position ``after``."""
        wanted = set(skill_indexes)
        if not wanted:
            return {}
        ranking = self.ranking()
        return {i: (rank, score) for rank, (i, score) in enumerate(ranking[after:], start=after + 1)
                if i in wanted}
