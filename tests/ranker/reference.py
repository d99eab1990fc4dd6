"""The oracles: the plain definitions the ranker's fast paths are held to, and the random worlds.

``blend`` and ``zscore``, the definitions of skillsift's fusions over complete ranked lists, live in
the ranker's specification (:mod:`skillsift.ranker.model.fusion`); here are the rest, which the
ranker never calls: ``coverage`` and ``query_terms`` (the zscore lexical weight's factors), ``cosine_list`` (the plain
definition of an exact vector list) and the oracle rankers built from them.
tests/ranker/test_fusion_differential.py compares every fast path with them, on random data
with fixed seeds and on real skills.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np

from skillsift.catalog.embedtext import embedded_text, text_digest
from skillsift.catalog.load import catalog_from_skills
from skillsift.catalog.skill import Skill
from skillsift.config import Config, SearchConfig
from skillsift.index.manifest import ManifestItem
from skillsift.index.store import new_index
from skillsift.ranker.centring import centre
from skillsift.ranker.model.fusion import blend, zscore
from skillsift.ranker.result import Hit, SearchResult
from skillsift.ranker.rounding import SCORE_DIGITS, round_half_away
from skillsift.ranker.screens import exact_dots
from skillsift.ranker.search import NO_INDEX, Ranker
from skillsift.ranker.vector_ranking import STALE


def query_terms(query: str) -> list[str]:
    """The query's distinct terms (their count scales the zscore weight)."""
    from skillsift.ranker.lexical import LexicalIndex

    return LexicalIndex.query_terms(query)


def coverage(query: str, skill) -> float:
    """The share of the query's terms found in ``skill``'s ranked fields (the zscore weight's factor)."""
    from skillsift.ranker.lexical import LexicalIndex
    from skillsift.ranker.tokenize import tokenize

    terms = LexicalIndex.query_terms(query)
    words = set()
    for field in ("name", "triggers", "keywords", "description"):
        value = getattr(skill, field) or ""
        words.update(tokenize(value if isinstance(value, str) else " ".join(value)))
    return sum(t in words for t in terms) / len(terms) if terms else 0.0


def request_bm25(requests: dict[str, list[str]], terms: list[str]) -> dict[str, float]:
    """BM25 (k1 1.2, b 0.75) of the query ``terms`` over one document per skill, the text of its known
    ``requests`` (skill name -> texts), written out plainly: the definition
    :mod:`skillsift.ranker.request_lexicon` computes over postings.  Skills without a match are left out."""
    import math
    from collections import Counter

    from skillsift.ranker.tokenize import tokenize

    tf = {name: Counter(t for text in texts for t in tokenize(text)) for name, texts in requests.items()}
    length = {name: sum(c.values()) for name, c in tf.items()}
    held = [name for name in tf if length[name] > 0]
    if not held:
        return {}
    average = sum(length[name] for name in held) / len(held)
    df = Counter(t for name in held for t in tf[name])
    out = {}
    for name in held:
        norm = 1.2 * ((1 - 0.75) + 0.75 * length[name] / average)
        total = 0.0
        for t in terms:
            x = tf[name].get(t, 0)
            if x:
                total += math.log(1 + (len(held) - df[t] + 0.5) / (df[t] + 0.5)) * x * (1.2 + 1) / (x + norm)
        if total > 0:
            out[name] = total
    return out


def request_words_of(requests: dict[str, list[str]], query: str, skills, lexical, s) -> dict[str, float]:
    """zscore-mnz's requests' lexical share per skill name, from :func:`request_bm25`: the first
    ``s.candidates`` matches (score desc, name), z-scored, times ``s.request_lexical_weight`` times the
    excess of the query's terms the first match's requests hold over those the top lexical match holds."""
    from skillsift.ranker.model.fusion import request_words, request_words_weight
    from skillsift.ranker.tokenize import tokenize

    terms = query_terms(query)
    scores = request_bm25(requests, terms)
    first = sorted(scores.items(), key=lambda t: (-t[1], t[0]))[:s.candidates]
    if not first or not terms:
        return {}
    words = {t for text in requests[first[0][0]] for t in tokenize(text)}
    held = sum(1 for t in terms if t in words) / len(terms)
    share = coverage(query, next(k for k in skills if k.name == lexical[0][0])) if lexical else 0.0
    weight = request_words_weight(held, share, s.request_lexical_weight)
    return request_words(first, weight)


def cosine_list(matrix, rows, ids, query_vec) -> list[tuple[int, float]]:
    """Score items by their exact similarity with the query (see :func:`exact_dots`).

    ``rows[i]`` is the matrix row of item ``i`` (items without a usable vector are not
    passed); returns (item position in ``rows``, similarity) for every item, sorted by
    similarity desc, then id asc.  The ranker does not use this (it screens, see
    :class:`~skillsift.ranker.screens.ScreenedScores`); it is the plain definition, for small inputs.
    """
    if len(rows) == 0:
        return []
    sims = exact_dots(matrix, rows, query_vec).tolist()
    order = sorted(range(len(rows)), key=lambda k: (-sims[k], ids[k]))
    return [(k, sims[k]) for k in order]


VOCAB = ("deploy", "refund", "review", "schema", "invoice", "incident", "rollback", "audit", "cache", "token",
         "migrate", "release", "payment", "alert", "docs")


# -- the oracle -------------------------------------------------------------------------------------


def _dots(matrix_rows: np.ndarray, q: np.ndarray, how: str) -> np.ndarray:
    a = matrix_rows.astype(np.float64)
    q64 = np.asarray(q, dtype=np.float64)
    if how == "blas":
        return a @ q64
    return np.cumsum(a * q64, axis=1)[:, -1] if len(a) else np.zeros(0)


class OracleRanker:
    """The previous implementation: every usable skill scored and sorted, complete lists fused.

    Built from public parts only: the index, the provider, the embedded-text digests and
    the lexical ranking a lexical-mode :class:`Ranker` returns.
    """

    dots = "sequential"

    def __init__(self, catalog, config, *, index, provider):
        self.config, self.index, self.provider = config, index, provider
        self.skills = tuple(catalog.skills)
        self.lexical = Ranker(catalog, config)  # lexical mode only: the complete lexical hit list
        self._prepared: dict = {}
        self.positions = {}
        for i, skill in enumerate(self.skills):
            self.positions.setdefault(skill.name, i)

    def search(self, query, limit=5, mode=None, *, role=None, explain=False) -> SearchResult:
        mode = mode or self.config.search.mode
        self.lexical.config = self.config
        lex = self.lexical.search(query, limit=None, mode="lexical", role=role, explain=explain)
        subset = self.lexical.scope(role=role)
        result = self._search_vectors(query, mode, subset, list(lex.hits), explain=explain)
        if not result.hits and lex.stopword_only:
            result = replace(result, stopword_only=True)
        if limit is not None:
            result = replace(result, hits=result.hits[:limit])
        return result

    def _rows(self):
        s = self.config.search
        key = (s.fields, s.index_body, s.body_chars)
        if key in self._prepared:
            return self._prepared[key]
        prep = self._prepared[key] = []
        for skill in self.skills:
            row = self.index.row(skill.domain, skill.name)
            digest = text_digest(embedded_text(skill, s.fields, s.index_body, s.body_chars))
            prep.append(-2 if row < 0 else row if self.index.items[row].text_digest == digest else STALE)
        return prep

    def _search_vectors(self, query, mode, subset, lexical, *, explain=False) -> SearchResult:
        from skillsift.ranker.model.fusion import rrf, sort_fused, vector_only, weighted
        from skillsift.ranker.model.pin import exact_pin
        from skillsift.ranker.screens import cap_query, normalise_query

        s = self.config.search
        prep = self._rows()
        scope = range(len(self.skills)) if subset is None else subset
        stale = {self.skills[i].name for i in scope if prep[i] == STALE}
        usable = [i for i in scope if prep[i] >= 0]
        if not usable:
            hits = tuple(replace(h, stale_vector=True) if h.name in stale else h for h in lexical)
            return SearchResult(query=query, ranking="lexical", hits=hits, degraded=NO_INDEX)
        qvec = normalise_query(np.asarray(self.provider.embed([cap_query(query)]))[0])
        embedded, tokens, ms = False, 0, 0.0  # the ranker compared with was warmed: a cached vector
        ids = [self.skills[i].name for i in usable]
        rows = [prep[i] for i in usable]
        plain = np.clip(_dots(self.index.matrix[rows], qvec, self.dots), -1.0, 1.0)
        if mode == "hybrid" and s.fusion in ("blend", "zscore", "zscore-mnz"):
            centred_matrix = centre(self.index.matrix, sorted({row for row in prep if row >= 0}))
            sims = np.clip(_dots(centred_matrix[rows], qvec, self.dots), -1.0, 1.0)
            order = sorted(range(len(rows)), key=lambda k: (-sims[k], ids[k]))
            centred = [(k, float(sims[k])) for k in order]
            scored = [(k, float(plain[k])) for k in range(len(rows))]
        else:
            scored = sorted(((k, float(plain[k])) for k in range(len(rows))), key=lambda t: (-t[1], ids[t[0]]))
        covered = len(scored) == (len(scope) if subset is not None else len(self.skills))
        top_sim = round_half_away(max(sim for _, sim in scored), SCORE_DIGITS) if scored else 0.0
        min_sim = s.vector_min_sim
        dropped = 0
        if min_sim > 0:
            kept = [(k, sim) for k, sim in scored if sim >= min_sim]
            dropped = len(scored) - len(kept)
            scored = kept
        vector_ranked = [(ids[k], sim) for k, sim in scored]
        lexical_ranked = [(h.name, h.score) for h in lexical]
        cand = s.candidates
        by_name = {h.name: h for h in lexical}
        pinned = None
        if mode == "vector" or (s.fusion == "auto" and covered):
            fused = vector_only(vector_ranked, candidates=cand)
            ranking = "vector"
            if mode == "hybrid":
                pinned = exact_pin(query, [f.id for f in fused])
        elif s.fusion in ("zscore", "zscore-mnz"):
            from skillsift.ranker.model.fusion import zscore_lexical_weight

            surviving = {name for name, _ in vector_ranked}
            ranked = [(ids[k], sim) for k, sim in centred if ids[k] in surviving]
            share = coverage(query, self.skills[self.positions[lexical[0].name]]) if lexical else 0.0
            fused = zscore(lexical_ranked, ranked, zscore_lexical_weight(share, len(query_terms(query)),
                                                                         s.weight_lexical, s.weight_vector),
                           candidates=cand, cosines=dict(vector_ranked), mnz=s.mnz_bonus, mnz_depth=s.mnz_depth,
                           words={} if s.fusion == "zscore-mnz" else None)  # no known requests here
            ranking = "hybrid"
            pinned = exact_pin(query, [f.id for f in fused])
        elif s.fusion == "blend":
            surviving = {name for name, _ in vector_ranked}
            ranked = [(ids[k], sim) for k, sim in centred if ids[k] in surviving]
            fused = blend(lexical_ranked, ranked, s.weight_lexical, s.weight_vector, candidates=cand,
                          cosines=dict(vector_ranked))
            ranking = "hybrid"
            pinned = exact_pin(query, [f.id for f in fused])
        elif s.fusion == "weighted":
            fused = weighted(lexical_ranked, vector_ranked, s.weight_lexical, s.weight_vector, candidates=cand)
            ranking = "hybrid"
            pinned = exact_pin(query, [f.id for f in fused])
        else:
            fused = rrf(lexical_ranked, vector_ranked, s.rrf_k, s.weight_lexical, s.weight_vector, candidates=cand)
            ranking = "hybrid"
            pinned = exact_pin(query, [f.id for f in fused])
        fused = sort_fused(fused, pinned)
        by_skill = {skill.name: skill for skill in self.skills}
        hits = []
        for f in fused:
            skill = by_skill[f.id]
            lex = by_name.get(f.id)
            hits.append(Hit(name=f.id, score=f.score, description=skill.description, domain=skill.domain,
                            digest=skill.digest, lexical_rank=f.lexical_rank, vector_rank=f.vector_rank,
                            vector_sim=f.vector_sim, stale_vector=f.id in stale,
                            explanation=lex.explanation if (explain and lex is not None) else None))
        abstained = min_sim > 0 and dropped > 0 and not hits
        if mode == "vector" and not abstained:
            present = {h.name for h in hits}
            for h in lexical:
                i = self.positions[h.name]
                if h.name not in present and prep[i] < 0:
                    hits.append(Hit(name=h.name, score=0.0, description=h.description, domain=h.domain,
                                    digest=h.digest, lexical_rank=h.lexical_rank, stale_vector=h.name in stale,
                                    explanation=h.explanation))
        return SearchResult(query=query, ranking=ranking, hits=tuple(hits), abstained=abstained, top_sim=top_sim,
                            embedded=embedded, embed_tokens=tokens, embed_ms=ms)


class BlasOracle(OracleRanker):
    dots = "blas"


# -- random worlds ----------------------------------------------------------------------------------


class Vectors:
    """A provider answering with vectors chosen beforehand (text -> vector)."""

    fingerprint = "test@fixed"
    model = "fixed"
    networked = False
    external = False
    max_batch = 64

    def __init__(self, table, dims):
        self.table = table
        self.dims = dims

    def embed(self, texts):
        return np.vstack([self.table[t] for t in texts]).astype(np.float32)


def _unit(rng, n, dims):
    v = rng.standard_normal((n, dims))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def make_world(seed, *, n=240, dims=384, dtype="float32", duplicates=0, stale=0, missing=0, orphans=0,
               shared=0.0, queries=8):
    """A catalog, an index over it and query vectors; all from ``seed``.

    ``duplicates`` skills copy the vector of skill 0 (exact ties); ``shared`` adds a common
    direction to every vector (as sentence embeddings have, which centring removes);
    ``stale`` skills change their text after indexing, ``missing`` skills are not indexed,
    ``orphans`` index rows belong to no skill.  Queries: random directions, noisy copies
    of skill vectors, and one exact copy of skill 0's stored vector (similarity 1, clamped).
    """
    rng = np.random.default_rng(seed)
    pyrng = random.Random(seed)
    names = [f"{pyrng.choice(VOCAB)}-{i:04d}-{pyrng.randrange(10**6):06d}" for i in range(n)]
    pyrng.shuffle(names)  # catalog order, row order and name order all differ
    skills = [Skill(name, " ".join(pyrng.choice(VOCAB) for _ in range(pyrng.randint(2, 7))),
                    keywords=(pyrng.choice(VOCAB),), digest=f"sha256:{name}") for name in names]
    vectors = _unit(rng, n, dims)
    if shared:
        vectors = vectors + shared * _unit(rng, 1, dims)[0]
    for i in range(1, duplicates + 1):
        vectors[i] = vectors[0]
    fields = SearchConfig().fields
    items = [ManifestItem(sk.name, "", sk.digest, text_digest(embedded_text(sk, fields))) for sk in skills]
    extra = [ManifestItem(f"orphan-{i}", "", "", f"sha256:orphan-{i}") for i in range(orphans)]
    vectors = np.vstack([vectors, _unit(rng, orphans, dims)]) if orphans else vectors
    unindexed = range(1 + duplicates, 1 + duplicates + missing)
    indexed = [(item, vec) for k, (item, vec) in enumerate(zip(items + extra, vectors, strict=True))
               if k not in unindexed]
    index = new_index(provider="test@fixed", model="fixed", items=[i for i, _ in indexed],
                      vectors=np.vstack([v for _, v in indexed]), dtype=dtype, fields=fields)
    for k in range(1 + duplicates + missing, 1 + duplicates + missing + stale):
        skills[k] = replace(skills[k], description=skills[k].description + " edited")
    table = {}
    stored0 = index.matrix[index.row("", skills[0].name)]
    for j in range(queries):
        text = " ".join(pyrng.choice(VOCAB) for _ in range(pyrng.randint(1, 3))) + f" q{j}"
        if j == 0:
            table[text] = np.array(stored0)
        elif j % 2:
            table[text] = _unit(rng, 1, dims)[0]
        else:
            base = index.matrix[rng.integers(len(index.matrix))]
            table[text] = base + 0.6 * _unit(rng, 1, dims)[0]
    return skills, index, Vectors(table, dims)


def rankers(world, oracle_cls=OracleRanker, roles=None, **search):
    skills, index, provider = world
    config = Config(search=replace(SearchConfig(mode="hybrid"), **search), roles=roles or {})
    new = Ranker(catalog_from_skills(skills), config, index=index, provider=provider, query_timeout_ms=0)
    old = oracle_cls(catalog_from_skills(skills), config, index=index, provider=provider)
    new.warm_queries(list(provider.table))
    return new, old
