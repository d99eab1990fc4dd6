"""The one holdout rule of known requests: a case is never ranked with its own evidence.

Every measurement that ranks labelled cases with the known requests uses this rule, so
what ``eval``, ``skillsift ci`` and ``tune`` measure is what production ranks
(docs/evaluation.md, "Known requests: no case is its own evidence"):

* a case's *own evidence* is a known request whose normalised text equals the case's query
  **and** whose skill is one the case expects (several cases with one query: any of them);
* a request of another skill with the same text is kept: a live search ranks with it, so a
  pull request that writes the gated cases' queries as requests of its own skill is measured
  as production would rank it;
* when some case's own evidence exists, the cases are split in fixed folds
  (:func:`fold_of`) and each fold is ranked without the own evidence of every case of that
  fold (k-fold); otherwise nothing is held out.

:func:`plan` builds the rule for a set of cases; :meth:`Holdout.held` answers, for a case's
query, whether a request is held out.  Pure (numpy only for the folds).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..ranker.examples import normalised

FOLDS = 5
FOLD_SEED = 20240613


def fold_of(n: int, k: int = FOLDS, seed: int = FOLD_SEED) -> np.ndarray:
    """The fixed fold of each of ``n`` cases: ``perm[i] % k``, ``perm`` from ``default_rng(seed)``."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    perm = np.random.default_rng(seed).permutation(n)
    return (perm % max(1, min(k, n))).astype(np.int64)


@dataclass(frozen=True)
class Holdout:
    """The holdout of one set of cases (see the module docstring)."""

    overlap: int = 0  # cases whose own evidence exists
    folds: int = 1
    fold_of_key: Mapping[str, int] = field(default_factory=dict)  # case query (normalised) -> its fold
    own: Mapping[str, frozenset[str]] = field(default_factory=dict)  # case query -> the skills its cases expect
    keys_of_fold: tuple[frozenset[str], ...] = ()

    def fold(self, case_key: str) -> int:
        return self.fold_of_key.get(case_key, 0)

    def held(self, case_key: str, skill: str, request_key: str) -> bool:
        """Whether the request (``skill``, normalised text ``request_key``) is held out for a case whose
        normalised query is ``case_key``: it is the own evidence of a case of the same fold."""
        if not self.overlap:
            return False
        return request_key in self.keys_of_fold[self.fold(case_key)] and skill in self.own.get(request_key, ())

    def kept(self, fold: int, requests: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The ``(skill, text)`` requests a case of ``fold`` is ranked with."""
        if not self.overlap:
            return list(requests)
        out = self.keys_of_fold[fold]
        return [(s, t) for s, t in requests if not ((k := normalised(t)) in out and s in self.own.get(k, ()))]


def plan(cases: Sequence[tuple[str, Collection[str]]], requests: Iterable[tuple[str, str]], *,
         folds: int = FOLDS, seed: int = FOLD_SEED) -> Holdout:
    """The holdout of ``cases`` (each ``(query, expected skill names)``) against ``requests``
    (``(skill, text)``): see the module docstring."""
    keys = [normalised(q) for q, _expect in cases]
    own: dict[str, set[str]] = {}
    for key, (_q, expect) in zip(keys, cases, strict=True):
        own.setdefault(key, set()).update(expect)
    mine = {(s, normalised(t)) for s, t in requests}
    overlap = sum(1 for k in keys if any((s, k) in mine for s in own[k]))
    if not overlap:
        return Holdout(own={k: frozenset(v) for k, v in own.items() if v})
    n_folds = max(1, min(folds, len(cases)))
    fold = fold_of(len(cases), n_folds, seed)
    fold_of_key: dict[str, int] = {}
    for key, f in zip(keys, fold, strict=True):
        fold_of_key.setdefault(key, int(f))
    keys_of_fold = tuple(frozenset(k for k, g in fold_of_key.items() if g == f) for f in range(n_folds))
    return Holdout(overlap, n_folds, fold_of_key, {k: frozenset(v) for k, v in own.items() if v}, keys_of_fold)
