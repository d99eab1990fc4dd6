"""How known requests lift a skill's similarity: the definition (docs/ranking-quality.md, "Known requests").

A skill's requests each have a cosine with the query; ``e``, its evidence, is the mean of its two
best (its best alone with one request: :data:`REDUCTION`).  Its lifted similarity is::

    score = c + w * max(0, e - c)        (= max(c, (1 - w) * c + w * e))

for its own similarity ``c`` (plain, or centred for the blend) and the weight ``w``: a request
only ever lifts its skill.  :func:`normalised` is the text two requests (and a query) are
compared by.  The fast paths (:mod:`skillsift.ranker.examples`, :mod:`skillsift.ranker.request_screen`)
compute the same values.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: How a skill's request cosines become its ``e``: the mean of its two best (its best alone when
#: it has one request), measured on both development sets (docs/ranking-quality.md, "Known requests").
REDUCTION = "top2"

_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1 << 16)  # (a run with known requests asks it of each request's text three times)
def normalised(text: str) -> str:
    """The text two requests are compared by: NFKC, case-folded, words joined by single spaces."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def example_best(cos, owner, n_skills: int, *, how: str = "max", temperature: float = 0.05):
    """Per query row and skill, the best example cosine, and which skills have examples.

    ``cos``: queries x examples, the columns sorted by ``owner`` (each example's skill
    index, non-decreasing); masked-out examples hold ``-inf``.  ``how``: ``max`` (the
    shipped reduction), ``softmax`` (log-sum-exp at ``temperature``, a soft maximum) or
    ``top2`` (mean of the two best).  Returns ``(best, has)``: ``best`` is queries x
    skills (0 where a skill has no usable example), ``has`` a queries x skills bool array.
    """
    import numpy as np

    cos = np.asarray(cos, dtype=np.float64)
    owner = np.asarray(owner, dtype=np.intp)
    rows = cos.shape[0]
    best = np.zeros((rows, n_skills))
    has = np.zeros((rows, n_skills), bool)
    if owner.size == 0:
        return best, has
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    skills = owner[starts]
    if how == "max":
        group = np.maximum.reduceat(cos, starts, axis=1)
    elif how == "softmax":
        top = np.maximum.reduceat(cos, starts, axis=1)
        safe = np.where(np.isfinite(top), top, 0.0)
        expo = np.exp((cos - np.repeat(safe, np.diff(np.r_[starts, owner.size]), axis=1)) / temperature)
        group = safe + temperature * np.log(np.add.reduceat(expo, starts, axis=1))
        group = np.where(np.isfinite(top), group, -np.inf)
    elif how == "top2":
        group = mean_of_two_best(cos, starts, owner.size)
    else:
        raise ValueError(f"unknown reduction {how!r}")
    ok = np.isfinite(group)
    best[:, skills] = np.where(ok, group, 0.0)
    has[:, skills] = ok
    return best, has


def mean_of_two_best(cos, starts, n):
    """Per row and group of columns, the mean of its two largest finite values (the largest alone
    when it has one, ``-inf`` when it has none); vectorised with two ``reduceat`` passes."""
    import numpy as np

    first = np.maximum.reduceat(cos, starts, axis=1)
    sizes = np.diff(np.r_[starts, n])
    at_max = cos == np.repeat(first, sizes, axis=1)
    columns = np.broadcast_to(np.arange(n), cos.shape)
    where = np.minimum.reduceat(np.where(at_max, columns, n), starts, axis=1)  # the first maximum's column
    rest = cos.copy()
    np.put_along_axis(rest, np.minimum(where, n - 1), -np.inf, axis=1)
    second = np.maximum.reduceat(rest, starts, axis=1)
    second = np.where(sizes[None, :] > 1, second, -np.inf)
    both = np.isfinite(second)
    return np.where(both, (first + np.where(both, second, 0.0)) / 2, first)


def combine(own, best, has, weight: float):
    """``own + weight * max(0, best - own)`` where ``has``, ``own`` elsewhere (any shape)."""
    import numpy as np

    own = np.asarray(own, dtype=np.float64)
    lift = np.where(has, np.maximum(np.asarray(best, dtype=np.float64) - own, 0.0), 0.0)
    return own + weight * lift
