"""BM25F points (README, "How the lexical ranker scores"): the definition every lexical path computes.

For a query term ``t`` and a document with weighted term frequency ``tf`` and
weighted length ``L`` in a scope of ``N`` documents of average length ``avgL``::

    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
    points = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * L / avgL))     k1 = 1.2, b = 0.75

A document's score is the float64 sum of its terms' points in query-term order.  The fast
paths (:mod:`~skillsift.ranker.scope`, :mod:`~skillsift.ranker.lexical`,
:mod:`~skillsift.ranker.block_max`) perform these operations in this order, element-wise, so
they give the same doubles.
"""

from __future__ import annotations

import math

K1 = 1.2
B = 0.75
K1_PLUS_1 = K1 + 1  # folded like the reference's constant expression: 2.2
ONE_MINUS_B = 1 - B


def idf(n: int, df: int) -> float:
    """The inverse document frequency of a term held by ``df`` of the scope's ``n`` documents."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def norm(length: float, avg: float) -> float:
    """``k1 * (1 - b + b * L / avgL)``, the length normalisation of one document."""
    return K1 * (ONE_MINUS_B + B * length / avg)


def points(term_idf: float, tf: float, length_norm: float) -> float:
    """A term's points in one document: ``idf * tf * (k1 + 1) / (tf + norm)``."""
    return term_idf * tf * K1_PLUS_1 / (tf + length_norm)
