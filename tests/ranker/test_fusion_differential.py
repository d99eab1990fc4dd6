"""The blend fusion's contract: every fast path equals the reference over the complete lists.

The reference (``blend`` and the ``OracleRanker`` of tests/ranker/reference.py) scores every
skill exactly, ranks the complete lexical and centred lists, fuses them and cuts.  The ranker
computes only what decides the hits it returns, by three fast paths:

* the screened path (:mod:`skillsift.ranker.blend_top`): similarities known within a margin,
  exact sums only where the order needs them;
* the small-scope path (:mod:`skillsift.ranker.blend_exact`): every similarity exact;
* the known-request path (:mod:`skillsift.ranker.example_search`): vectorised over the
  complete lists, the candidates found by partition.

Every field of every hit must agree, for every limit, with thresholds, scopes, stale and
missing vectors, exact ties and pinned ids: on random worlds (fixed seeds) and on a world
built from real SKILL.md files (../shared/corpora, ``tests.conftest.corpora``).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

import numpy as np
import pytest

from skillsift.catalog.embedtext import text_digest
from skillsift.ranker import blend_exact, vector_search
from skillsift.ranker.blend_exact import SMALL_ROWS, ExactRows
from skillsift.ranker.examples import ExampleRows
from skillsift.ranker.fusion import BlendRequest, sort_fused
from skillsift.ranker.vector import exact_dots
from tests.conftest import corpora
from tests.ranker.reference import blend, coverage, make_world, query_terms, rankers, zscore

# -- the screened path ---------------------------------------------------------------------------------


def _pinning_queries(world, count: int, seed: int) -> list[str]:
    """Queries that name a skill (its id's words in sequence), each with its own vector."""
    skills, index, provider = world
    rng = np.random.default_rng(seed)
    texts = []
    for k in range(count):
        skill = skills[int(rng.integers(len(skills)))]
        text = f"please use {skill.name.replace('-', ' ')} now {k}"
        vector = rng.standard_normal(index.dims).astype(np.float32)
        provider.table[text] = vector / np.linalg.norm(vector)
        texts.append(text)
    return texts


@pytest.mark.parametrize("fusion", ["blend", "zscore"])
@pytest.mark.parametrize("seed", range(8))
def test_blend_hits_equal_the_complete_fusion_cut(seed, fusion):
    world = make_world(seed, n=260 + 30 * seed, shared=(0.0, 0.5, 0.9)[seed % 3], stale=seed % 3,
                       missing=seed % 2, duplicates=2 if seed % 4 == 0 else 0, queries=10,
                       dtype="float16" if seed % 2 else "float32")
    texts = list(world[2].table) + _pinning_queries(world, 4, seed)
    new, old = rankers(world, fusion=fusion, candidates=(3, 8, 20, 50)[seed % 4],
                       vector_min_sim=(0.0, 0.04)[seed % 2])
    pinned = deep = 0
    for text in texts:
        full = old.search(text, limit=None)
        assert new.search(text, limit=None) == full, text
        for k in (1, 2, 5, 10):
            assert new.search(text, limit=k) == replace(full, hits=full.hits[:k]), (text, k)
        pinned += bool(full.hits) and text.startswith("please use") and full.hits[0].name.replace("-", " ") in text
        deep += sum(1 for h in full.hits[:10] if h.vector_rank > 8 or h.lexical_rank > 8)
    assert pinned >= 3  # the queries that name a skill put it first
    assert deep > 0  # ranks past the cuts were settled for returned hits


def test_blend_in_a_role_scope_with_a_threshold():
    world = make_world(11, n=400, shared=0.6, stale=2, missing=1)
    names = [s.name for s in world[0]][1::3]
    new, old = rankers(world, roles={"third": tuple(names)}, fusion="blend", candidates=6, vector_min_sim=0.02)
    for text in world[2].table:
        for k in (1, 4, None):
            assert new.search(text, limit=k, role="third") == old.search(text, limit=k, role="third")


def test_blend_computes_few_similarities_exactly():
    """On a catalog of thousands the returned hits settle from float64 products: exact sums stay rare."""
    from skillsift.ranker import vector

    world = make_world(5, n=3000, shared=0.5, queries=12)
    new, old = rankers(world, fusion="blend", candidates=50)
    counted = []
    original = vector.ScreenedScores.exact

    def exact(self, positions):
        counted.append(len(np.asarray(positions)))
        return original(self, positions)

    vector.ScreenedScores.exact = exact
    try:
        results = [new.search(text, limit=10) for text in world[2].table]
    finally:
        vector.ScreenedScores.exact = original
    assert results == [old.search(text, limit=10) for text in world[2].table]
    assert sum(counted) <= 3 * len(results)  # a few near ties at most, not the candidates


# -- the small-scope path ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_exact_rows_give_the_sequential_sums_bit_for_bit(dtype):
    rng = np.random.default_rng(7)
    for n in [1, 2, 3, 5, 17, 40, 64, SMALL_ROWS]:
        matrix = rng.standard_normal((n + 3, 384)).astype(dtype)
        centred = rng.standard_normal((n + 3, 384)).astype(np.float32) * 3  # clamping is exercised too
        rows = rng.permutation(n + 3)[:n]
        query = rng.standard_normal(384).astype(np.float32)
        query /= np.linalg.norm(query)
        exact = ExactRows(matrix, centred, rows, skills=list(range(n)), ties=list(range(n)))
        plain, centred_sims = exact.similarities(query)
        assert plain == exact_dots(matrix, rows, query).tolist()
        assert centred_sims == exact_dots(centred, rows, query).tolist()


def _check(world, texts, *, role=None, roles=None, **search):
    new, old = rankers(world, roles=roles, **search)
    for text in texts:
        full = old.search(text, limit=None, role=role)
        assert new.search(text, limit=None, role=role) == full, text
        for k in (1, 3, 10):
            assert new.search(text, limit=k, role=role) == replace(full, hits=full.hits[:k]), (text, k)
    return new


@pytest.mark.parametrize("fusion", ["blend", "zscore"])
@pytest.mark.parametrize("seed", range(8))
def test_small_catalog_blend_equals_the_complete_fusion(seed, fusion):
    n = (6, 12, 27, 40, 51, 64, 96, 20)[seed]
    world = make_world(seed, n=n, shared=(0.0, 0.5, 0.9)[seed % 3], stale=seed % 3, missing=seed % 2,
                       duplicates=2 if seed % 4 == 0 else 0, queries=10,
                       dtype="float16" if seed % 2 else "float32")
    texts = list(world[2].table) + _pinning_queries(world, 4, seed)
    _check(world, texts, fusion=fusion, candidates=(3, 8, 20, 50)[seed % 4],
           vector_min_sim=(0.0, 0.04)[seed % 2])


def test_a_small_role_of_a_large_catalog_takes_the_exact_path(monkeypatch):
    world = make_world(3, n=300, shared=0.6, stale=2, missing=1)
    names = [s.name for s in world[0]][::10]  # 30 skills
    calls = []
    original = blend_exact.blend_exact

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(blend_exact, "blend_exact", counted)
    _check(world, list(world[2].table), role="tenth", roles={"tenth": tuple(names)}, fusion="blend",
           candidates=6, vector_min_sim=0.02)
    assert calls  # the scope was small enough


@pytest.mark.parametrize("fusion", ["blend", "zscore"])
@pytest.mark.parametrize("seed", range(4))
def test_the_exact_and_the_screened_paths_agree(seed, fusion, monkeypatch):
    world = make_world(40 + seed, n=(10, 30, 64, 45)[seed], shared=0.5, stale=seed % 2, duplicates=seed % 2 * 3,
                       queries=12)
    texts = list(world[2].table) + _pinning_queries(world, 3, seed)
    new, _ = rankers(world, fusion=fusion, candidates=5, vector_min_sim=(0.0, 0.03)[seed % 2])
    small = [new.search(text, limit=k) for text in texts for k in (None, 1, 4)]
    monkeypatch.setattr(vector_search, "SMALL_ROWS", 0)
    screened, _ = rankers(world, fusion=fusion, candidates=5, vector_min_sim=(0.0, 0.03)[seed % 2])
    assert [screened.search(text, limit=k) for text in texts for k in (None, 1, 4)] == small


# -- limits: a limited search is a prefix of the complete one --------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_limited_blend_is_a_prefix_of_the_complete_blend(seed):
    world = make_world(seed, n=300 + 40 * seed, shared=0.8 if seed % 2 else 0.3, stale=seed % 3,
                       missing=seed % 2, queries=10)
    new, old = rankers(world, fusion="blend", candidates=(5, 8, 20)[seed % 3],
                        vector_min_sim=(0.0, 0.05)[seed % 2])
    deep = 0
    for text in world[2].table:
        full = new.search(text, limit=None)
        for k in (1, 3, 10):
            assert new.search(text, limit=k) == old.search(text, limit=k) == replace(full, hits=full.hits[:k])
        deep += sum(1 for h in full.hits[:10] if h.vector_rank > 8 or h.lexical_rank > 8)
    assert deep > 0  # ranks past the cut were settled for returned hits


def test_limited_blend_in_a_role_scope():
    world = make_world(4, n=320, shared=0.8)
    names = [s.name for s in world[0]][::2]
    new, old = rankers(world, roles={"half": tuple(names)}, fusion="blend", candidates=5)
    for text in world[2].table:
        assert new.search(text, limit=4, role="half") == old.search(text, limit=4, role="half")


# -- the known-request path ------------------------------------------------------------------------------


def _known_world(seed: int, n: int):
    """A random world with known requests: (world, pairs, in-memory rows of the requests)."""
    world = make_world(seed, n=n, shared=0.5, stale=seed % 2, missing=seed % 3, queries=8)
    skills, index, provider = world
    rng = np.random.default_rng(1000 + seed)
    pairs, rows = [], {}
    for k in range(3 * n // 4):
        skill = skills[int(rng.integers(len(skills)))]
        text = f"request {k} for {skill.name}"
        vec = rng.standard_normal(index.dims)
        if k % 3 == 0:  # some requests sit near a query: they decide rankings
            vec = np.asarray(list(provider.table.values())[k % len(provider.table)], dtype=np.float64) + 0.3 * vec
        vec = (vec / np.linalg.norm(vec)).astype(np.float32)
        pairs.append((skill.name, text))
        rows[(skill.name, text_digest(text))] = vec
    return world, pairs, rows


def _reference_with_requests(new, text: str, s, fusion: str = "blend"):
    """The reference blend of the complete lists, each skill's similarities lifted by its requests."""
    from skillsift.ranker.examples import combine
    from skillsift.ranker.vector import normalise_query

    vectors = new.vectors
    usable = vectors.usable(None)
    rows = vectors._rows_array()[usable]
    q = normalise_query(np.asarray(new.embedder.embed(text, vectors.dims).vector, dtype=np.float32))
    q64 = np.asarray(q, dtype=np.float64)
    plain = np.asarray(vectors.index.matrix[rows], dtype=np.float64) @ q64
    cen = np.asarray(vectors._centred()[rows], dtype=np.float64) @ q64
    ex = vectors.examples
    best, has = ex.best(ex.cosines(text, q), len(vectors.skills))
    plain = combine(plain, best[usable], has[usable], s.example_weight)
    cen = combine(cen, best[usable], has[usable], s.example_weight)
    names = [vectors.skills[i].name for i in usable.tolist()]
    keep = [k for k in range(len(names)) if s.vector_min_sim <= 0 or plain[k] >= s.vector_min_sim]
    centred = sorted(((names[k], float(cen[k])) for k in keep), key=lambda t: (-t[1], t[0]))
    lexical = [(h.name, h.score) for h in new.lexical_hits(text)]
    shown = {names[k]: float(plain[k]) for k in keep}
    if fusion == "zscore":
        from skillsift.ranker.fusion import zscore_lexical_weight

        share = coverage(text, vectors.skills[vectors.position(lexical[0][0])]) if lexical else 0.0
        fused = zscore(lexical, centred, zscore_lexical_weight(share, len(query_terms(text)), s.weight_lexical,
                                                               s.weight_vector),
                       candidates=s.candidates, cosines=shown)
    else:
        fused = blend(lexical, centred, s.weight_lexical, s.weight_vector, candidates=s.candidates, cosines=shown)
    return sort_fused(fused, vectors.pin(text, [f.id for f in fused]))


@pytest.mark.parametrize("fusion", ["blend", "zscore"])
@pytest.mark.parametrize("seed", range(6))
def test_the_known_request_path_equals_the_reference_blend(seed, fusion):
    world, pairs, rows = _known_world(seed, n=(40, 150, 300)[seed % 3])
    new, _ = rankers(world, fusion=fusion, candidates=(3, 10, 50)[seed % 3],
                     vector_min_sim=(0.0, 0.03)[seed % 2])
    assert new.vectors.use_examples(pairs, extra=rows) == len(pairs)
    s = new.config.search
    lifted = 0
    for text in world[2].table:
        want = _reference_with_requests(new, text, s, fusion)
        got = new.search(text, limit=None)
        assert [(h.name, h.score, h.lexical_rank, h.vector_rank, h.vector_sim) for h in got.hits] == [
            (f.id, f.score, f.lexical_rank, f.vector_rank, f.vector_sim) for f in want], text
        for k in (1, 4):
            assert new.search(text, limit=k).hits == got.hits[:k]
        lifted += sum(1 for f in want[:5] if f.vector_rank)
    assert lifted  # the requests took part in the ranking


def test_example_rows_are_sorted_by_skill_then_text():
    rows = ExampleRows.of(np.eye(3, dtype=np.float32), [2, 0, 2], ["b", "a", "a"])
    assert rows.owner.tolist() == [0, 2, 2] and rows.texts == ("a", "a", "b")


# -- real SKILL.md files ---------------------------------------------------------------------------------


def _real_world(count: int, dims: int = 64):
    """The first ``count`` skills of ../shared/corpora with vectors made from their own words.

    Each word maps to a fixed pseudo-random direction (sha256 of the word); a text's vector is
    the normalised sum of its words' directions, so skills that share words have close vectors,
    as embeddings of real text do, and the lexical list is real BM25F over real fields.
    """
    from skillsift.catalog.embedtext import embedded_text
    from skillsift.catalog.load import read_skill
    from skillsift.config import SearchConfig
    from skillsift.index.manifest import ManifestItem
    from skillsift.index.store import new_index
    from skillsift.ranker.tokenize import tokenize
    from tests.ranker.reference import Vectors

    root = corpora()
    files = sorted(root.glob("*/*/SKILL.md"))[: count * 2]
    skills, seen = [], set()
    for path in files:
        skill, _diagnostics = read_skill(path, root)
        if skill is None or skill.name in seen:
            continue
        seen.add(skill.name)
        skills.append(skill)
        if len(skills) == count:
            break

    def vector(text: str) -> np.ndarray:
        v = np.zeros(dims)
        for word in tokenize(text):
            seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
            v += np.random.default_rng(seed).standard_normal(dims)
        v += 0.01  # an empty text still has a direction
        return (v / np.linalg.norm(v)).astype(np.float32)

    fields = SearchConfig().fields
    texts = [embedded_text(s, fields) for s in skills]
    items = [ManifestItem(s.name, s.domain, s.digest, text_digest(t)) for s, t in zip(skills, texts, strict=True)]
    index = new_index(provider="test@fixed", model="fixed", items=items,
                      vectors=np.vstack([vector(t) for t in texts]), dtype="float32", fields=fields)
    queries = {}
    for s in skills[::7]:  # queries from the skills' own descriptions, cut and reworded
        words = s.description.split()[:8]
        text = " ".join(["how", "do", "i", *words])
        queries[text] = vector(text)
    return skills, index, Vectors(queries, dims)


@pytest.mark.parametrize("size", [60, 400])
def test_real_skills_every_path_equals_the_reference(size, monkeypatch):
    world = _real_world(size)
    assert len(world[0]) == size
    texts = list(world[2].table)
    for cand, fusion in ((5, "blend"), (50, "blend"), (8, "zscore"), (50, "zscore")):
        new, old = rankers(world, fusion=fusion, candidates=cand)
        for text in texts:
            full = old.search(text, limit=None)
            assert new.search(text, limit=None) == full, text
            assert new.search(text, limit=3) == replace(full, hits=full.hits[:3]), text
    # the same catalog through the other path than the one its size takes
    monkeypatch.setattr(vector_search, "SMALL_ROWS", 0 if size <= SMALL_ROWS else 10_000)
    for fusion in ("blend", "zscore"):
        new, old = rankers(world, fusion=fusion, candidates=8)
        for text in texts:
            assert new.search(text, limit=None) == old.search(text, limit=None), (text, fusion)


def test_blend_request_refuses_no_candidates():
    with pytest.raises(ValueError, match="candidates must be at least 1"):
        BlendRequest("q", 0, 0.12, None, lambda _q, _ids: None)
