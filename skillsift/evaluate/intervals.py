"""95% bootstrap intervals and paired differences between modes.

Every interval resamples the n per-case values 1000 times with replacement, from a
fresh ``numpy.random.default_rng(1)`` per metric, the 1000 x n indexes drawn as one
integer matrix.  The resample means are sorted and the bounds taken at integer
percentile indexes (2.5% and 97.5% of 1000 -> 25 and 974), then rounded to 4 decimals
half away from zero.  The generator is numpy's, not Go's, so bounds differ from the
reference tool's while staying deterministic: the same values always give the same
interval.  Because every metric starts from the same seed, the index matrix for a given
n is the same for all of them; it is computed once and reused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from .metrics import round4

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

RESAMPLES = 1000
SEED = 1


@dataclass(frozen=True)
class Interval:
    low: float
    high: float

    def to_dict(self) -> dict:
        return {"low": self.low, "high": self.high}


@dataclass(frozen=True)
class Diff:
    """Mean paired difference (mode minus lexical) and its interval."""

    diff: float
    low: float
    high: float

    def to_dict(self) -> dict:
        return {"diff": self.diff, "low": self.low, "high": self.high}


def percentile_bounds(n: int) -> tuple[int, int]:
    """Indexes of the 2.5th and 97.5th percentile of ``n`` sorted values (integer arithmetic)."""
    if n <= 0:
        return 0, 0
    lo, hi = n * 25 // 1000, n * 975 // 1000 - 1
    return lo, min(max(hi, 0), n - 1)


def interval_of(sorted_means: Sequence[float]) -> tuple[float, float]:
    """The 95% interval of an ascending sequence of resample means (unrounded)."""
    if len(sorted_means) == 0:
        return 0.0, 0.0
    lo, hi = percentile_bounds(len(sorted_means))
    return float(sorted_means[lo]), float(sorted_means[hi])


@lru_cache(maxsize=2)
def resample_indexes(n: int):
    """The (1000, n) matrix of resampled case indexes: a fresh generator seeded with 1."""
    import numpy as np

    matrix = np.random.default_rng(SEED).integers(0, n, size=(RESAMPLES, n))
    matrix.setflags(write=False)
    return matrix


def resample_means(values: ArrayLike):
    """The sorted bootstrap distribution (1000 means) of ``values``."""
    import numpy as np

    vals = np.asarray(values, dtype=np.float64)
    n = len(vals)
    if n == 0:
        return np.zeros(0)
    means = vals[resample_indexes(n)].sum(axis=1) / n
    means.sort()
    return means


def interval(values: ArrayLike) -> Interval:
    low, high = interval_of(resample_means(values))
    return Interval(round4(low), round4(high))


def bootstrap(series: Mapping[str, Sequence[float]]) -> dict[str, Interval]:
    """An interval per metric; {} when there are no cases."""
    return {name: interval(vals) for name, vals in sorted(series.items()) if len(vals)}


def paired(base: Mapping[str, Sequence[float]], other: Mapping[str, Sequence[float]]) -> dict[str, Diff]:
    """Per metric present in both: mean of (other - base) per case, and its interval.

    Both series must come from the same cases in the same order; {} when their lengths
    differ or there is no case.
    """
    import numpy as np

    out: dict[str, Diff] = {}
    for name in sorted(other):
        if name not in base:
            continue
        ref = np.asarray(base[name], dtype=np.float64)
        vals = np.asarray(other[name], dtype=np.float64)
        if len(vals) == 0 or len(vals) != len(ref):
            continue
        delta = vals - ref
        low, high = interval_of(resample_means(delta))
        out[name] = Diff(round4(float(delta.sum()) / len(delta)), round4(low), round4(high))
    return out
