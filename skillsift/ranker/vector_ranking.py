"""Vector and hybrid ranking over an attached index, for one catalog.

:class:`VectorSearch` knows the skills, the index and what it derived from them once
(each skill's usable row, the screens of :mod:`skillsift.ranker.screens`, the centred
matrix of the blend fusion); :meth:`VectorSearch.rank` turns a normalised query vector and
the lexical list into a :class:`~skillsift.ranker.result.SearchResult`.  It does not embed,
time or degrade: the :class:`~skillsift.ranker.search.Ranker` facade does that and calls it
with a vector.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..catalog.embedtext import embedded_text, text_digest
from . import blend_exact, request_screen
from .blend_exact import SMALL_ROWS, ExactRows
from .blend_top import blend_first
from .centring import CENTRE_SHRINK, centre
from .channels import with_channels
from .examples import ExampleRows
from .model.fusion import (
    ZSCORE_FUSIONS,
    BlendRequest,
    blend_bonus_scale,
    rrf,
    sort_fused,
    vector_only,
    weighted,
    zscore_lexical_weight,
)
from .model.pin import PinIndex
from .request_lexicon import request_shares
from .request_screen import VectorQuery, rank_with_requests
from .result import Hit, SearchResult
from .rounding import SCORE_DIGITS, round_half_away
from .screens import CentredScreen, PlainScreen

STALE = -1  # the skill's text changed since its vector was made
SCORED = ("blend", *ZSCORE_FUSIONS)  # the fusions that score candidates by value (fusion.BlendRequest)
MISSING = -2  # the index holds no vector for the skill


class VectorSearch:
    """Vector ranking of ``skills`` over ``index``; ``fields``, ``index_body`` and ``body_chars``
    say what text the index embedded (a skill whose text differs has a stale vector)."""

    def __init__(self, skills: Sequence, index, *, fields, index_body: bool, body_chars: int):
        self.skills = skills
        self.index = index
        self._text = (fields, index_body, body_chars)
        self._prepared: list[int] | None = None
        self._rows = None  # numpy view of rows(): each skill's row, STALE or MISSING
        self._usable_all = None  # skill indexes with a usable vector (no scope filter)
        self._usable_where = None  # skill index -> position in _usable_all, -1 without a vector
        self._stale_all: frozenset | None = None  # names of the stale skills (no scope filter)
        self._by_skill: dict | None = None  # name -> skill
        self._positions: dict[str, int] | None = None  # name -> catalog position
        self._screen = None  # PlainScreen of the index matrix
        self._centred_matrix = None  # blend: the index matrix centred on the catalog mean
        self._centred_screen = None  # blend: CentredScreen over it
        self._name_order = None  # each skill's position in name order (ties)
        self._every_name: list[str] | None = None  # each skill's name, catalog order
        self._pin_index = None  # PinIndex of the names
        self._whole = None  # (rows, name ranks) of the usable skills of the whole catalog
        self._small = None  # ExactRows of the whole catalog's usable skills (a small catalog)
        self.examples: ExampleRows | None = None  # the known requests with a vector (None: none)
        self._requests = None  # their RequestScreen, made on first use
        # evaluation: normalised query -> skill positions whose requests of that text are the case's own
        # evidence, never used for it (requests of other skills stay: ranking as production does)
        self.own_evidence: dict[str, frozenset[int]] | None = None

    def use_examples(self, requests, *, extra=None) -> int:
        """Rank with the known ``requests`` (``(skill, text)`` pairs) that have a current row; how many do.

        A request's row is found by its text digest among the index's example rows of its
        skill, else in ``extra`` (``(skill, text digest) -> row`` embedded in memory for this
        run); requests of skills not served, or without a row, are left out.  No usable
        request: the screened paths rank as before.
        """

        rows = {(item.id, item.text_digest): row for row, item in self.index.example_items()}
        owners, texts, picked, vectors = [], [], [], []
        extra = extra or {}
        import numpy as np

        stored = np.asarray(self.index.matrix)
        for name, text in requests:
            key = (name, text_digest(text))
            row = rows.get(key)
            vector = None if row is not None else extra.get(key)
            if row is None and vector is None:
                continue
            try:
                owner = self.position(name)
            except KeyError:
                continue
            owners.append(owner)
            texts.append(text)
            picked.append(row)
            vectors.append(vector)
        self._requests = None
        if not picked:
            self.examples = None
            return 0
        if any(vector is not None for vector in vectors):  # some embedded in memory for this run
            matrix = np.stack([stored[row] if vector is None else vector for row, vector in zip(picked, vectors,
                                                                                               strict=True)])
            self.examples = ExampleRows.of(matrix.astype(stored.dtype, copy=False), owners, texts)
        else:  # every one a row of the index: gathered once, in the examples' order
            self.examples = ExampleRows.of(stored, owners, texts, rows=picked)
        return len(picked)

    @property
    def dims(self) -> int:
        return self.index.dims

    # -- what the index holds for the catalog ----------------------------------------------
    def rows(self) -> list[int]:
        """Per skill (catalog order): its usable matrix row, or STALE / MISSING (once)."""
        if self._prepared is None:
            fields, index_body, body_chars = self._text
            prepared = []
            for skill in self.skills:
                row = self.index.row(skill.domain, skill.name)
                if row < 0:
                    prepared.append(MISSING)
                    continue
                digest = text_digest(embedded_text(skill, fields, index_body, body_chars))
                prepared.append(row if self.index.items[row].text_digest == digest else STALE)
            self._prepared = prepared
        return self._prepared

    def info(self) -> dict:
        """Model, dims, dtype, rows and stale/missing counts of the index."""
        prep = self.rows()
        info = dict(self.index.info())
        info["stale_items"] = sum(1 for p in prep if p == STALE)
        info["missing_items"] = sum(1 for p in prep if p == MISSING)
        return info

    def usable(self, subset):
        """Skill indexes in scope with a usable vector (numpy, scope order)."""
        import numpy as np

        rows = self._rows_array()
        if subset is None:
            if self._usable_all is None:
                self._usable_all = np.flatnonzero(rows >= 0)
            return self._usable_all
        scope = np.asarray(list(subset), dtype=np.intp)
        return scope[rows[scope] >= 0]

    def stale_names(self, subset) -> frozenset:
        import numpy as np

        rows = self._rows_array()
        if subset is None:
            if self._stale_all is None:
                self._stale_all = frozenset(self.skills[i].name for i in np.flatnonzero(rows == STALE).tolist())
            return self._stale_all
        scope = np.asarray(list(subset), dtype=np.intp)
        return frozenset(self.skills[i].name for i in scope[rows[scope] == STALE])

    def position(self, name: str) -> int:
        """The catalog position of the (first) skill called ``name``."""
        if self._positions is None:
            positions: dict[str, int] = {}
            for i, skill in enumerate(self.skills):
                positions.setdefault(skill.name, i)
            self._positions = positions
        return self._positions[name]

    # -- ranking ---------------------------------------------------------------------------
    def rank(self, query: str, qvec, mode: str, subset, usable, lexical, settings, *, stale: frozenset,
             explain: bool = False, embedded: bool = False, tokens: int = 0, ms: float = 0.0,
             limit: int | None = None) -> SearchResult:
        """Rank ``query`` (normalised vector ``qvec``, or a long query's piece vectors) in ``mode``
        over the ``usable`` skills of ``subset``.

        ``lexical`` is the query's :class:`~skillsift.ranker.lexical_hits.LexicalList`,
        ``settings`` the ``[search]`` settings (fusion, weights, candidates, threshold).
        ``limit`` (the hits the caller keeps) lets blend settle ranks only for those.
        """
        s = settings
        n_scope = len(subset) if subset is not None else len(self.skills)
        covered = len(usable) == n_scope
        if self.examples is not None and s.example_weight > 0:
            return rank_with_requests(self, VectorQuery(query, qvec, mode, subset, usable, lexical, s, stale, explain,
                                                        embedded, tokens, ms, limit), covered)
        if mode == "hybrid" and s.fusion in SCORED and getattr(qvec, "ndim", 1) == 1 and len(usable) <= SMALL_ROWS:
            fused, top_sim, dropped = self._small_blend(query, qvec, subset, usable, lexical, s, limit)
            ranking = "hybrid"
        else:
            fused, ranking, top_sim, dropped = self._screened(query, qvec, mode, subset, usable, lexical, s,
                                                              covered, limit)
        result = self._result(query, mode, ranking, fused, top_sim, dropped, lexical, s, stale, covered,
                              explain=explain, embedded=embedded, tokens=tokens, ms=ms, limit=limit)
        return with_channels(self, result, query, qvec, lexical, s) if explain else result

    def _request_screen(self):
        """The :class:`~skillsift.ranker.request_screen.RequestScreen` of the known requests (made once)."""
        if self._requests is None:
            self._requests = request_screen.RequestScreen(self.examples, kernel=request_screen.KERNEL)
        return self._requests

    def _with_known(self, result: SearchResult, cos) -> SearchResult:
        """``result`` with each hit's closest known request (``--explain``); ``cos``: the query's
        cosine to every known request (:meth:`~skillsift.ranker.examples.ExampleRows.cosines`)."""
        from dataclasses import replace

        ex = self.examples
        assert ex is not None  # called only when ranking with known requests
        hits = tuple(replace(h, known_request=ex.closest(cos, self.position(h.name))) for h in result.hits)
        return replace(result, hits=hits)

    def _small_blend(self, query: str, qvec, subset, usable, lexical, s, limit):
        """Blend over a scope of at most SMALL_ROWS usable skills, every similarity exact
        (:mod:`skillsift.ranker.blend_exact`): ``(fused items, top_sim, dropped)``."""
        exact = self._exact_rows(usable, subset)
        plain, centred = exact.similarities(qvec)
        keep, dropped = None, 0
        if s.vector_min_sim > 0:
            keep = [v >= s.vector_min_sim for v in plain]
            dropped = len(keep) - sum(keep)
        request = self._blend_request(query, s, limit, lexical, reads=len(self.skills))  # the complete lexical list
        fused = blend_exact.blend_exact(request, plain, centred, keep, exact.ties, exact.skills, lexical,
                                        self._all_names())
        return fused, round_half_away(max(plain), SCORE_DIGITS), dropped

    def _blend_request(self, query: str, s, limit, lexical, *, reads: int | None = None):
        """The :class:`~skillsift.ranker.model.fusion.BlendRequest` of ``query`` under the ``[search]`` settings ``s``
        (``lexical``: the query's lexical list, whose coverage weighs the zscore fusion's lexical part; ``reads``: how
        many of its first hits the fusion reads, ``s.candidates`` unless given)."""

        weight = 0.0
        zscored = s.fusion in ZSCORE_FUSIONS
        if zscored:
            # the first hits the fusion reads next, ranked once: coverage's first hit is their first
            lexical.top_scored(s.candidates if reads is None else reads)
            weight = zscore_lexical_weight(lexical.coverage(), lexical.term_count(), s.weight_lexical, s.weight_vector)
        words = request_shares(self, query, s, lexical) if s.fusion == "zscore-mnz" else None
        return BlendRequest(query, s.candidates, blend_bonus_scale(s.weight_lexical, s.weight_vector), limit,
                            self._pins().pin_position, fusion="zscore" if zscored else "blend",
                            lexical_weight=weight, mnz=s.mnz_bonus, mnz_depth=s.mnz_depth, request_words=words)

    def _screened(self, query: str, qvec, mode: str, subset, usable, lexical, s, covered: bool, limit, *,
                  lists=None):
        """Any mode and fusion over screened similarities: ``(fused items, ranking, top_sim, dropped)``.

        ``lists``: ``(plain, centred())``, the screened scores to rank by instead of the similarities
        (the lifted ones of known requests); ``centred()`` is called for the blend and zscore fusions only.
        """
        import numpy as np


        # Exact similarities, screened: see skillsift.ranker.screens.
        rows, ties = self._rows_and_ties(usable, subset)
        if lists is None:
            plain, products = self._similarities(rows, qvec, ties)

            def centred_scores():
                return self._centred_similarities(rows, products, qvec, ties)
        else:
            plain, centred_scores = lists
        min_sim = s.vector_min_sim
        keep, dropped = None, 0
        if min_sim > 0:
            keep = plain.at_least(min_sim)
            dropped = len(usable) - int(np.count_nonzero(keep))
        cand = s.candidates
        pinned = None
        top = None if mode == "hybrid" and s.fusion in SCORED else plain.top(cand, keep)
        if top is None:

            centred = centred_scores()
            fused = blend_first(self._blend_request(query, s, limit, lexical), centred, plain, keep, lexical, usable,
                                self._positions_in(usable, subset), self._all_names())
            ranking = "hybrid"
        else:
            vector_ranked = list(zip(self._names(usable[top]), plain.exact(top).tolist(), strict=True))
            if mode == "vector" or (s.fusion == "auto" and covered):
                fused = vector_only(vector_ranked, candidates=cand)
                ranking = "vector"
                if mode == "hybrid":
                    pinned = self.pin(query, [f.id for f in fused])
            elif s.fusion == "weighted":
                lexical_ranked = [(h.name, h.score) for h in lexical.top(cand)]  # what the cut keeps
                fused = weighted(lexical_ranked, vector_ranked, s.weight_lexical, s.weight_vector, candidates=cand)
                ranking = "hybrid"
                pinned = self.pin(query, [f.id for f in fused])
            else:
                lexical_ranked = [(h.name, h.score) for h in lexical.top(cand)]
                fused = rrf(lexical_ranked, vector_ranked, s.rrf_k, s.weight_lexical, s.weight_vector,
                            candidates=cand)
                ranking = "hybrid"
                pinned = self.pin(query, [f.id for f in fused])
            fused = sort_fused(fused, pinned)
        # the best similarity before the threshold: the first kept item when one is kept
        first = top[:1] if top is not None and len(top) else plain.top(1)
        top_sim = float(plain.rounded(first, SCORE_DIGITS)[0])
        return fused, ranking, top_sim, dropped

    def _result(self, query: str, mode: str, ranking: str, fused, top_sim: float, dropped: int, lexical, s,
                stale: frozenset, covered: bool, *, explain: bool, embedded: bool, tokens: int, ms: float,
                limit: int | None) -> SearchResult:
        """The search result of the ``fused`` items (in result order): hits for the prefix the caller keeps."""
        min_sim = s.vector_min_sim
        if self._by_skill is None:
            self._by_skill = {skill.name: skill for skill in self.skills}
        by_skill = self._by_skill
        by_name = {h.name: h for h in lexical.all()} if explain else {}
        hits = []
        for f in fused[:limit] if limit is not None and limit > 0 else fused:  # the caller keeps a prefix
            skill = by_skill[f.id]
            lex = by_name.get(f.id)
            hits.append(Hit(name=f.id, score=f.score, description=skill.description, domain=skill.domain,
                            digest=skill.digest, lexical_rank=f.lexical_rank, vector_rank=f.vector_rank,
                            vector_sim=f.vector_sim, stale_vector=f.id in stale,
                            explanation=lex.explanation if (explain and lex is not None) else None))
        abstained = min_sim > 0 and dropped > 0 and not hits
        if mode == "vector" and not abstained and not covered:  # covered: no skill in scope lacks a vector
            prep = self.rows()
            present = {h.name for h in hits}
            for h in lexical.all():
                i = self.position(h.name)
                if h.name not in present and prep[i] < 0:
                    hits.append(Hit(name=h.name, score=0.0, description=h.description, domain=h.domain,
                                    digest=h.digest, lexical_rank=h.lexical_rank, stale_vector=h.name in stale,
                                    explanation=h.explanation))
        return SearchResult(query=query, ranking=ranking, hits=tuple(hits), abstained=abstained, top_sim=top_sim,
                            embedded=embedded, embed_tokens=tokens, embed_ms=ms)

    # -- similarities of one query vector, or of a long query's pieces -----------------------
    def _similarities(self, rows, qvec, ties):
        """(screened plain similarities of ``rows``, the float32 products they came from).

        ``qvec`` is one normalised vector, or a pieces x dims matrix for a long query: then
        each skill's similarity is its best piece's (docs/ranking-quality.md, "Long queries").
        """
        screen = self._plain()
        if getattr(qvec, "ndim", 1) == 2:
            products = screen.max_products(rows, qvec)
            return screen.max_scores(rows, qvec, ties, products), products
        products = screen.products(rows, qvec)
        return screen.scores(rows, qvec, ties, products), products

    def _centred_similarities(self, rows, products, qvec, ties):
        """The screened centred similarities of the blend (the best piece's for a long query)."""
        screen = self._centred_plain()
        if getattr(qvec, "ndim", 1) == 2:
            return screen.max_scores(rows, products, qvec, ties)
        return screen.scores(rows, products, qvec, ties)

    # -- derived once ----------------------------------------------------------------------
    def _rows_array(self):
        if self._rows is None:
            import numpy as np

            self._rows = np.asarray(self.rows(), dtype=np.intp)
        return self._rows

    def _of_scope(self, kept: str, subset, make):
        """``make()`` for the scope, remembered in the attribute ``kept`` when the scope is the whole catalog."""
        if subset is None:
            value = getattr(self, kept)
            if value is None:
                value = make()
                setattr(self, kept, value)
            return value
        return make()

    def _rows_and_ties(self, usable, subset):
        """The matrix rows and name ranks of the ``usable`` skills."""
        return self._of_scope("_whole", subset, lambda: (self._rows_array()[usable], self._name_ranks()[usable]))

    def _exact_rows(self, usable, subset):
        """The :class:`~skillsift.ranker.blend_exact.ExactRows` of the ``usable`` skills."""
        def make():
            rows, ties = self._rows_and_ties(usable, subset)
            return ExactRows(self.index.matrix, self._centred(), rows, skills=usable.tolist(), ties=ties.tolist())

        return self._of_scope("_small", subset, make)

    def _positions_in(self, usable, subset):
        """Skill index -> position in ``usable`` (-1 when absent), as an array."""
        def make():
            import numpy as np

            where = np.full(len(self.skills), -1, dtype=np.intp)
            where[usable] = np.arange(len(usable))
            return where

        return self._of_scope("_usable_where", subset, make)

    def _name_ranks(self):
        """Each skill's position in name order: the tie-break of every vector ranking."""
        if self._name_order is None:
            import numpy as np

            order = sorted(range(len(self.skills)), key=lambda i: self.skills[i].name)
            ranks = np.empty(len(order), dtype=np.int64)
            ranks[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
            self._name_order = ranks
        return self._name_order

    def _centred(self):
        """The index matrix centred on the catalog's mean document vector."""
        if self._centred_matrix is None:
            rows = sorted({row for row in self.rows() if row >= 0})
            self._centred_matrix = centre(self.index.matrix, rows)
        return self._centred_matrix

    def _plain(self):
        if self._screen is None:
            self._screen = PlainScreen(self.index.matrix)
        return self._screen

    def _centred_plain(self):
        """The CentredScreen of the blend fusion."""
        if self._centred_screen is None:
            rows = sorted({row for row in self.rows() if row >= 0})
            self._centred_screen = CentredScreen(self.index.matrix, self._centred(), rows, CENTRE_SHRINK,
                                                 self._plain().row_norm)
        return self._centred_screen

    def pin(self, query: str, ids) -> str | None:
        """The exact-id pin among ``ids`` (see :mod:`skillsift.ranker.model.pin`)."""
        return self._pins().pin(query, set(ids))

    def _pins(self):
        """The :class:`~skillsift.ranker.model.pin.PinIndex` of the catalog's names (made once)."""
        if self._pin_index is None:
            self._pin_index = PinIndex(self._all_names())
        return self._pin_index

    def _all_names(self) -> list[str]:
        if self._every_name is None:
            self._every_name = [skill.name for skill in self.skills]
        return self._every_name

    def _names(self, skill_indexes) -> list[str]:
        skills = self.skills
        return [skills[i].name for i in skill_indexes.tolist()]
