"""Block-max pruning of limited lexical rankings (docs/ranking-speed.md, "Lexical query").

The pruned top-k must equal the complete ranking's first k: same documents, same rounded
scores, same order.  The catalogs here are small, with small blocks and the thresholds
lowered, so that every limited numpy query takes the pruned path.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from skillsift.catalog.skill import Skill
from skillsift.ranker import block_max
from skillsift.ranker.block_max import BlockMaxima
from skillsift.ranker.lexical import LexicalIndex, _round_positive
from skillsift.ranker.rounding import round_half_away

SEED = 20261201
WORDS = [f"w{i}" for i in range(40)]


def _word(rng: random.Random) -> str:
    # Zipf-like: the first words are in most skills, so their postings are long.
    return WORDS[min(int(rng.paretovariate(0.6)) - 1, len(WORDS) - 1)]


def _catalog(n: int, seed: int = SEED) -> list[Skill]:
    """``n`` skills over a small vocabulary; one in five repeats an earlier one's fields (exact ties)."""
    rng = random.Random(seed)
    skills: list[Skill] = []
    for i in range(n):
        if skills and rng.random() < 0.2:
            twin = rng.choice(skills)
            skills.append(Skill(f"s{i:05d}", twin.description, triggers=twin.triggers, keywords=twin.keywords))
            continue
        description = " ".join(_word(rng) for _ in range(rng.randint(1, 12)))
        triggers = tuple(" ".join(_word(rng) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(0, 2)))
        keywords = tuple(_word(rng) for _ in range(rng.randint(0, 3)))
        skills.append(Skill(f"s{i:05d}-{_word(rng)}", description, triggers=triggers, keywords=keywords))
    return skills


NEAR = ("pa", "pb", "pc")  # three words only the near-tie skills hold, each in as many skills


def _with_near_ties(skills: list[Skill], groups: int = 60, seed: int = SEED) -> list[Skill]:
    """``skills`` and, scattered among them, groups of six skills holding the words of :data:`NEAR`
    in triggers, keywords and description in every order, with the same length within a group.

    The points of a group's skills are the same three numbers added in different orders, so their
    float64 sums differ in the last bits: distinct raw scores that round to the same score.
    """
    rng = random.Random(seed)
    out = list(skills)
    for g in range(groups):
        filler = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 20)))
        for perm in itertools.permutations(NEAR):
            twin = Skill(f"v{g:02d}{''.join(perm)}", f"{perm[2]} {filler}", triggers=(perm[0],), keywords=(perm[1],))
            out.insert(rng.randrange(len(out) + 1), twin)
    return out


@pytest.fixture
def small_blocks(monkeypatch):
    """Block maxima for any numpy-built catalog, blocks of 8 documents, every query pruned."""
    monkeypatch.setattr(block_max, "PRUNE_MIN_DOCS", 0)
    monkeypatch.setattr(block_max, "BLOCK_SHIFT", 3)
    monkeypatch.setattr(block_max, "QUERY_MIN_POSTINGS", 0)
    monkeypatch.setattr(block_max, "QUERY_MIN_POSTINGS_PER_BLOCK", 0)
    monkeypatch.setattr(block_max, "ONE_TERM_MIN_POSTINGS", 0)
    monkeypatch.setattr(block_max, "BLOCKS_PER_HIT", 1)
    monkeypatch.setattr(block_max, "GIVE_UP_FRACTION", 1.0)  # never: every query is pruned to the end


@pytest.fixture
def index(small_blocks) -> LexicalIndex:
    return LexicalIndex(_with_near_ties(_catalog(3000)), python_max_docs=0)


def _queries(count: int, seed: int = SEED, longest: int = 6) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(_word(rng) if rng.random() < 0.7 else rng.choice(WORDS) for _ in range(rng.randint(1, longest)))
            for _ in range(count)]


def test_pruned_top_k_is_the_full_rankings_prefix(index):
    assert index._full.blocks is not None
    tied = 0
    for query in _queries(150) + _queries(10, seed=1, longest=40):
        full = index.rank(query)  # limit=None: every posting added up
        scores = [s for _, s in full]
        for k in (1, 5, 10, 50):
            assert index.rank(query, limit=k) == full[:k], (query, k)
            pruned = index.pruned_top(query, k)
            assert pruned is not None and pruned.hits == full[:k], (query, k)
            if k < len(scores) and scores[k - 1] == scores[k]:
                tied += 1  # the k-th score ties with the next: the name decides
    assert tied >= 10  # the catalog's twins make exact ties at the cut


@pytest.mark.parametrize("query", ["pa pb pc", "w0 pa pb pc", "pc pb pa w1 w2"])
def test_near_ties_of_rounded_scores_keep_their_order(index, query):
    docs, raw = index._matches(index._plan(query), index._full, np)
    raws_by_score: dict[float, set[float]] = {}
    for score, value in zip(_round_positive(np, raw).tolist(), raw.tolist(), strict=True):
        raws_by_score.setdefault(score, set()).add(value)
    assert sum(len(v) > 1 for v in raws_by_score.values()) >= 5  # the construction makes near-ties
    full = index.rank(query)
    for k in range(1, 61):
        assert index.rank(query, limit=k) == full[:k], k


def test_the_pruned_path_is_taken_and_skips_work(index):
    query = "w0 w1 w9"  # two words most skills hold and a rarer one
    total = sum(index._postings.df(t) for t in index._plan(query))
    pruned = index.pruned_top(query, 10)
    assert pruned is not None
    assert pruned.n_blocks == (len(index) + 7) // 8
    assert pruned.blocks_scored < pruned.n_blocks // 5
    assert pruned.postings_scored < total // 5
    scored = every = 0
    for q in _queries(150):
        pruned = index.pruned_top(q, 10)
        if pruned is not None:
            scored += pruned.postings_scored
            every += sum(index._postings.df(t) for t in index._plan(q))
    assert scored < every // 2
    calls = []
    real = index._rank_pruned
    index._rank_pruned = lambda *a: calls.append(a) or real(*a)  # type: ignore[method-assign]
    assert index.rank(query, limit=10) == index.rank(query)[:10]
    assert len(calls) == 1


def test_a_query_the_bounds_do_not_prune_is_left_to_the_exhaustive_path(index, monkeypatch):
    monkeypatch.setattr(block_max, "FIRST_BLOCKS", 1)  # rounds of 1, 4, 16... blocks (at least the limit)
    monkeypatch.setattr(block_max, "GIVE_UP_FRACTION", 0.0)  # give up whenever blocks are left after two rounds
    gave_up = 0
    for query in _queries(60):
        full = index.rank(query)
        for k in (1, 10, 50):
            gave_up += index.pruned_top(query, k) is None
            assert index.rank(query, limit=k) == full[:k], (query, k)
    assert gave_up > 20


def test_default_thresholds_prune_a_large_catalog():
    index = LexicalIndex(_catalog(block_max.PRUNE_MIN_DOCS, seed=7))
    blocks = index._full.blocks
    assert blocks is not None and blocks.shift == block_max.BLOCK_SHIFT and blocks.rows
    pruned = 0
    for query in _queries(40, seed=7):
        plan = index._plan(query)
        full = index.rank(query)
        postings = sum(index._postings.df(t) for t in plan)
        for k in (1, 10, 50):
            assert index.rank(query, limit=k) == full[:k], (query, k)
            pruned += blocks.worth(len(plan), postings, k)
    assert pruned > 20  # most of these queries take the pruned path at the default thresholds


def test_ranker_search_gives_the_same_hits_pruned(small_blocks, monkeypatch):
    from skillsift.catalog.load import catalog_from_skills
    from skillsift.config import Config
    from skillsift.ranker.search import Ranker

    skills = _with_near_ties(_catalog(3000))
    pruned = Ranker(catalog_from_skills(skills), Config())
    monkeypatch.setattr(block_max, "PRUNE_MIN_DOCS", 10**9)
    exhaustive = Ranker(catalog_from_skills(skills), Config())
    assert pruned.lexical._full.blocks is not None and exhaustive.lexical._full.blocks is None
    for query in _queries(40) + ["pa pb pc w0"]:
        for k in (1, 10):
            assert (pruned.search(query, limit=k, mode="lexical").hits
                    == exhaustive.search(query, limit=k, mode="lexical").hits), (query, k)


def test_limit_none_and_subsets_keep_the_exhaustive_path(index):
    calls = []
    real = index._rank_pruned
    index._rank_pruned = lambda *a: calls.append(a) or real(*a)  # type: ignore[method-assign]
    subset = frozenset(range(0, 3000, 3))
    index.rank("w0 w1", limit=None)
    index.rank("w0 w1", subset, limit=10)
    assert not calls
    assert index._scope(subset).blocks is None
    # A subset's own statistics: it ranks like an index of its documents alone.
    alone = LexicalIndex([index._docs[d] for d in sorted(subset)], python_max_docs=0)
    order = sorted(subset)
    assert [(order[d], s) for d, s in alone.rank("w0 w1", limit=10)] == index.rank("w0 w1", subset, limit=10)


def test_small_and_pure_python_indexes_have_no_block_maxima():
    skills = _catalog(600)
    assert LexicalIndex(skills)._full.blocks is None  # pure-Python build
    assert LexicalIndex(skills, python_max_docs=0)._full.blocks is None  # below PRUNE_MIN_DOCS
    assert LexicalIndex(skills).pruned_top("w0", 5) is None


def test_block_maxima_bound_every_posting(small_blocks):
    index = LexicalIndex(_catalog(3000), python_max_docs=0)
    blocks = index._full.blocks
    assert blocks is not None and blocks.rows
    for tid, row in blocks.rows.items():
        docs, points = index._full.term_arrays(tid)
        block = docs >> blocks.shift
        assert np.all(blocks.maxima[row][block].astype(np.float64) >= points)
        assert np.array_equal(blocks.starts[row][block], np.searchsorted(block, block))  # a block's first posting
        assert blocks.starts[row][-1] == len(docs)


# -- near-ties of rounded scores, with points chosen by hand ------------------------------------------------


def _reference(terms_points, limit):
    """Every document's float64 sum in term order, rounded, sorted by score then document (the name order)."""
    acc: dict[int, float] = {}
    for docs, points in terms_points:
        for d, p in zip(docs.tolist(), points.tolist(), strict=True):
            acc[d] = acc.get(d, 0.0) + p
    hits = sorted(((d, round_half_away(s, 6)) for d, s in acc.items()), key=lambda h: (-h[1], h[0]))
    return hits[:limit]


def _finish(docs, scores, limit):
    """Order the candidates exactly (a full sort: whatever the pruning dropped is missing here)."""
    return _reference([(docs, scores)], limit)


def _near_tie_terms(rng: random.Random, n: int):
    """Two terms over ``n`` documents whose sums crowd within 1e-6 around rounding boundaries."""
    terms = []
    for _ in range(2):
        docs = np.array(sorted(rng.sample(range(n), n // 2)), dtype=np.int32)
        points = np.array([rng.choice((0.5, 1.0, 1.5)) for _ in docs]) + np.array(
            [rng.choice((0.0, 2.5e-7, 4.999999e-7, 5e-7, 5.000001e-7, 9.9e-7, -3e-7)) for _ in docs])
        terms.append((docs, points))
    return terms


@pytest.mark.parametrize("seed", range(40))
def test_pruning_keeps_documents_within_the_rounding_margin(seed):
    rng = random.Random(seed)
    n = 512
    terms = _near_tie_terms(rng, n)
    bounds = np.array([0, len(terms[0][0]), len(terms[0][0]) + len(terms[1][0])], dtype=np.int64)
    docs = np.concatenate([d for d, _ in terms])
    points = np.concatenate([p for _, p in terms])
    blocks = BlockMaxima(memoryview(bounds.tobytes()).cast("q"), docs, points, n, shift=2)
    blocks.rows = {} if seed % 2 else blocks.rows  # half the cases derive the maxima per query
    for k in (1, 5, 10, 50):
        got = blocks.top([0, 1], k, _finish)
        assert got.hits == _reference(terms, k), (seed, k)


def test_the_near_tie_cases_need_the_margin(monkeypatch):
    """Without the 2e-6 margin the pruning drops documents that round into the top k."""
    monkeypatch.setattr(block_max, "MARGIN", 0.0)
    wrong = 0
    for seed in range(40):
        rng = random.Random(seed)
        terms = _near_tie_terms(rng, 512)
        bounds = np.array([0, len(terms[0][0]), len(terms[0][0]) + len(terms[1][0])], dtype=np.int64)
        blocks = BlockMaxima(memoryview(bounds.tobytes()).cast("q"), np.concatenate([d for d, _ in terms]),
                             np.concatenate([p for _, p in terms]), 512, shift=2)
        for k in (1, 5, 10, 50):
            wrong += blocks.top([0, 1], k, _finish).hits != _reference(terms, k)
    assert wrong
