"""Screened vector ranking: the same results as scoring every skill exactly, at any catalog size.

The oracle (``OracleRanker``, tests/ranker/reference.py) is the ranker's previous vector
path: every usable skill scored with a float64 product, a full Python sort, the threshold
and the fusion over complete lists.
``dots="blas"`` is that code exactly (numpy's float64 matrix-vector product);
``dots="sequential"`` sums each row left to right, which is the reference's definition and
what :func:`skillsift.ranker.screens.exact_dots` computes.  The two differ in the last bit
of some similarities (BLAS blocking depends on the row's position), so tests that put a
threshold exactly on a similarity, or rank identical vectors, compare with the sequential
oracle; the others compare with the BLAS one.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from skillsift.ranker.centring import CENTRE_SHRINK, centre
from skillsift.ranker.screens import (
    CentredScreen,
    PlainScreen,
    ScreenedScores,
    distinct,
    dot_error_factor,
    exact_dots,
    max_row_norm,
)
from tests.ranker.reference import (  # the oracles and the random worlds
    BlasOracle,
    _unit,
    cosine_list,
    make_world,
    rankers,
)

SETTINGS = [
    ("vector", {}),
    ("hybrid", {"fusion": "auto"}),
    ("hybrid", {"fusion": "rrf"}),
    ("hybrid", {"fusion": "weighted"}),
    ("hybrid", {"fusion": "blend"}),
]


def configure(pair, **search):
    """Both rankers with other search settings (what they cache does not depend on them)."""
    for r in pair:
        r.config = replace(r.config, search=replace(r.config.search, **search))
    return pair


def assert_same(new, old, texts, mode, **kw):
    for text in texts:
        a = new.search(text, limit=None, mode=mode, **kw)
        b = old.search(text, limit=None, mode=mode, **kw)
        assert a == b, (text, mode, kw)


# -- equality with the previous implementation --------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(("mode", "search"), SETTINGS)
def test_same_results_as_the_blas_implementation(seed, mode, search):
    world = make_world(seed, n=120 + 15 * seed, stale=seed % 3, missing=seed % 4, orphans=seed % 2 * 5,
                       dtype="float16" if seed % 2 else "float32", shared=0.4 * (seed % 3))
    candidates = (5, 20, 50, 400)[seed % 4]
    min_sim = (0.0, 0.05, 0.12)[seed % 3]
    new, old = rankers(world, BlasOracle, candidates=candidates, vector_min_sim=min_sim, **search)
    assert_same(new, old, list(world[2].table)[1:], mode)  # query 0 holds clamped ties: see below


@pytest.mark.parametrize("seed", range(12))
def test_same_results_as_exact_scoring_with_ties_scopes_and_thresholds_on_values(seed):
    dims = (384, 384, 8, 3)[seed % 4]  # few dimensions make many near and exact ties
    world = make_world(100 + seed, n=90 + 5 * seed, dims=dims, duplicates=1 + seed % 6, stale=seed % 4,
                       missing=seed % 3, orphans=seed % 5, dtype="float16" if seed % 3 == 0 else "float32",
                       shared=(0.0, 0.5, 1.5)[seed % 3])
    skills, index, provider = world
    texts = list(provider.table)
    # thresholds exactly on similarities: an exact float64 value, and one rounded to 6 decimals
    q = provider.table[texts[seed % len(texts)]]
    from skillsift.ranker.screens import normalise_query

    rows = [index.row("", s.name) for s in skills if index.row("", s.name) >= 0]
    exact = np.sort(exact_dots(index.matrix, rows, normalise_query(q)))[::-1]
    positive = exact[exact > 0]
    on_value = float(positive[min(len(positive) - 1, 3 + seed % 9)]) if len(positive) else 0.3
    thresholds = (0.0, on_value, float(np.nextafter(on_value, 2.0)))
    role = {"some": tuple(s.name for s in skills[:: 2 + seed % 3])}
    pair = rankers(world, roles=role)
    for mode, search in SETTINGS:
        for candidates in (3, 1000) if seed % 2 else (25,):
            for min_sim in thresholds:
                new, old = configure(pair, candidates=candidates, vector_min_sim=min_sim, **search)
                assert_same(new, old, texts, mode)
                assert_same(new, old, texts[:3], mode, role="some")
        assert_same(new, old, texts[:2], mode, explain=True)


def test_identical_vectors_rank_by_name_and_clamped_ties_too():
    world = make_world(7, n=60, duplicates=6)
    skills, index, provider = world
    first = list(provider.table)[0]  # the exact stored vector of skill 0: similarity 1 for 7 skills
    new, old = rankers(world, fusion="rrf")
    result = new.search(first, limit=None, mode="vector")
    tied = [h for h in result.hits if h.vector_sim == 1.0]
    assert len(tied) == 7
    assert [h.name for h in tied] == sorted(h.name for h in tied) == [h.name for h in result.hits[:7]]
    assert result == old.search(first, limit=None, mode="vector")


def test_blend_ranks_of_lexical_candidates_deep_in_the_vector_list():
    world = make_world(3, n=400, shared=0.8)
    new, old = rankers(world, fusion="blend", candidates=5)
    deep_vector = deep_lexical = 0
    for text in world[2].table:
        a = new.search(text, limit=None)
        assert a == old.search(text, limit=None)
        assert new.search(text, explain=True) == old.search(text, explain=True)
        deep_vector += sum(1 for h in a.hits if h.vector_rank > 5)
        deep_lexical += sum(1 for h in a.hits if h.lexical_rank > 5)
    assert deep_vector > 10 and deep_lexical > 10  # the complete-list ranks were really exercised


def test_empty_scope_and_all_dropped():
    world = make_world(5, n=50)
    skills = world[0]
    new, old = rankers(world, roles={"none": ("no-such-skill",)}, vector_min_sim=0.999, fusion="blend")
    for text in world[2].table:
        for mode in ("vector", "hybrid"):
            assert new.search(text, limit=None, mode=mode) == old.search(text, limit=None, mode=mode)
            a = new.search(text, limit=None, mode=mode, role="none")
            assert a == old.search(text, limit=None, mode=mode, role="none")
            assert a.degraded == "no_index"
    assert skills


# -- the screening machinery ------------------------------------------------------------------------


def _brute(values, ties, keep):
    members = [i for i in range(len(values)) if keep is None or keep[i]]
    return sorted(members, key=lambda i: (-values[i], ties[i]))


@pytest.mark.parametrize("seed", range(40))
def test_screened_scores_answer_like_a_full_sort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    exact = np.round(rng.normal(0.1, 0.2, n), int(rng.integers(2, 5)))  # rounding makes ties
    margin = float(rng.choice([1e-6, 1e-3, 0.02, 0.2]))
    per_item = rng.uniform(0, margin, n) if seed % 2 else margin
    approx = exact + rng.uniform(-1, 1, n) * per_item  # anywhere inside the interval, edges included
    approx[: n // 5] = exact[: n // 5] + np.sign(rng.standard_normal(n // 5)) * (per_item if seed % 2 == 0
                                                                                 else per_item[: n // 5])
    ties = rng.permutation(n)
    calls = []

    def exact_fn(p):
        calls.append(len(p))
        return exact[p]

    # the intervals touch the exact values (slightly widened: approx +- margin rounds in float64)
    scores = ScreenedScores(approx, per_item * (1 + 1e-9) + 1e-15, exact_fn, ties)
    keep = None if seed % 3 == 0 else rng.random(n) < 0.7
    full = _brute(exact, ties, keep)
    for k in (1, 3, 10, n + 5):
        assert scores.top(k, keep).tolist() == full[:k]
    if full:
        assert scores.exact(scores.top(1, keep))[0] == exact[full[0]]
        assert scores.lowest(keep)[1] == exact[full[-1]]
        pick = full[:: max(1, len(full) // 7)]
        assert scores.ranks(pick, keep).tolist() == [full.index(p) + 1 for p in pick]
    t = float(exact[int(rng.integers(n))])
    assert scores.at_least(t).tolist() == (exact >= t).tolist()
    assert all(c > 0 for c in calls)


def test_screened_ranks_refuse_items_outside_the_kept_set():
    scores = ScreenedScores(np.array([0.1, 0.2]), 0.0, lambda p: np.array([0.1, 0.2])[p], np.array([0, 1]))
    with pytest.raises(ValueError):
        scores.ranks([0], np.array([False, True]))
    with pytest.raises(ValueError):
        scores.lowest(np.array([False, False]))


def test_exact_dots_is_the_sequential_float64_sum():
    rng = np.random.default_rng(1)
    matrix = _unit(rng, 30, 97)
    q = _unit(rng, 1, 97)[0]
    got = exact_dots(matrix, [5, 0, 29, 5], q)
    for value, row in zip(got, [5, 0, 29, 5], strict=True):
        total = 0.0
        for a, b in zip(matrix[row].tolist(), q.tolist(), strict=True):
            total += a * b
        assert value == max(-1.0, min(1.0, total))
    # the same row scores the same whatever it is computed with (BLAS does not promise that)
    alone = [exact_dots(matrix, [r], q)[0] for r in range(30)]
    assert exact_dots(matrix, list(range(30)), q).tolist() == alone
    pairs = [exact_dots(matrix, [r, (r + 1) % 30], q)[0] for r in range(30)]
    assert pairs == alone
    rows = matrix.astype(np.float64) * q.astype(np.float64)  # the sequential sums, all rows at once
    assert np.cumsum(rows, axis=1)[:, -1].tolist() == np.clip(alone, -1, 1).tolist()
    ranked = cosine_list(matrix, [3, 1, 2], ["c", "a", "b"], q)
    assert sorted(ranked, key=lambda t: (-t[1], ["c", "a", "b"][t[0]])) == ranked and len(ranked) == 3


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_float32_products_stay_inside_the_proven_margin(dtype):
    rng = np.random.default_rng(11)
    world = make_world(11, n=3000, dims=384, dtype=dtype, shared=0.7, duplicates=3)
    _, index, provider = world
    matrix = index.matrix
    screen = PlainScreen(matrix)
    assert 0.99 < screen.row_norm < 1.02
    assert screen.factor == pytest.approx(384 * 2**-24, rel=1e-3)
    rows = np.arange(len(matrix))
    worst = 0.0
    for q in list(provider.table.values()) + list(_unit(rng, 20, 384)):
        from skillsift.ranker.screens import normalise_query

        q = normalise_query(q)
        scores = screen.scores(rows, q, rows)
        exact = exact_dots(matrix, rows, q)
        gap = np.abs(scores.approx - exact)
        assert np.all(gap <= scores.margin)
        worst = max(worst, float(gap.max() / scores.margin))
    assert worst < 0.05  # the bound is far from tight: typical errors are ~1e-7


def test_the_centred_screen_margin_holds_even_for_a_centring_it_does_not_model():
    rng = np.random.default_rng(4)
    world = make_world(4, n=800, dims=64, shared=1.2)
    index, provider = world[1], world[2]
    matrix = index.matrix
    rows = np.arange(len(matrix))
    plain = PlainScreen(matrix)
    for shrink, centred in ((CENTRE_SHRINK, centre(matrix, rows)), (CENTRE_SHRINK, centre(matrix, rows, 500.0)),
                            (CENTRE_SHRINK, np.asarray(matrix)[::-1].copy())):
        screen = CentredScreen(matrix, centred, rows, shrink, plain.row_norm, chunk_rows=97)
        for q in list(provider.table.values())[:4] + list(_unit(rng, 4, 64)):
            q = q.astype(np.float32)
            products = plain.products(rows, q)
            scores = screen.scores(rows, products, q, rows)
            exact = exact_dots(centred, rows, q)
            assert np.all(np.abs(scores.approx - exact) <= scores.margin)
    # with the centring it models, the margin is small: few rows are computed exactly
    screen = CentredScreen(matrix, centre(matrix, rows), rows, CENTRE_SHRINK, plain.row_norm)
    assert float(np.max(screen.base)) < 1e-3


def test_a_large_index_computes_few_rows_exactly():
    rng = np.random.default_rng(2)
    matrix = _unit(rng, 20_000, 384)
    matrix.setflags(write=False)
    screen = PlainScreen(matrix)
    rows = np.arange(len(matrix))
    q = _unit(rng, 1, 384)[0]
    scores = screen.scores(rows, q, rows)
    top = scores.top(50)
    full = np.lexsort((rows, -exact_dots(matrix, rows, q)))[:50]
    assert top.tolist() == full.tolist()
    assert scores.exact_count < 60
    keep = scores.at_least(0.05)
    assert scores.exact_count < 100 and keep.sum() > 1000


def test_max_row_norm_bounds_every_row():
    rng = np.random.default_rng(3)
    m = rng.standard_normal((50, 7)).astype(np.float32)
    norms = np.linalg.norm(m.astype(np.float64), axis=1)
    assert max_row_norm(m, chunk_rows=8) >= norms.max() and max_row_norm(m) == pytest.approx(norms.max())
    assert max_row_norm(np.zeros((0, 4), dtype=np.float32)) == 0.0
    assert dot_error_factor(384) > 384 * 2**-24


def test_settled_computes_few_items_exactly_and_many_by_the_fine_values():
    """``exact_upto``: up to that many unknown items are settled by their exact values (radius 0, remembered as
    exact), more by the fine values (radius ``fine_margin``)."""
    rng = np.random.default_rng(7)
    exact_values = rng.standard_normal(300)
    calls: list[tuple[str, int]] = []

    def exact_fn(p):
        calls.append(("exact", len(p)))
        return exact_values[p]

    def fine_fn(p):
        calls.append(("fine", len(p)))
        return exact_values[p] + 1e-9

    scores = ScreenedScores(exact_values, 1e-3, exact_fn, np.arange(300), fine=fine_fn, fine_margin=2e-9,
                            exact_upto=4)
    value, radius = scores.settled(np.array([3, 1, 3, 2]))
    assert value.tolist() == exact_values[[3, 1, 3, 2]].tolist() and radius.tolist() == [0.0] * 4
    assert calls == [("exact", 3)] and scores.exact_count == 3
    value, radius = scores.settled(np.arange(10))
    assert calls[-1] == ("fine", 7)  # items 0 and 4 to 9: more than four
    assert radius[[1, 2, 3]].tolist() == [0.0] * 3 and radius[[0, 4]].tolist() == [2e-9] * 2
    assert value[0] == exact_values[0] + 1e-9


def test_settled_reads_items_known_exactly_without_fine_values():
    """An item computed exactly before (``exact``, ``top(also=...)``) is settled by that value: no fine value is made
    for it, and the others still get theirs."""
    exact_values = np.linspace(-1.0, 1.0, 300)
    calls: list[tuple[str, list[int]]] = []

    def exact_fn(p):
        calls.append(("exact", p.tolist()))
        return exact_values[p]

    def fine_fn(p):
        calls.append(("fine", p.tolist()))
        return exact_values[p] + 1e-9

    scores = ScreenedScores(exact_values, 1e-3, exact_fn, np.arange(300), fine=fine_fn, fine_margin=2e-9)
    scores.exact(np.array([5, 7]))
    value, radius = scores.settled(np.array([5, 6, 7, 8]))
    assert calls == [("exact", [5, 7]), ("fine", [6, 8])]
    assert value.tolist() == [exact_values[5], exact_values[6] + 1e-9, exact_values[7], exact_values[8] + 1e-9]
    assert radius.tolist() == [0.0, 2e-9, 0.0, 2e-9]


def test_top_with_also_computes_the_cut_and_those_in_one_call():
    """``top(k, also=...)``: the items that can make the cut and ``also`` are computed exactly in one call, and the
    first ``k`` are those of ``top(k)`` without it."""
    rng = np.random.default_rng(11)
    exact_values = rng.standard_normal(400)
    approx = exact_values + rng.uniform(-1e-3, 1e-3, 400)
    calls: list[int] = []

    def exact_fn(p):
        calls.append(len(p))
        return exact_values[p]

    for keep in (None, rng.random(400) < 0.5):
        calls.clear()
        plain = ScreenedScores(approx, 1e-3, lambda p: exact_values[p], np.arange(400))
        with_also = ScreenedScores(approx, 1e-3, exact_fn, np.arange(400))
        also = np.array([399, 3, 3, 250])
        assert with_also.top(10, keep, also=also).tolist() == plain.top(10, keep).tolist()
        assert len(calls) == 1 and np.all(~np.isnan(with_also._known[also]))
        order = np.lexsort((np.arange(400), -exact_values))
        kept = order if keep is None else order[keep[order]]
        assert with_also.top(10, keep, also=also).tolist() == kept[:10].tolist() and len(calls) == 1


@pytest.mark.parametrize("size", [1, 50, 5000])
def test_distinct_is_np_unique(size):
    rng = np.random.default_rng(size)
    for count in (0, 1, 3, 40):
        values = rng.integers(0, size, count)
        assert distinct(values, size).tolist() == np.unique(values).tolist()
        crowded = rng.integers(0, max(1, size // 100), count)  # many repeats, whichever way is taken
        assert distinct(crowded, size).tolist() == np.unique(crowded).tolist()
