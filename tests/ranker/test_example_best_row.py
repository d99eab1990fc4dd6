"""The one-row path of the known-request reduction (ExampleRows.best) against the general example_best.

The single-row path skips passes of the general one; it must give the same floats bit for bit:
groups of one, two and many requests, skills without requests, ``-inf`` (left-out) requests,
and equal cosines (a duplicated maximum, ties below it)."""

from __future__ import annotations

import numpy as np
import pytest

from skillsift.ranker.examples import ExampleRows, mean_of_two_best_row
from skillsift.ranker.model.lift import example_best, mean_of_two_best


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


@pytest.mark.parametrize("seed", range(200))
def test_blend_ranks_without_the_full_sort_equal_the_sorted_list(seed):
    from skillsift.ranker.example_search import _first_and_ranks, _full_order

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    values = rng.choice([0.1, 0.2, 0.2, 0.35], size=n) if seed % 2 else rng.uniform(-1, 1, n)
    ties = rng.permutation(n).astype(np.int64)  # name ranks: distinct
    keep = rng.random(n) < rng.choice([0.3, 0.8, 1.0])
    kept = np.arange(n) if seed % 3 == 0 else np.flatnonzero(keep)
    cand = int(rng.choice([0, 1, 5, 50]))
    head, floor, ranks = _first_and_ranks(values[kept], ties[kept], kept, cand)
    want_head, want_floor, want_ranks = _full_order(values, ties, kept, cand)
    order = sorted(kept.tolist(), key=lambda i: (-values[i], ties[i]))  # the list, by value then name rank
    assert head.tolist() == want_head.tolist() == order[:cand]
    assert floor == want_floor == (min(values[kept].tolist()) if len(kept) else 0.0)
    assert ranks(kept).tolist() == want_ranks(kept).tolist() == [order.index(i) + 1 for i in kept.tolist()]
