"""Known requests (examples) as vector evidence: pure numpy, no I/O.

An *example* is a request a skill is known to answer (an examples file, or the skill's
frontmatter ``examples``), embedded once, one vector per request, in the index.  At query
time one matrix product gives the query's cosine to every example; the examples are
stored sorted by the skill they belong to, so ``np.maximum.reduceat`` over them gives each
skill its best example cosines.  A skill's vector score then combines its own cosine ``c``
and ``e``, the mean of its two best example cosines (its best alone with one example;
docs/ranking-quality.md, "Known requests")::

    score = c + w * max(0, e - c)        (= max(c, (1 - w) * c + w * e))

so an example only ever lifts its skill, by the fraction ``w`` of how much closer the
request is than the skill's own text, and a skill without examples keeps ``c``.

No leakage, and no more than that: in evaluation an example whose normalised text
(:func:`normalised`) equals the query's *and* whose skill is one the case expects is left out
for that query, so a case is never ranked with its own request as evidence.  A request of
another skill with the same text stays: a live search uses it, so the evaluation does too
(docs/evaluation.md, "Known requests: no case is its own evidence").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

#: How a skill's request cosines become its ``e``: the mean of its two best (its best alone when
#: it has one request), measured on both development sets (docs/ranking-quality.md, "Known requests").
REDUCTION = "top2"

_WORD = re.compile(r"\w+")


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
        group = _mean_of_two_best(cos, starts, owner.size)
    else:
        raise ValueError(f"unknown reduction {how!r}")
    ok = np.isfinite(group)
    best[:, skills] = np.where(ok, group, 0.0)
    has[:, skills] = ok
    return best, has


def _mean_of_two_best(cos, starts, n):
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


def _mean_of_two_best_row(cos, starts, sizes):
    """:func:`_mean_of_two_best` of one row (1-D ``cos``), the same values in fewer passes.

    A group's second best is the largest value below its maximum, unless the maximum occurs
    twice (then it is the maximum again): exactly what removing the first maximum's column and
    taking the maximum again gives.  When every group's maximum occurs once (one ``True`` per
    group in ``at_max``) the occurrence count is skipped.  A NaN cosine (never one of unit
    vectors) goes to the general function, whose handling of it this does not reproduce.
    """
    import numpy as np

    first = np.maximum.reduceat(cos, starts)
    if np.isnan(first).any():
        return _mean_of_two_best(cos[None, :], starts, cos.size)[0]
    at_max = cos == np.repeat(first, sizes)
    second = np.maximum.reduceat(np.where(at_max, -np.inf, cos), starts)
    if np.count_nonzero(at_max) != starts.size:  # some group's maximum occurs more than once
        second = np.where(np.add.reduceat(at_max, starts, dtype=np.intp) > 1, first, second)
    both = np.isfinite(second)
    return np.where(both, (first + np.where(both, second, 0.0)) / 2, first)


def combine(own, best, has, weight: float):
    """``own + weight * max(0, best - own)`` where ``has``, ``own`` elsewhere (any shape)."""
    import numpy as np

    own = np.asarray(own, dtype=np.float64)
    lift = np.where(has, np.maximum(np.asarray(best, dtype=np.float64) - own, 0.0), 0.0)
    return own + weight * lift


@dataclass(frozen=True)
class ExampleRows:
    """The examples of one catalog, ready to rank with.

    ``matrix``: examples x dims (float32, unit rows) sorted by ``owner`` (catalog position
    of the skill, non-decreasing); ``texts``: each example's request; ``keys``: each
    request's :func:`normalised` text (the leakage rule).
    """

    matrix: object
    owner: object
    texts: tuple[str, ...]
    keys: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.texts)

    @classmethod
    def of(cls, vectors, owners: Sequence[int], texts: Sequence[str]) -> ExampleRows:
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: (owners[i], texts[i]))
        m = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
        return cls(m[np.asarray(order, dtype=np.intp)] if order else m,
                   np.asarray([owners[i] for i in order], dtype=np.intp),
                   tuple(texts[i] for i in order), tuple(normalised(texts[i]) for i in order))

    def cosines(self, query: str, qvec, *, own_evidence: Mapping[str, Collection[int]] | None = None):
        """The query's cosine to every example.

        ``own_evidence`` (evaluation): normalised query text -> the skill positions whose requests
        of that text are the case's own evidence; each such example gets ``-inf``.  Examples of
        other skills with the same text keep their cosine (a live search ranks with them).
        """
        import numpy as np

        # float32 products (a float64 copy of 20,000 requests would be read at every query); the
        # cosines are then float64, so the combination and the fused scores are computed as always
        q = np.asarray(qvec, dtype=np.float32)
        m = np.asarray(self.matrix, dtype=np.float32)
        cos = ((q @ m.T).max(axis=0) if q.ndim == 2 else m @ q).astype(np.float64)  # a long query: best piece
        if own_evidence:
            key = normalised(query)
            own = own_evidence.get(key)
            owner = np.asarray(self.owner)
            same = [i for i in self._by_key().get(key, ()) if own and int(owner[i]) in own]
            if same:
                cos[np.asarray(same, dtype=np.intp)] = -np.inf
        return cos

    def best(self, cos, n_skills: int):
        """``(e, has)`` per skill from :meth:`cosines` (:func:`example_best` with :data:`REDUCTION`).

        One query row: the groups of :meth:`layout` and, for ``top2``, the single-row
        :func:`_mean_of_two_best_row` (the same values as :func:`example_best`)."""
        import numpy as np

        if REDUCTION != "top2" or np.ndim(cos) != 1 or not len(self.texts):
            best, has = example_best(np.asarray(cos)[None, :], self.owner, n_skills, how=REDUCTION)
            return best[0], has[0]
        starts, sizes, skills = self.layout()
        group = _mean_of_two_best_row(np.asarray(cos, dtype=np.float64), starts, sizes)
        ok = np.isfinite(group)
        best = np.zeros(n_skills)
        has = np.zeros(n_skills, bool)
        best[skills] = np.where(ok, group, 0.0)
        has[skills] = ok
        return best, has

    def layout(self):
        """``(starts, sizes, skills)`` of the groups of columns (one per skill with examples), made once."""
        found = self.__dict__.get("_layout")
        if found is None:
            import numpy as np

            owner = np.asarray(self.owner, dtype=np.intp)
            starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
            found = (starts, np.diff(np.r_[starts, owner.size]), owner[starts])
            object.__setattr__(self, "_layout", found)
        return found

    def closest(self, cos, skill: int) -> tuple[str, float] | None:
        """The request of ``skill`` closest to the query, and its cosine (None without one)."""
        import numpy as np

        owner = np.asarray(self.owner)
        a, b = int(np.searchsorted(owner, skill, "left")), int(np.searchsorted(owner, skill, "right"))
        if a == b:
            return None
        j = a + int(np.argmax(cos[a:b]))
        if not np.isfinite(cos[j]):
            return None
        return self.texts[j], float(cos[j])

    def _by_key(self) -> dict:
        found = self.__dict__.get("_keys_index")
        if found is None:
            found = {}
            for i, k in enumerate(self.keys):
                found.setdefault(k, []).append(i)
            object.__setattr__(self, "_keys_index", found)
        return found
