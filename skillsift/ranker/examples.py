"""Known requests (examples) as rows of one matrix, ready to rank with: pure numpy, no I/O.

An *example* is a request a skill is known to answer (an examples file, or the skill's
frontmatter ``examples``), embedded once, one vector per request, in the index.
:class:`ExampleRows` keeps them sorted by the skill they belong to, so ``np.maximum.reduceat``
over the query's cosines with them gives each skill its evidence ``e``, and the lift of
:mod:`skillsift.ranker.model.lift` (the definition) follows.

No leakage, and no more than that: in evaluation an example whose normalised text
(:func:`~skillsift.ranker.model.lift.normalised`) equals the query's *and* whose skill is one
the case expects is left out for that query, so a case is never ranked with its own request as
evidence.  A request of another skill with the same text stays: a live search uses it, so the
evaluation does too (docs/evaluation.md, "Known requests: no case is its own evidence").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from .model.lift import REDUCTION, example_best, mean_of_two_best, normalised
from .request_lexicon import RequestLexicon


def mean_of_two_best_row(cos, starts, sizes):
    """:func:`~skillsift.ranker.model.lift.mean_of_two_best` of one row (1-D ``cos``), the same values in fewer passes.

    A group's second best is the largest value below its maximum, unless the maximum occurs
    twice (then it is the maximum again): exactly what removing the first maximum's column and
    taking the maximum again gives.  When every group's maximum occurs once (one ``True`` per
    group in ``at_max``) the occurrence count is skipped.  A NaN cosine (never one of unit
    vectors) goes to the general function, whose handling of it this does not reproduce.
    """
    import numpy as np

    first = np.maximum.reduceat(cos, starts)
    if np.isnan(first).any():
        return mean_of_two_best(cos[None, :], starts, cos.size)[0]
    at_max = cos == np.repeat(first, sizes)
    second = np.maximum.reduceat(np.where(at_max, -np.inf, cos), starts)
    if np.count_nonzero(at_max) != starts.size:  # some group's maximum occurs more than once
        second = np.where(np.add.reduceat(at_max, starts, dtype=np.intp) > 1, first, second)
    both = np.isfinite(second)
    return np.where(both, (first + np.where(both, second, 0.0)) / 2, first)


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
    def of(cls, vectors, owners: Sequence[int], texts: Sequence[str], *, rows=None) -> ExampleRows:
        """The examples ``texts`` of the skills at ``owners``, their vectors the rows of ``vectors`` (or, with
        ``rows``, the rows ``vectors[rows]``: gathered once, in the examples' order, with no copy before)."""
        import numpy as np

        order = sorted(range(len(texts)), key=lambda i: (owners[i], texts[i]))
        at = np.asarray(order, dtype=np.intp)
        if rows is not None:
            m = np.asarray(np.asarray(vectors)[np.asarray(rows, dtype=np.intp)[at]], dtype=np.float32)
        else:
            m = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
            m = m[at] if order else m
        return cls(m.reshape(len(texts), -1), np.asarray([owners[i] for i in order], dtype=np.intp),
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
        same = self.masked(query, own_evidence)
        if same:
            cos[np.asarray(same, dtype=np.intp)] = -np.inf
        return cos

    def masked(self, query: str, own_evidence: Mapping[str, Collection[int]] | None) -> list[int]:
        """The requests that are no evidence for ``query`` (:meth:`cosines` gives them ``-inf``): those of
        the text of ``query`` whose skill ``own_evidence`` names for it (evaluation); [] in a live search."""
        if not own_evidence:
            return []
        key = normalised(query)
        own = own_evidence.get(key)
        if not own:
            return []
        import numpy as np

        owner = np.asarray(self.owner)
        return [i for i in self._by_key().get(key, ()) if int(owner[i]) in own]

    def best(self, cos, n_skills: int):
        """``(e, has)`` per skill from :meth:`cosines` (:func:`example_best` with :data:`REDUCTION`).

        One query row: the groups of :meth:`layout` and, for ``top2``, the single-row
        :func:`mean_of_two_best_row` (the same values as :func:`example_best`)."""
        import numpy as np

        if REDUCTION != "top2" or np.ndim(cos) != 1 or not len(self.texts):
            best, has = example_best(np.asarray(cos)[None, :], self.owner, n_skills, how=REDUCTION)
            return best[0], has[0]
        starts, sizes, skills = self.layout()
        group = mean_of_two_best_row(np.asarray(cos, dtype=np.float64), starts, sizes)
        ok = np.isfinite(group)
        best = np.zeros(n_skills)
        has = np.zeros(n_skills, bool)
        best[skills] = np.where(ok, group, 0.0)
        has[skills] = ok
        return best, has

    def lexicon(self, n_skills: int):
        """The :class:`~skillsift.ranker.request_lexicon.RequestLexicon` of these requests' text (BM25 per
        skill over a catalog of ``n_skills``), made on first use and kept with them."""
        found = self.__dict__.get("_lexicon")
        if found is None or found.n_skills != n_skills:
            import numpy as np

            found = RequestLexicon(np.asarray(self.owner).tolist(), self.texts, n_skills)
            object.__setattr__(self, "_lexicon", found)
        return found

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
