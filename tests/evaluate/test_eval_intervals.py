"""Bootstrap intervals and paired differences."""

from __future__ import annotations

import numpy as np
import pytest

from skillsift.evaluate.intervals import (
    RESAMPLES,
    Interval,
    bootstrap,
    interval,
    interval_of,
    paired,
    percentile_bounds,
    resample_indexes,
    resample_means,
)
from skillsift.evaluate.metrics import round4


@pytest.mark.parametrize(
    "n, bounds",
    [
        (1000, (25, 974)),
        (200, (5, 194)),
        (40, (1, 38)),
        (1, (0, 0)),
        (0, (0, 0)),
        (-3, (0, 0)),
    ],
)
def test_percentile_bounds_table(n, bounds):
    assert percentile_bounds(n) == bounds


def test_interval_of_uniform_grid():
    assert interval_of([i / 1000 for i in range(1000)]) == (0.025, 0.974)
    assert interval_of([]) == (0.0, 0.0)


def test_index_matrix_is_one_fresh_seeded_draw():
    matrix = resample_indexes(7)
    assert matrix.shape == (RESAMPLES, 7)
    assert matrix.min() >= 0 and matrix.max() <= 6
    np.testing.assert_array_equal(matrix, np.random.default_rng(1).integers(0, 7, size=(1000, 7)))
    assert not matrix.flags.writeable


def test_vectorised_means_equal_a_plain_loop():
    values = [1.0, 1 / 3, 0.0, 1.0, 0.5]
    matrix = resample_indexes(len(values))
    loop = sorted(sum(values[j] for j in row) / len(values) for row in matrix.tolist())
    np.testing.assert_allclose(resample_means(values), loop, rtol=0, atol=1e-12)


# the reference's pinned bootstrap cases a..e: (top1, recall, rank)
PINNED = {"top1": [1, 0, 0, 1, 0], "recall_at_k": [1, 1, 0, 1, 0.5], "mrr": [1, 1 / 3, 0, 1, 1 / 2]}


def test_bootstrap_is_deterministic_and_contains_the_means():
    first = bootstrap(PINNED)
    again = bootstrap({k: list(v) for k, v in PINNED.items()})
    assert first == again
    assert list(first) == ["mrr", "recall_at_k", "top1"]
    for name, values in PINNED.items():
        iv = first[name]
        mean = round4(sum(values) / len(values))
        assert iv.low <= mean <= iv.high, (name, iv, mean)
        assert min(values) <= iv.low < iv.high <= max(values)
        assert iv.low == round4(iv.low) and iv.high == round4(iv.high)


def test_bootstrap_of_constant_values_and_empty():
    assert bootstrap({"top1": [1.0] * 9}) == {"top1": Interval(1.0, 1.0)}
    assert bootstrap({"top1": [], "mrr": []}) == {}
    assert interval([0.25]) == Interval(0.25, 0.25)


def test_small_sample_bounds_are_the_ones_any_fair_generator_gives():
    # reference evalEnv at k=2: top1 [1,1,0,0] -> [0, 1]; recall [1,1,1,0] -> [0.25, 1];
    # mrr [1,1,.5,0] -> [0.25, 1]: bounds any fair generator gives with 1000 resamples
    got = bootstrap({"top1": [1, 1, 0, 0], "recall_at_k": [1, 1, 1, 0], "mrr": [1, 1, 0.5, 0]})
    assert got == {"mrr": Interval(0.25, 1.0), "recall_at_k": Interval(0.25, 1.0), "top1": Interval(0.0, 1.0)}


def test_paired_difference():
    lexical = {"top1": [0, 1, 1, 1, 1], "recall_at_k": [0, 1, 1, 1, 1], "mrr": [0, 1, 1, 1, 1]}
    hybrid = {
        "top1": [1, 1, 1, 1, 1],
        "recall_at_k": [1, 1, 1, 1, 1],
        "mrr": [1, 1, 1, 1, 1],
        "ndcg_at_k": [1, 1, 1, 1, 1],
    }
    diffs = paired(lexical, hybrid)
    assert list(diffs) == ["mrr", "recall_at_k", "top1"]  # ndcg only in one of the two: skipped
    d = diffs["mrr"]
    assert d.diff == 0.2 and d.low <= d.diff <= d.high
    assert (d.low, d.high) == (0.0, 0.6)
    assert paired(lexical, lexical)["mrr"].to_dict() == {"diff": 0.0, "low": 0.0, "high": 0.0}
    assert paired(lexical, {"mrr": [1, 1]}) == {}
    worse = paired(hybrid, lexical)["top1"]
    assert (worse.diff, worse.low, worse.high) == (-0.2, -0.6, 0.0)


def test_large_sample_interval_is_narrow_and_centered():
    rng = np.random.default_rng(123)
    values = (rng.random(2000) < 0.7).astype(float).tolist()
    iv = bootstrap({"top1": values})["top1"]
    mean = sum(values) / len(values)
    assert iv.low < mean < iv.high
    assert 0.03 < iv.high - iv.low < 0.05  # ~ 2 * 1.96 * sqrt(.7 * .3 / 2000) = 0.040
