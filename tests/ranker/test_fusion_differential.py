"""The blend fusion's contract: every fast path equals the reference over the complete lists.

The reference (``blend`` and the ``OracleRanker`` of tests/ranker/reference.py) scores every
skill exactly, ranks the complete lexical and centred lists, fuses them and cuts.  The ranker
computes only what decides the hits it returns, by three fast paths:

* the screened path (:mod:`skillsift.ranker.blend_top`): similarities known within a margin,
  exact sums only where the order needs them;
* the small-scope path (:mod:`skillsift.ranker.blend_exact`): every similarity exact;
* the known-request path (:mod:`skillsift.ranker.request_screen`): every request screened
  (int8 rows with the SIMD kernel, or the float32 read), each skill's lifted similarity known
  within a margin, its requests read exactly only where the order needs them;
* the one-row reduction of the requests (``ExampleRows.best``) against the general one.

Every field of every hit must agree, for every limit, with thresholds, scopes, stale and
missing vectors, exact ties and pinned ids: on random worlds (fixed seeds) and on a world
built from real SKILL.md files (../shared/corpora, ``tests.conftest.corpora``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace

import numpy as np
import pytest

from skillsift.catalog.embedtext import text_digest
from skillsift.ranker import blend_exact, vector_ranking
from skillsift.ranker.blend_exact import SMALL_ROWS, ExactRows
from skillsift.ranker.examples import ExampleRows, mean_of_two_best_row
from skillsift.ranker.model.fusion import BlendRequest, sort_fused
from skillsift.ranker.model.lift import example_best, mean_of_two_best
from skillsift.ranker.screens import exact_dots
from tests.conftest import corpora
from tests.ranker.reference import blend, coverage, make_world, query_terms, rankers, request_words_of, zscore

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


@pytest.mark.parametrize("fusion", ["blend", "zscore", "zscore-mnz"])
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
    from skillsift.ranker import screens

    world = make_world(5, n=3000, shared=0.5, queries=12)
    new, old = rankers(world, fusion="blend", candidates=50)
    counted = []
    original = screens.ScreenedScores.exact

    def exact(self, positions):
        counted.append(len(np.asarray(positions)))
        return original(self, positions)

    screens.ScreenedScores.exact = exact
    try:
        results = [new.search(text, limit=10) for text in world[2].table]
    finally:
        screens.ScreenedScores.exact = original
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


@pytest.mark.parametrize("fusion", ["blend", "zscore", "zscore-mnz"])
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


@pytest.mark.parametrize("fusion", ["blend", "zscore", "zscore-mnz"])
@pytest.mark.parametrize("seed", range(4))
def test_the_exact_and_the_screened_paths_agree(seed, fusion, monkeypatch):
    world = make_world(40 + seed, n=(10, 30, 64, 45)[seed], shared=0.5, stale=seed % 2, duplicates=seed % 2 * 3,
                       queries=12)
    texts = list(world[2].table) + _pinning_queries(world, 3, seed)
    new, _ = rankers(world, fusion=fusion, candidates=5, vector_min_sim=(0.0, 0.03)[seed % 2])
    small = [new.search(text, limit=k) for text in texts for k in (None, 1, 4)]
    monkeypatch.setattr(vector_ranking, "SMALL_ROWS", 0)
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


class NumpyInt8:
    """The int8 kernel's contract in numpy: the exact integer products of byte rows (the screen keeps its int8
    codes as unsigned bytes, ``request_screen.CODE_OFFSET`` added), as float64."""

    @staticmethod
    def cdist(a, b, metric="dot"):
        assert metric == "dot" and a.dtype == b.dtype and a.dtype in (np.int8, np.uint8)
        return (a.astype(np.int64) @ b.astype(np.int64).T).astype(np.float64)


KERNELS = {"int8": NumpyInt8(), "float32": None}


def _lifted_lists(new, text: str, s, *, read: str = "exact"):
    """``(names, plain, centred)`` of every usable skill, lifted by its requests, from complete reads.

    ``read="exact"``: the definition (every similarity and request cosine the sequential float64
    sum, :func:`exact_dots`); ``"float32"``: one float32 product with every request and float64
    BLAS products with the skills (what the ranking read before the screen).
    """
    from skillsift.ranker.model.lift import REDUCTION, combine, example_best
    from skillsift.ranker.screens import normalise_query

    vectors = new.vectors
    usable = vectors.usable(None)
    rows = vectors._rows_array()[usable]
    q = normalise_query(np.asarray(new.embedder.embed(text, vectors.dims).vector, dtype=np.float32))
    ex = vectors.examples
    if read == "exact":
        plain = exact_dots(vectors.index.matrix, rows, q)
        cen = exact_dots(vectors._centred(), rows, q)
        cos = exact_dots(ex.matrix, np.arange(len(ex)), q)
    else:
        q64 = np.asarray(q, dtype=np.float64)
        plain = np.asarray(vectors.index.matrix[rows], dtype=np.float64) @ q64
        cen = np.asarray(vectors._centred()[rows], dtype=np.float64) @ q64
        cos = (np.asarray(ex.matrix, dtype=np.float32) @ q).astype(np.float64)
    best, has = example_best(cos[None, :], ex.owner, len(vectors.skills), how=REDUCTION)
    best, has = best[0], has[0]
    plain = combine(plain, best[usable], has[usable], s.example_weight)
    cen = combine(cen, best[usable], has[usable], s.example_weight)
    return [vectors.skills[i].name for i in usable.tolist()], plain, cen


def _reference_with_requests(new, text: str, s, fusion: str = "blend", *, read: str = "exact"):
    """The reference blend of the complete lists, each skill's similarities lifted by its requests."""
    vectors = new.vectors
    names, plain, cen = _lifted_lists(new, text, s, read=read)
    keep = [k for k in range(len(names)) if s.vector_min_sim <= 0 or plain[k] >= s.vector_min_sim]
    centred = sorted(((names[k], float(cen[k])) for k in keep), key=lambda t: (-t[1], t[0]))
    lexical = [(h.name, h.score) for h in new.lexical_hits(text)]
    shown = {names[k]: float(plain[k]) for k in keep}
    if fusion in ("zscore", "zscore-mnz"):
        from skillsift.ranker.model.fusion import zscore_lexical_weight

        share = coverage(text, vectors.skills[vectors.position(lexical[0][0])]) if lexical else 0.0
        words = None
        if fusion == "zscore-mnz":
            ex = vectors.examples
            texts: dict[str, list[str]] = {}
            for o, t in zip(ex.owner.tolist(), ex.texts, strict=True):
                texts.setdefault(vectors.skills[o].name, []).append(t)
            words = request_words_of(texts, text, vectors.skills, lexical, s)
        fused = zscore(lexical, centred, zscore_lexical_weight(share, len(query_terms(text)), s.weight_lexical,
                                                               s.weight_vector),
                       candidates=s.candidates, cosines=shown, mnz=s.mnz_bonus, mnz_depth=s.mnz_depth, words=words)
    else:
        fused = blend(lexical, centred, s.weight_lexical, s.weight_vector, candidates=s.candidates, cosines=shown)
    return sort_fused(fused, vectors.pin(text, [f.id for f in fused]))


def _fields(hits):
    return [(h.name, h.score, h.lexical_rank, h.vector_rank, h.vector_sim) for h in hits]


def _want(fused):
    return [(f.id, f.score, f.lexical_rank, f.vector_rank, f.vector_sim) for f in fused]


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("fusion", ["blend", "zscore", "zscore-mnz"])
@pytest.mark.parametrize("seed", range(6))
def test_the_known_request_path_equals_the_reference_blend(seed, fusion, kernel, monkeypatch):
    from skillsift.ranker import request_screen

    monkeypatch.setattr(request_screen, "KERNEL", KERNELS[kernel])
    world, pairs, rows = _known_world(seed, n=(40, 150, 300)[seed % 3])
    new, _ = rankers(world, fusion=fusion, candidates=(3, 10, 50)[seed % 3],
                     vector_min_sim=(0.0, 0.03)[seed % 2])
    assert new.vectors.use_examples(pairs, extra=rows) == len(pairs)
    _assert_known_path(new, list(world[2].table), fusion)


def _assert_known_path(new, texts, fusion: str) -> None:
    """Every hit of every query equals the definition's (complete exact reads), for limits 1, 4, 10 and none;
    the first ten are those of the complete float32 read, with scores within 1e-6."""
    s = new.config.search
    lifted = 0
    for text in texts:
        want = _reference_with_requests(new, text, s, fusion)
        got = new.search(text, limit=None)
        assert _fields(got.hits) == _want(want), text
        for k in (1, 4, 10):
            assert new.search(text, limit=k).hits == got.hits[:k]
        # the first hits are those of the complete float32 read the ranking did before the screen
        old = _reference_with_requests(new, text, s, fusion, read="float32")
        assert [f.id for f in old[:10]] == [h.name for h in got.hits[:10]], text
        assert max(abs(f.score - h.score) for f, h in zip(old, got.hits, strict=False)) < 1e-6
        lifted += sum(1 for f in want[:5] if f.vector_rank)
    assert lifted  # the requests took part in the ranking


@pytest.mark.parametrize("fusion", ["blend", "zscore"])
@pytest.mark.parametrize("seed", range(3))
def test_the_known_request_path_through_the_float32_level(seed, fusion, monkeypatch):
    """The same with every unsure skill settled first by the float32 read of its requests (no skill computed
    exactly in its place: the path a crowded band of more than FINE_AS_EXACT skills takes)."""
    from skillsift.ranker import request_screen

    monkeypatch.setattr(request_screen, "KERNEL", KERNELS["int8"])
    monkeypatch.setattr(request_screen, "FINE_AS_EXACT", 0)
    world, pairs, rows = _known_world(seed, n=(150, 300, 300)[seed])
    new, _ = rankers(world, fusion=fusion, candidates=(10, 50, 3)[seed], vector_min_sim=(0.0, 0.03)[seed % 2])
    assert new.vectors.use_examples(pairs, extra=rows) == len(pairs)
    _assert_known_path(new, list(world[2].table), fusion)


def _real_requests(world, count: int, dims: int = 64):
    """``(pairs, rows)``: up to ``count`` lines of 5 to 30 words of the skills' own SKILL.md bodies (each once),
    each a known request of the skill whose vector is closest to its own (as real requests paraphrase
    their skill's), vectors by :func:`_word_vector`."""
    skills, index, _provider = world
    lines = []
    for skill in skills:
        for line in skill.body.splitlines():
            line = line.strip(" #*->`|")
            if 5 <= len(line.split()) <= 30:
                lines.append(line)
    lines = list(dict.fromkeys(lines))[:count]
    vectors = np.vstack([_word_vector(t, dims) for t in lines])
    owners = np.argmax(vectors @ np.asarray(index.matrix[:len(skills)], dtype=np.float32).T, axis=1)
    pairs = [(skills[int(o)].name, t) for o, t in zip(owners.tolist(), lines, strict=True)]
    rows = {(name, text_digest(t)): v for (name, t), v in zip(pairs, vectors, strict=True)}
    return pairs, rows


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("fusion", ["blend", "zscore", "zscore-mnz"])
def test_real_requests_the_known_request_path_equals_the_reference(fusion, kernel, monkeypatch):
    """Real text: 300 real skills, 3,000 lines of their bodies as known requests, each under its closest skill."""
    from skillsift.ranker import request_screen

    monkeypatch.setattr(request_screen, "KERNEL", KERNELS[kernel])
    world = _real_world(300)
    pairs, rows = _real_requests(world, 3000)
    new, _ = rankers(world, fusion=fusion, candidates=50)
    assert new.vectors.use_examples(pairs, extra=rows) == len(pairs) > 2000
    _assert_known_path(new, list(world[2].table), fusion)


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("seed", range(4))
def test_every_request_bound_holds_the_exact_cosine(seed, kernel):
    """The screen's interval of every request holds its exact cosine, on random unit vectors (the worst
    case: cosines spread by about 0.05, no cluster) and on vectors crowded around a few directions."""
    from skillsift.ranker.request_screen import RequestScreen

    rng = np.random.default_rng(seed)
    n, dims = 3000, 384
    m = rng.standard_normal((n, dims))
    if seed % 2:  # clustered rows, as requests of real text are
        centres = rng.standard_normal((12, dims))
        m = centres[rng.integers(12, size=n)] + 0.4 * m
    m = (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)
    owners = np.sort(rng.integers(0, 400, size=n))
    ex = ExampleRows.of(m, owners.tolist(), [f"r{i}" for i in range(n)])
    screen = RequestScreen(ex, kernel=KERNELS[kernel])
    for k in range(5):
        q = m[int(rng.integers(n))] + 0.3 * rng.standard_normal(dims).astype(np.float32)
        q = (q / np.linalg.norm(q)).astype(np.float32)
        lo, hi = screen.bounds(q[None, :])
        exact = exact_dots(ex.matrix, np.arange(n), q)
        assert np.all(lo <= exact) and np.all(exact <= hi)
        # the int8 rows are made at the second query (a command that asks one reads float32 once)
        assert (screen.int8 is not None) == (kernel == "int8" and k > 0)
        width = float(np.median(hi - lo))
        assert width < (0.05 if screen.int8 is not None else 1e-4)  # tight enough to skip most requests


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("seed", range(4))
def test_every_skill_evidence_bound_holds_its_exact_evidence(seed, kernel):
    """Each skill's interval of ``e`` (one reduction of the screened cosines, widened by the largest margin
    of its requests) holds the definition's ``e``, for one query and for a long query's pieces, with masked
    requests; its exact ``e`` is the definition's bit for bit."""
    from skillsift.ranker.request_screen import LiftedScreen, RequestScreen

    rng = np.random.default_rng(50 + seed)
    n, dims, n_skills = 3000, 384, 420
    m = rng.standard_normal((n, dims))
    if seed % 2:  # clustered rows, as requests of real text are
        m = rng.standard_normal((12, dims))[rng.integers(12, size=n)] + 0.4 * m
    m = (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)
    owners = np.sort(rng.integers(0, 400, size=n))  # skills 400 to 419 have none
    ex = ExampleRows.of(m, owners.tolist(), [f"r{i}" for i in range(n)])
    screen = RequestScreen(ex, kernel=KERNELS[kernel])
    for k in range(4):
        pieces = 1 if k % 2 == 0 else 3
        q = m[rng.integers(n, size=pieces)] + 0.3 * rng.standard_normal((pieces, dims))
        q = (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)
        masked = rng.choice(n, size=40, replace=False) if k >= 2 else ()
        lifted = LiftedScreen(screen, q, n_skills, masked=masked)
        cos = np.max([exact_dots(ex.matrix, np.arange(n), piece) for piece in q], axis=0)
        cos[np.asarray(masked, dtype=np.intp)] = -np.inf
        best, has = example_best(cos[None, :], ex.owner, n_skills, how="top2")
        best, has = best[0], has[0]
        assert lifted.has.tolist() == has.tolist()
        assert np.all(lifted.e_lo[has] <= best[has]) and np.all(best[has] <= lifted.e_hi[has])
        assert float(np.median((lifted.e_hi - lifted.e_lo)[has])) < (0.05 if screen.int8 is not None else 1e-4)
        skills = np.arange(n_skills)
        assert lifted.exact_e(skills).tolist() == np.where(has, best, 0.0).tolist()
        assert lifted.fine_e(skills)[has] == pytest.approx(best[has], abs=screen.fine_margin(q))


def test_the_numpy_int8_contract_is_the_kernels():
    """The stand-in the tests use gives the integer products the installed kernel gives (when one is)."""
    from skillsift.ranker import request_screen

    rng = np.random.default_rng(3)
    a = rng.integers(-127, 128, size=(1, 384)).astype(np.int8)
    b = rng.integers(-127, 128, size=(50, 384)).astype(np.int8)
    want = a.astype(np.int64) @ b.astype(np.int64).T
    assert NumpyInt8.cdist(a, b, metric="dot").tolist() == want.astype(np.float64).tolist()
    if os.environ.get("CI") == "true":  # CI installs the fast extra: the kernel itself is held to the contract there
        assert request_screen.KERNEL is not None, "simsimd is missing: pip install 'skillsift[fast]'"
    if request_screen.KERNEL is not None:
        got = np.asarray(request_screen.KERNEL.cdist(a, b, metric="dot"), dtype=np.float64)
        assert got.tolist() == want.astype(np.float64).tolist()
    # unsigned bytes (the screen's codes plus CODE_OFFSET), the largest sums included: 255 * 255 * 384 > 2**24
    ua = np.vstack([rng.integers(1, 256, size=(1, 384)), np.full((1, 384), 255)]).astype(np.uint8)
    ub = np.vstack([rng.integers(1, 256, size=(50, 384)), np.full((2, 384), 255), np.full((1, 384), 1)])
    ub = ub.astype(np.uint8)
    want = ua.astype(np.int64) @ ub.astype(np.int64).T
    assert NumpyInt8.cdist(ua, ub, metric="dot").tolist() == want.astype(np.float64).tolist()
    if request_screen.KERNEL is not None:
        got = np.asarray(request_screen.KERNEL.cdist(ua[:1], ub, metric="dot"), dtype=np.float64)
        assert got.tolist() == want[:1].astype(np.float64).tolist()
        got = np.asarray(request_screen.KERNEL.cdist(ua[1:], ub, metric="dot"), dtype=np.float64)
        assert got.tolist() == want[1:].astype(np.float64).tolist()


class SignedInt8:
    """The screen's products as they were read before the unsigned codes: the signed int8 codes' integer
    products (the reference of :func:`test_unsigned_codes_give_the_signed_products_bit_for_bit`)."""

    @staticmethod
    def products(screen, q32):
        from skillsift.ranker.request_screen import CODE_OFFSET, SCALE_STEPS

        codes = (screen.int8[0].astype(np.int16) - CODE_OFFSET).astype(np.int8)
        q = q32.astype(np.float64)
        top = float(np.abs(q).max())
        t = top / SCALE_STEPS if top > 0 else 1.0
        q8 = np.rint(q / t).astype(np.int8)
        approx = (codes.astype(np.int64) @ q8.astype(np.int64)).astype(np.float64)
        approx *= screen.int8[1]
        approx *= t
        return approx


def _unsigned_matches_signed(matrix, queries, kernel) -> None:
    from skillsift.ranker.request_screen import RequestScreen

    owner = np.arange(len(matrix)) % 7
    ex = ExampleRows.of(matrix, owner, [f"r{i}" for i in range(len(matrix))])
    screen = RequestScreen(ex, kernel=kernel)
    screen._quantise()
    assert screen.int8[0].dtype == np.uint8 and screen.int8[0].min() >= 1
    for q in queries:
        got, _ = screen._int8_approx(np.asarray(q, dtype=np.float32))
        assert got.tolist() == SignedInt8.products(screen, np.asarray(q, dtype=np.float32)).tolist()


@pytest.mark.parametrize("kernel", ["numpy", "installed"])
@pytest.mark.parametrize("seed", range(4))
def test_unsigned_codes_give_the_signed_products_bit_for_bit(seed, kernel):
    """The int8 screen reads unsigned codes and removes the offset's terms: every screened value is the one the
    signed codes give, bit for bit (random rows: unit, clustered, one large component; real skill vectors below)."""
    from skillsift.ranker import request_screen

    chosen = NumpyInt8() if kernel == "numpy" else request_screen.KERNEL
    if chosen is None:
        pytest.skip("simsimd is not installed (the fast extra)")
    rng = np.random.default_rng(40 + seed)
    dims = (384, 64, 385, 3)[seed]
    rows = rng.standard_normal((900, dims))
    if seed % 2:
        rows = rows[:, :] * 0.2 + rng.standard_normal((1, dims))  # clustered
    rows[::50, 0] = 30.0  # a component far above the others: most codes 0
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    queries = rng.standard_normal((6, dims))
    queries[0] = -np.abs(queries[0])  # every code negative
    queries[1] = 0.0
    queries[1, 0] = 1.0
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    _unsigned_matches_signed(rows.astype(np.float32), queries.astype(np.float32), chosen)


def test_unsigned_codes_on_real_skill_vectors():
    """The same on vectors made from real SKILL.md files (../shared/corpora) and queries from their descriptions."""
    from skillsift.ranker import request_screen

    skills, index, provider = _real_world(400)
    queries = list(provider.table.values())[:20]
    for chosen in (NumpyInt8(), request_screen.KERNEL):
        if chosen is not None:
            _unsigned_matches_signed(np.asarray(index.matrix, dtype=np.float32), queries, chosen)


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_few_requests_are_read_again(kernel, monkeypatch):
    """The screen settles most skills: the requests read again (float64, or exactly) are a small share."""
    from skillsift.ranker import request_screen

    monkeypatch.setattr(request_screen, "KERNEL", KERNELS[kernel])
    world, pairs, rows = _known_world(1, n=300)
    new, _ = rankers(world, fusion="blend", candidates=50)
    new.vectors.use_examples(pairs, extra=rows)
    screen = new.vectors._request_screen()
    read: list[int] = []
    for name in ("fine", "exact"):
        method = getattr(screen, name)
        monkeypatch.setattr(screen, name, lambda requests, queries, m=method: read.append(len(requests))
                            or m(requests, queries))
    for text in list(world[2].table)[:4]:
        read.clear()
        new.search(text, limit=10)
        assert sum(read) < 0.5 * len(screen), (sum(read), len(screen))


def test_example_rows_are_sorted_by_skill_then_text():
    rows = ExampleRows.of(np.eye(3, dtype=np.float32), [2, 0, 2], ["b", "a", "a"])
    assert rows.owner.tolist() == [0, 2, 2] and rows.texts == ("a", "a", "b")


# -- real SKILL.md files ---------------------------------------------------------------------------------


def _word_vector(text: str, dims: int) -> np.ndarray:
    """The normalised sum of the fixed pseudo-random directions of the words of ``text`` (sha256 of each word)."""
    from skillsift.ranker.tokenize import tokenize

    v = np.zeros(dims)
    for word in tokenize(text):
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
        v += np.random.default_rng(seed).standard_normal(dims)
    v += 0.01  # an empty text still has a direction
    return (v / np.linalg.norm(v)).astype(np.float32)


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
        return _word_vector(text, dims)

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
    for cand, fusion in ((5, "blend"), (50, "blend"), (8, "zscore"), (50, "zscore"), (8, "zscore-mnz"),
                         (50, "zscore-mnz")):
        new, old = rankers(world, fusion=fusion, candidates=cand)
        for text in texts:
            full = old.search(text, limit=None)
            assert new.search(text, limit=None) == full, text
            assert new.search(text, limit=3) == replace(full, hits=full.hits[:3]), text
    # the same catalog through the other path than the one its size takes
    monkeypatch.setattr(vector_ranking, "SMALL_ROWS", 0 if size <= SMALL_ROWS else 10_000)
    for fusion in ("blend", "zscore", "zscore-mnz"):
        new, old = rankers(world, fusion=fusion, candidates=8)
        for text in texts:
            assert new.search(text, limit=None) == old.search(text, limit=None), (text, fusion)


def test_blend_request_refuses_no_candidates():
    with pytest.raises(ValueError, match="candidates must be at least 1"):
        BlendRequest("q", 0, 0.12, None, lambda _q, _ids: None)


# -- the one-row reduction of the known requests (ExampleRows.best) against the general example_best ----
# The single-row path skips passes of the general one; it must give the same floats bit for bit:
# groups of one, two and many requests, skills without requests, ``-inf`` (left-out) requests,
# and equal cosines (a duplicated maximum, ties below it).


def random_case(seed: int):
    """``(owners sorted, cosines, n_skills)``: uneven groups, gaps, -inf masks and planted ties."""
    rng = np.random.default_rng(seed)
    n_skills = int(rng.integers(1, 40))
    sizes = rng.choice([0, 1, 2, 3, 7, 20], size=n_skills, p=[0.15, 0.25, 0.2, 0.15, 0.15, 0.1])
    if sizes.sum() == 0:
        sizes[int(rng.integers(n_skills))] = 1
    owners = np.repeat(np.arange(n_skills), sizes)
    n = owners.size
    # coarse values make equal cosines (duplicated maxima, ties of the second best) common
    cos = rng.choice([-0.5, 0.1, 0.25, 0.3, 0.7, 0.9], size=n) if seed % 2 else rng.uniform(-1, 1, n)
    cos = cos.astype(np.float32).astype(np.float64)
    masked = rng.random(n) < rng.choice([0.0, 0.2, 0.6, 1.0])
    cos[masked] = -np.inf
    return owners, cos, n_skills


def as_rows(owners, n_skills: int) -> ExampleRows:
    texts = [f"request {i}" for i in range(len(owners))]  # owners sorted: rows.owner is owners
    return ExampleRows.of(np.zeros((len(owners), 2), np.float32), owners.tolist(), texts)


@pytest.mark.parametrize("seed", range(300))
def test_one_row_best_equals_the_general_reduction(seed):
    owners, cos, n_skills = random_case(seed)
    rows = as_rows(owners, n_skills)
    assert rows.owner.tolist() == owners.tolist()
    want_best, want_has = example_best(cos[None, :], owners, n_skills, how="top2")
    best, has = rows.best(cos, n_skills)
    assert best.dtype == want_best.dtype and has.dtype == want_has.dtype
    assert best.tobytes() == want_best[0].tobytes()  # the same floats, bit for bit
    assert has.tolist() == want_has[0].tolist()


@pytest.mark.parametrize("seed", range(100))
def test_one_row_mean_of_two_best_equals_the_general_one(seed):
    owners, cos, _ = random_case(seed)
    starts, sizes, _skills = as_rows(owners, 0).layout()
    want = mean_of_two_best(cos[None, :], starts, cos.size)[0]
    got = mean_of_two_best_row(cos, starts, sizes)
    assert got.tobytes() == want.tobytes()


def test_hand_made_groups():
    # skill 0: one request; 1: a duplicated maximum; 2: max then tied seconds; 3: none; 4: all left out;
    # 5: one usable of three
    owners = np.array([0, 1, 1, 1, 2, 2, 2, 4, 4, 5, 5, 5])
    cos = np.array([0.4, 0.8, 0.8, 0.1, 0.9, 0.5, 0.5, -np.inf, -np.inf, -np.inf, 0.3, -np.inf])
    best, has = as_rows(owners, 6).best(cos, 6)
    assert best.tolist() == [0.4, 0.8, (0.9 + 0.5) / 2, 0.0, 0.0, 0.3]
    assert has.tolist() == [True, True, True, False, False, True]


def test_a_nan_cosine_takes_the_general_path():
    owners = np.array([0, 0, 1, 1])
    cos = np.array([np.nan, 0.2, 0.6, 0.5])
    best, has = as_rows(owners, 2).best(cos, 2)
    want_best, want_has = example_best(cos[None, :], owners, 2, how="top2")
    assert best.tobytes() == want_best[0].tobytes() and has.tolist() == want_has[0].tolist()


@pytest.mark.parametrize("seed", range(60))
def test_second_best_of_each_group_is_the_sorted_groups(seed):
    """The cut that spares a skill's requests: per group, its second largest value (ties counted)."""
    from skillsift.ranker.request_screen import second_best_row

    owners, cos, _ = random_case(seed)
    starts, sizes, _skills = as_rows(owners, 0).layout()
    got = second_best_row(cos, starts, sizes).tolist()
    want = [sorted(cos[a:a + n].tolist(), reverse=True)[1] if n > 1 else -np.inf
            for a, n in zip(starts.tolist(), sizes.tolist(), strict=True)]
    assert got == want
